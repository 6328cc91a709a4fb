import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhooksCommand } from '../../cli/commands/webhooks.js';
import { AtlasClient } from '../../shared/atlas/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { runPollCommand } from './poll-command-harness.js';

/** In the default seed (throwaway values): Acme Corp's projects and two keys. */
const PROJECT_D11 = '64b5ca17f1a3d40012ab3d11';
const PROJECT_D13 = '64b5ca17f1a3d40012ab3d13';
const PROJECT_D14 = '64b5ca17f1a3d40012ab3d14';
/** Organization Owner of Acme Corp. */
const OWNER_KEY = { publicKey: 'qkzvbgyt', privateKey: 'fake-private-key-ci-automation' };
/** Project Read Only on PROJECT_D13 only. */
const READ_ONLY_KEY = { publicKey: 'mvpluqwa', privateKey: 'fake-private-key-analytics' };
const RECEIVER = 'https://abc123.lambda-url.eu-west-1.on.aws/';
const WEBHOOK_SECRET = 'fake-webhook-secret-Zq9x4Lw2';

function pollerEnv(key: { publicKey: string; privateKey: string }): Record<string, string> {
  return { MONGODB_ATLAS_PUBLIC_API_KEY: key.publicKey, MONGODB_ATLAS_PRIVATE_API_KEY: key.privateKey };
}

function ownerEnv(key: { publicKey: string; privateKey: string }): Record<string, string> {
  return {
    ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY: key.publicKey,
    ATLAS_AUDIT_ALERTS_OWNER_PRIVATE_API_KEY: key.privateKey,
    ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
}

let sim: AtlasSimulator;
let dir: string;

function webhooks(args: readonly string[], env: Record<string, string>) {
  return runPollCommand(['webhooks', ...args, '--base-url', sim.baseUrl], {
    env,
    cwd: dir,
    register: registerWebhooksCommand,
  });
}

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'webhooks-'));
});

afterAll(async () => {
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('webhooks plan', () => {
  it('prints the Atlas CLI commands for the alertable types the built-in rules name, and the poll-only rest', async () => {
    // Act
    const result = await webhooks(
      ['plan', '--project', PROJECT_D11, '--url', RECEIVER],
      pollerEnv(OWNER_KEY),
    );

    // Assess
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^The enabled rules name \d+ event types: Atlas can push \d+, \d+ are poll-only\.$/,
    );
    expect(lines).toContain(
      `atlas integrations create WEBHOOK --projectId ${PROJECT_D11} --url ${RECEIVER} --secret "$ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET"`,
    );
    expect(lines).toContain(
      `atlas alerts settings create --projectId ${PROJECT_D11} --event NETWORK_PERMISSION_ENTRY_ADDED --enabled --notificationType WEBHOOK --notificationDelayMin 0`,
    );
    const pollOnly = lines.slice(lines.findIndex((line) => line.startsWith('Poll-only event types')) + 1);
    expect(pollOnly).toContain('  API_KEY_CREATED');
    expect(pollOnly).not.toContain('  NETWORK_PERMISSION_ENTRY_ADDED');
  });

  it('prints the Admin API requests with --json, the secret a reference to its variable', async () => {
    // Prepare
    const outputs = join(dir, 'cdk-outputs.json');
    await writeFile(outputs, JSON.stringify({ AtlasAuditAlerts: { PushWebhookUrl: RECEIVER, Other: 'x' } }));

    // Act
    const result = await webhooks(
      ['plan', '--project', PROJECT_D11, '--outputs-file', outputs, '--json'],
      pollerEnv(OWNER_KEY),
    );

    // Assess
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as {
      pushable: string[];
      pollOnly: string[];
      projects: {
        groupId: string;
        requests: { method: string; path: string; body: Record<string, unknown> }[];
      }[];
    };
    expect(plan.pushable).toContain('NETWORK_PERMISSION_ENTRY_ADDED');
    expect(plan.pollOnly).toContain('API_KEY_CREATED');
    expect(plan.projects[0]?.requests[0]).toEqual({
      method: 'POST',
      path: `/api/atlas/v2/groups/${PROJECT_D11}/integrations/WEBHOOK`,
      body: { type: 'WEBHOOK', url: RECEIVER, secret: '$ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET' },
    });
    expect(plan.projects[0]?.requests).toHaveLength(1 + plan.pushable.length);
    expect(plan.projects[0]?.requests[1]).toMatchObject({
      method: 'POST',
      path: `/api/atlas/v2/groups/${PROJECT_D11}/alertConfigs`,
      body: { enabled: true, notifications: [{ typeName: 'WEBHOOK', delayMin: 0 }] },
    });
  });

  it('refuses to plan without the receiver URL, naming both ways to give it', async () => {
    // Act
    const result = await webhooks(['plan', '--project', PROJECT_D11], pollerEnv(OWNER_KEY));

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--url URL');
    expect(result.stderr).toContain('--outputs-file FILE');
  });
});

describe('webhooks apply', () => {
  it('creates the integration and the alert configurations, then a second apply changes nothing', async () => {
    // Act
    const first = await webhooks(['apply', '--project', PROJECT_D11, '--url', RECEIVER], ownerEnv(OWNER_KEY));
    const second = await webhooks(
      ['apply', '--project', PROJECT_D11, '--url', RECEIVER],
      ownerEnv(OWNER_KEY),
    );

    // Assess
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`created    ${PROJECT_D11}  integration`);
    expect(first.stdout).toContain(`created    ${PROJECT_D11}  NETWORK_PERMISSION_ENTRY_ADDED`);
    expect(first.stdout).toMatch(/^[1-9]\d* created, 0 replaced, 0 unchanged; \d+ event types poll-only$/m);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toContain('created  ');
    expect(second.stdout).toContain(`unchanged  ${PROJECT_D11}  integration`);
    expect(second.stdout).toMatch(/^0 created, 0 replaced, [1-9]\d* unchanged; \d+ event types poll-only$/m);
    const client = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...OWNER_KEY } });
    try {
      const configs = await client.listAlertConfigs(PROJECT_D11).toArray();
      const pushing = configs.filter((config) => config.eventTypeName === 'NETWORK_PERMISSION_ENTRY_ADDED');
      expect(pushing).toHaveLength(1);
      expect(await client.getIntegration(PROJECT_D11, 'WEBHOOK')).toMatchObject({ secret: '******' });
    } finally {
      await client.close();
    }
    expect(`${first.stdout}${first.stderr}${second.stdout}${second.stderr}`).not.toContain(WEBHOOK_SECRET);
  });

  it('fails with exit 3 on 403 for a read-only key, naming Project Owner, and never prints the secret', async () => {
    // Act
    const result = await webhooks(
      ['apply', '--project', PROJECT_D13, '--url', RECEIVER],
      ownerEnv(READ_ONLY_KEY),
    );

    // Assess
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`Atlas answered 403 for project ${PROJECT_D13}`);
    expect(result.stderr).toContain('Project Owner');
    expect(result.stderr).toContain('ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY');
    expect(`${result.stdout}${result.stderr}`).not.toContain(WEBHOOK_SECRET);
  });

  it('fails with exit 3 on 401 when Atlas refuses the owner key', async () => {
    // Act
    const result = await webhooks(
      ['apply', '--project', PROJECT_D13, '--url', RECEIVER],
      ownerEnv({ publicKey: OWNER_KEY.publicKey, privateKey: 'fake-wrong-private-key' }),
    );

    // Assess
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('401');
    expect(result.stderr).not.toContain('fake-wrong-private-key');
  });

  it('stops at a Webhook integration that posts elsewhere, and points it at the receiver with --replace-integration', async () => {
    // Prepare
    const client = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...OWNER_KEY } });
    try {
      await client.writeJson('POST', `/groups/${PROJECT_D14}/integrations/WEBHOOK`, {
        type: 'WEBHOOK',
        url: 'https://elsewhere.example.com/hook',
      });
    } finally {
      await client.close();
    }

    // Act
    const refused = await webhooks(
      ['apply', '--project', PROJECT_D14, '--url', RECEIVER],
      ownerEnv(OWNER_KEY),
    );
    const replaced = await webhooks(
      ['apply', '--project', PROJECT_D14, '--url', RECEIVER, '--replace-integration'],
      ownerEnv(OWNER_KEY),
    );
    const again = await webhooks(['apply', '--project', PROJECT_D14, '--url', RECEIVER], ownerEnv(OWNER_KEY));

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `project ${PROJECT_D14} has a Webhook integration to https://elsewhere.example.com/****`,
    );
    expect(refused.stderr).toContain('--replace-integration');
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(`replaced   ${PROJECT_D14}  integration`);
    expect(again.stdout).toContain(`unchanged  ${PROJECT_D14}  integration`);
    expect(`${refused.stderr}${replaced.stdout}${again.stdout}`).not.toContain(WEBHOOK_SECRET);
  });

  it("never uses the poller's own key: without the owner variables it stops, naming them", async () => {
    // Act
    const result = await webhooks(['apply', '--project', PROJECT_D11, '--url', RECEIVER], {
      ...pollerEnv(OWNER_KEY),
      ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY');
  });
});
