import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCheckReport } from '../../cli/check-report.js';
import { registerCheckCommand } from '../../cli/commands/check.js';
import { runPreflight } from '../../cli/preflight-checks.js';
import { AtlasClient } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { pollerConfigSchema } from '../../shared/poll/index.js';
import { type AtlasSimulator, type SeedData, startSimulator } from '../../simulator/index.js';
import { ids, pollerKey, pollSeed } from '../poll/support/poll-fixture.js';
import { startDigestServer } from '../support/digest-server.js';
import { runCli } from './cli-runner.js';
import {
  type RunPollCommandOptions,
  runPollCommand as runCommand,
  writeEstateConfig,
} from './poll-command-harness.js';

const DEPLOY_EXAMPLE = fileURLToPath(new URL('../../infra/examples/config.example.yaml', import.meta.url));
/** In the default seed: Acme Corp, and keys with the roles each case needs (throwaway values). */
const ORG = '64b5c9e2f1a3d40012ab3c01';
const PROJECT_D11 = '64b5ca17f1a3d40012ab3d11';
const PROJECT_D13 = '64b5ca17f1a3d40012ab3d13';
/** Organization Owner on ORG, access list 0.0.0.0/0. */
const OWNER_KEY = { publicKey: 'qkzvbgyt', privateKey: 'fake-private-key-ci-automation' };
/** Project Read Only on PROJECT_D13 only, access list 127.0.0.1. */
const PROJECT_ONLY_KEY = { publicKey: 'mvpluqwa', privateKey: 'fake-private-key-analytics' };
/** Organization Member on ORG, access list 198.51.100.17 only. */
const REMOTE_KEY = { publicKey: 'rtfcjdse', privateKey: 'fake-private-key-payments-deployer' };

function envOf(key: { publicKey: string; privateKey: string }): Record<string, string> {
  return { MONGODB_ATLAS_PUBLIC_API_KEY: key.publicKey, MONGODB_ATLAS_PRIVATE_API_KEY: key.privateKey };
}

function runCheck(
  args: readonly string[],
  options: Omit<RunPollCommandOptions, 'register' | 'cwd'>,
): ReturnType<typeof runCommand> {
  return runCommand(['check', ...args], { ...options, cwd: process.cwd(), register: registerCheckCommand });
}

interface JsonCheck {
  check: string;
  status: string;
  subject: string;
  message: string;
  role?: string;
  address?: string;
  skewMs?: number;
}

let sim: AtlasSimulator;
let guarded: AtlasSimulator;

beforeAll(async () => {
  sim = await startSimulator();
  guarded = await startSimulator({ enforceAccessList: true });
});

afterAll(async () => {
  await sim.stop();
  await guarded.stop();
});

describe('check', () => {
  it('passes every check for a key with the roles the sources need, discovered projects included', async () => {
    const result = await runCheck(['--base-url', sim.baseUrl, '--org', ORG, '--all-projects'], {
      env: envOf(OWNER_KEY),
    });

    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ok {3}atlas-v2 API at http:\/\/127\.0\.0\.1:\d+: answers with API version 2023-01-01$/,
    );
    expect(lines).toContain('ok   credentials: Atlas accepts the API key (HTTP Digest)');
    expect(lines).toContain('ok   egress address: Atlas accepts calls from this machine');
    // Org events, its name, API keys, an API key's access list, service accounts, project discovery.
    expect(lines.filter((line) => line.startsWith(`ok   org ${ORG}`))).toHaveLength(6);
    expect(lines).toContain(
      `ok   org ${ORG} organization names in alerts: readable (Organization Member): named Acme Corp`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ok   org ${ORG} service account inventory: readable \\(Organization Read Only\\): \\d+ service accounts?$`,
        ),
      ),
    );
    const projects = sim.projects.filter((project) => project.orgId === ORG);
    for (const project of projects) {
      expect(
        lines.some((line) =>
          line.startsWith(`ok   project ${project.id} project events: readable (Project Read Only)`),
        ),
      ).toBe(true);
      expect(
        lines.some((line) =>
          line.startsWith(
            `ok   project ${project.id} project IP access list inventory: readable (Project Read Only)`,
          ),
        ),
      ).toBe(true);
      expect(lines).toContain(
        `ok   project ${project.id} project names in alerts: readable (Project Read Only): named ${project.name}`,
      );
    }
    // Counts in words, each with its plural: 4 API keys, 1 entry, 2 entries.
    expect(lines).toContain(`ok   org ${ORG} API key inventory: readable (Organization Member): 4 API keys`);
    expect(lines).toContain(`ok   org ${ORG} API key access lists: readable (Organization Member): 1 entry`);
    expect(lines).toContain(
      `ok   project ${PROJECT_D11} project IP access list inventory: readable (Project Read Only): 2 entries`,
    );
    expect(lines.at(-2)).toMatch(/^ok {3}clock: this machine's clock is /);
    expect(lines.at(-1)).toBe(`ready: ${lines.length - 3} ok, 2 warnings, 0 failed, 0 skipped`);
  });

  it('checks what a deploy configuration polls, given as --config', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'check-config-'));
    const config = join(folder, 'prod.yaml');
    await writeFile(
      config,
      (await readFile(DEPLOY_EXAMPLE, 'utf8')).replace('5f4e3d2c1b0a998877665544', ORG),
    );

    const result = await runCheck(['--config', config, '--base-url', sim.baseUrl], {
      env: envOf(OWNER_KEY),
    }).finally(() => rm(folder, { recursive: true, force: true }));

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^ok {3}org ${ORG} project discovery: readable`, 'm'));
    expect(result.stdout).toMatch(/^ok {3}project \w+ project events: /m);
  });

  it('checks each connection of a config file with its own credentials, and says which one failed', async () => {
    // Prepare: an Ops Manager beside the Atlas, with its own seed and key.
    const opsManager = await startSimulator({ seed: pollSeed() });
    const folder = await mkdtemp(join(tmpdir(), 'check-connections-'));
    const config = join(folder, 'estate.yaml');
    await writeEstateConfig(config, {
      atlasBaseUrl: sim.baseUrl,
      orgId: ORG,
      opsManagerBaseUrl: opsManager.baseUrl,
      projectIds: [ids.project],
    });
    const withKey = (privateKey: string) => ({
      ...envOf(OWNER_KEY),
      MONGODB_ATLAS_PUBLIC_API_KEY_DATA_CENTRE: pollerKey.publicKey,
      MONGODB_ATLAS_PRIVATE_API_KEY_DATA_CENTRE: privateKey,
    });

    // Act
    const ready = await runCheck(['--config', config, '--json'], { env: withKey(pollerKey.privateKey) });
    const refused = await runCheck(['--config', config], { env: withKey('fake-wrong-private-key') }).finally(
      async () => {
        await rm(folder, { recursive: true, force: true });
        await opsManager.stop();
      },
    );

    // Assess
    expect(ready.code, ready.stderr).toBe(0);
    const checks = (JSON.parse(ready.stdout) as { checks: Array<JsonCheck & { connection?: string }> })
      .checks;
    expect(new Set(checks.map((check) => check.connection))).toEqual(new Set(['default', 'data-centre']));
    expect(checks).toContainEqual(
      expect.objectContaining({
        connection: 'data-centre',
        check: 'atlas',
        subject: `ops-manager API at ${opsManager.baseUrl}`,
      }),
    );
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/^FAIL connection data-centre: credentials: /m);
    expect(refused.stdout).toMatch(/^ok {3}connection default: credentials: /m);
    expect(refused.stdout).not.toContain('fake-wrong-private-key');
  });

  it('warns when the key holds more than the poller needs: Organization Owner, an access list open to all', async () => {
    const result = await runCheck(['--base-url', sim.baseUrl, '--org', ORG], { env: envOf(OWNER_KEY) });

    expect(result.code).toBe(0);
    const warnings = result.stdout.split('\n').filter((line) => line.startsWith('warn '));
    expect(warnings).toEqual([
      `warn the API key's privileges on org ${ORG}: it holds Organization Owner, more than the poller needs (Organization Read Only covers every call it makes); the built-in rules raise a finding on such a credential, and a leaked one can change anything: give the poller a key with Organization Read Only`,
      `warn the API key's privileges on org ${ORG}: its access list lets it in from 0.0.0.0/0, most of the internet; the built-in rules raise a critical alert on it: list only the addresses the poller calls from (the EgressIpAddresses output of a stack with network.mode create-vpc, see docs/deploy.md)`,
    ]);
    expect(result.stdout).toMatch(/\nready: \d+ ok, 2 warnings, 0 failed, 0 skipped\n$/);
  });

  it('counts one warning as one warning', () => {
    const report = formatCheckReport([
      { check: 'clock', status: 'warn', subject: 'clock', message: 'ahead' },
      { check: 'credentials', status: 'ok', subject: 'credentials', message: 'accepted' },
    ]);

    expect(report.split('\n').at(-2)).toBe('ready: 1 ok, 1 warning, 0 failed, 0 skipped');
  });

  it('says so when the credentials hold no owner role and no open access list', async () => {
    const account = sim.serviceAccount;
    if (account === undefined) throw new Error('the default seed has a service account');

    const result = await runCheck(['--base-url', sim.baseUrl, '--org', ORG, '--json'], {
      env: { MONGODB_ATLAS_CLIENT_ID: account.clientId, MONGODB_ATLAS_CLIENT_SECRET: account.clientSecret },
    });

    const report = JSON.parse(result.stdout) as { checks: JsonCheck[] };
    expect(report.checks.filter((check) => check.check === 'privilege')).toEqual([
      {
        check: 'privilege',
        status: 'ok',
        subject: `the service account's privileges on org ${ORG}`,
        message: 'no owner role, and no access list',
      },
    ]);
  });

  it('fails the access check of a role the key lacks, names the role, and checks the rest', async () => {
    const result = await runCheck(
      ['--base-url', sim.baseUrl, '--org', ORG, '--project', PROJECT_D13, '--project', PROJECT_D11, '--json'],
      { env: envOf(PROJECT_ONLY_KEY) },
    );

    // Every failure is a refusal of the key's permissions: exit 3, as run and fetch exit.
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as { ready: boolean; checks: JsonCheck[] };
    expect(report.ready).toBe(false);
    const bySubject = new Map(report.checks.map((check) => [check.subject, check]));
    expect(bySubject.get(`org ${ORG} org events`)).toMatchObject({
      status: 'fail',
      role: 'Organization Member',
      message: expect.stringContaining(
        `give the API key or service account Organization Member or higher on org ${ORG}`,
      ),
    });
    expect(bySubject.get(`org ${ORG} API key inventory`)?.status).toBe('fail');
    expect(bySubject.get(`project ${PROJECT_D13} project events`)?.status).toBe('ok');
    expect(bySubject.get(`project ${PROJECT_D11} project events`)).toMatchObject({
      status: 'fail',
      role: 'Project Read Only',
    });
    expect(bySubject.get('credentials')?.status).toBe('ok');
  });

  it('names the refused egress address and skips the checks it makes moot', async () => {
    const result = await runCheck(['--base-url', guarded.baseUrl, '--org', ORG, '--project', PROJECT_D11], {
      env: envOf(REMOTE_KEY),
    });

    expect(result.code).toBe(3);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toContain('ok   credentials: Atlas accepts the API key (HTTP Digest)');
    const egress = lines.find((line) => line.startsWith('FAIL egress address:'));
    expect(egress).toContain(
      'Atlas refuses calls from 127.0.0.1 (403 IP_ADDRESS_NOT_ON_ACCESS_LIST): add 127.0.0.1 to the access list',
    );
    expect(lines.filter((line) => line.startsWith('skip '))).toHaveLength(5);
    expect(lines.at(-1)).toBe('not ready: 2 ok, 0 warnings, 1 failed, 5 skipped');
  });

  it('passes the egress check where the key’s access list holds the address', async () => {
    const result = await runCheck(['--base-url', guarded.baseUrl, '--project', PROJECT_D13, '--json'], {
      env: envOf(PROJECT_ONLY_KEY),
    });

    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { ready: boolean; checks: JsonCheck[] };
    expect(report.checks.find((check) => check.check === 'egress')?.status).toBe('ok');
  });

  it('fails the credentials check for a refused key and skips the rest', async () => {
    const result = await runCheck(['--base-url', sim.baseUrl, '--org', ORG], {
      env: envOf({ publicKey: OWNER_KEY.publicKey, privateKey: 'fake-wrong-private-key' }),
    });

    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^FAIL credentials: Atlas answered 401/m);
    expect(result.stdout).not.toContain('fake-wrong-private-key');
    expect(result.stdout).toMatch(
      /^skip org 64b5c9e2f1a3d40012ab3c01 org events: not checked: the credentials check failed$/m,
    );
  });

  it('fails the API check when the base URL serves no such API version', async () => {
    const retired = await startSimulator({ retiredApiVersions: ['2023-01-01'] });
    try {
      const result = await runCheck(['--base-url', retired.baseUrl, '--org', ORG, '--max-attempts', '1'], {
        env: envOf(OWNER_KEY),
      });

      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^FAIL atlas-v2 API at .*410/m);
    } finally {
      await retired.stop();
    }
  });

  it('accepts a service account and says so', async () => {
    const account = sim.serviceAccount;
    if (account === undefined) throw new Error('the default seed has a service account');
    const result = await runCheck(['--base-url', sim.baseUrl, '--org', ORG], {
      env: { MONGODB_ATLAS_CLIENT_ID: account.clientId, MONGODB_ATLAS_CLIENT_SECRET: account.clientSecret },
    });

    expect(result.stdout).toContain('ok   credentials: Atlas accepts the service account (OAuth 2.0)');
    expect(result.code).toBe(0);
  });

  it('reads the ops-manager flavour, which names no API version', async () => {
    const result = await runCheck(['--base-url', sim.baseUrl, '--flavor', 'ops-manager', '--org', ORG], {
      env: envOf(OWNER_KEY),
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ok {3}ops-manager API at http:\/\/127\.0\.0\.1:\d+: answers$/m);
  });
});

/** A seed for the access-history checks: one project per outcome, and a key with the least roles. */
const HISTORY = {
  org: '66a0c0de0000000000000001',
  /** A dedicated cluster (and a shared one); the key holds Project Cluster Log Viewer. */
  payments: '66a0c0de0000000000000011',
  /** Shared-tier and Flex clusters only; the key holds Project Cluster Log Viewer. */
  tools: '66a0c0de0000000000000012',
  /** A dedicated cluster; the key holds Organization Read Only there, and nothing more. */
  reports: '66a0c0de0000000000000013',
} as const;
/** Organization Read Only, and Project Cluster Log Viewer on payments and tools (throwaway values). */
const LOG_VIEWER_KEY = { publicKey: 'logviewr', privateKey: 'fake-private-key-log-viewer' };
/** Organization Owner (throwaway values). */
const HISTORY_OWNER_KEY = { publicKey: 'histownr', privateKey: 'fake-private-key-history-owner' };
/** When the one access-history line of payments-main was written, before the simulator started. */
const LATEST_LOGIN_SECONDS_AGO = 600;

function accessHistorySeed(): SeedData {
  return {
    orgs: [{ id: HISTORY.org, name: 'History Org' }],
    projects: [
      {
        id: HISTORY.payments,
        name: 'payments',
        orgId: HISTORY.org,
        clusters: [
          {
            name: 'payments-sandbox',
            providerSettings: { providerName: 'TENANT', instanceSizeName: 'M0', backingProviderName: 'AWS' },
          },
          {
            name: 'payments-main',
            providerSettings: { providerName: 'AWS', instanceSizeName: 'M30' },
            accessLogs: [
              { secondsAgo: 3_000, username: 'app', ipAddress: '198.51.100.7', authResult: true },
              {
                secondsAgo: LATEST_LOGIN_SECONDS_AGO,
                username: 'app',
                ipAddress: '198.51.100.7',
                authResult: true,
              },
            ],
          },
        ],
      },
      {
        id: HISTORY.tools,
        name: 'tools',
        orgId: HISTORY.org,
        clusters: [
          {
            name: 'tools-free',
            providerSettings: { providerName: 'TENANT', instanceSizeName: 'M0', backingProviderName: 'AWS' },
          },
          { name: 'tools-flex', providerSettings: { providerName: 'FLEX', backingProviderName: 'GCP' } },
        ],
      },
      {
        id: HISTORY.reports,
        name: 'reports',
        orgId: HISTORY.org,
        clusters: [
          { name: 'reports-main', providerSettings: { providerName: 'GCP', instanceSizeName: 'M10' } },
        ],
      },
    ],
    apiKeys: [
      {
        id: '66a0c0de0000000000000021',
        desc: 'Audit poller',
        ...LOG_VIEWER_KEY,
        roles: [
          { orgId: HISTORY.org, roleName: 'ORG_READ_ONLY' },
          { groupId: HISTORY.payments, roleName: 'GROUP_CLUSTER_LOG_VIEWER' },
          { groupId: HISTORY.tools, roleName: 'GROUP_CLUSTER_LOG_VIEWER' },
        ],
      },
      {
        id: '66a0c0de0000000000000022',
        desc: 'Owner',
        ...HISTORY_OWNER_KEY,
        roles: [{ orgId: HISTORY.org, roleName: 'ORG_OWNER' }],
      },
    ],
  };
}

describe('check with sources.accessHistory', () => {
  let history: AtlasSimulator;
  let folder: string;

  beforeAll(async () => {
    history = await startSimulator({ seed: accessHistorySeed() });
    folder = await mkdtemp(join(tmpdir(), 'check-access-history-'));
  });

  afterAll(async () => {
    await history.stop();
    await rm(folder, { recursive: true, force: true });
  });

  /** A run configuration of the top-level sources: these projects, access history on or off. */
  async function historyConfig(projectIds: readonly string[], accessHistory = true): Promise<string> {
    const path = join(folder, `${projectIds.join('-')}-${accessHistory}.yaml`);
    await writeFile(
      path,
      [
        'atlas:',
        `  baseUrl: ${history.baseUrl}`,
        'sources:',
        `  projectIds: [${projectIds.join(', ')}]`,
        `  accessHistory: ${accessHistory}`,
        '',
      ].join('\n'),
    );
    return path;
  }

  it('reads one line of one dedicated cluster where the key holds Project Cluster Log Viewer', async () => {
    // Prepare
    const config = await historyConfig([HISTORY.payments]);
    history.resetCounters();

    // Act
    const result = await runCheck(['--config', config], { env: envOf(LOG_VIEWER_KEY) });

    // Assess
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const latest = new Date(history.startedAt - LATEST_LOGIN_SECONDS_AGO * 1_000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    expect(result.stdout).toContain(
      `ok   project ${HISTORY.payments} database access history: readable (Project Cluster Log Viewer): cluster payments-main answered: its latest login attempt was at ${latest}\n`,
    );
    // Two small calls: the clusters, then the shared one skipped and the dedicated one read once.
    expect(history.counters.byPath).toMatchObject({
      'GET /groups/{groupId}/clusters': 1,
      'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}': 1,
    });
  });

  it('fails with the role to grant where Atlas refuses the access history', async () => {
    const config = await historyConfig([HISTORY.reports]);

    const text = await runCheck(['--config', config], { env: envOf(LOG_VIEWER_KEY) });
    const json = await runCheck(['--config', config, '--json'], { env: envOf(LOG_VIEWER_KEY) });

    // A refused role exits 3, as run and fetch do; the project's events are readable.
    expect(text.code).toBe(3);
    // The version events answered with, whichever call answered last.
    expect(text.stdout).toMatch(/^ok {3}atlas-v2 API at \S+: answers with API version 2023-01-01$/m);
    expect(text.stdout).toContain(
      `FAIL project ${HISTORY.reports} database access history: refused (403 USER_UNAUTHORIZED): give the API key or service account Project Cluster Log Viewer (or Project Database Access Admin) on project ${HISTORY.reports}: Project Read Only and Organization Read Only do not include it; or turn sources.accessHistory off\n`,
    );
    expect(text.stdout).toMatch(new RegExp(`^ok {3}project ${HISTORY.reports} project events: `, 'm'));
    expect(text.stdout).not.toContain(LOG_VIEWER_KEY.privateKey);
    const report = JSON.parse(json.stdout) as {
      ready: boolean;
      checks: Array<JsonCheck & Record<string, unknown>>;
    };
    expect(report.ready).toBe(false);
    expect(report.checks.find((check) => check.subject.endsWith('database access history'))).toMatchObject({
      check: 'access',
      status: 'fail',
      role: 'Project Cluster Log Viewer',
      call: 'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}',
      httpStatus: 403,
      errorCode: 'ATLAS_FORBIDDEN',
    });
  });

  it('warns, naming its clusters, where a project has no dedicated cluster to read', async () => {
    const config = await historyConfig([HISTORY.tools]);
    history.resetCounters();

    const result = await runCheck(['--config', config], { env: envOf(LOG_VIEWER_KEY) });

    // A warning, not a failure: there is nothing to read yet, and the poller skips these clusters.
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `warn project ${HISTORY.tools} database access history: no dedicated cluster to read: tools-free (shared tier M0), tools-flex (Flex); Atlas keeps database access history for dedicated clusters (M10 and up) only, and the poller skips the others; the role is not verified in this project until it has one\n`,
    );
    expect(result.stdout).toMatch(/\nready: \d+ ok, 1 warning, 0 failed, 0 skipped\n$/);
    expect(history.counters.byPath['GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}']).toBe(
      undefined,
    );
  });

  it('checks every project polled, those --all-projects finds included, each with its connection in --json', async () => {
    const config = join(folder, 'connections.yaml');
    await writeFile(
      config,
      [
        'connections:',
        '  - name: history',
        `    baseUrl: ${history.baseUrl}`,
        '    sources:',
        `      orgIds: [${HISTORY.org}]`,
        '      allProjectsOfOrgs: true',
        '      accessHistory: true',
        '',
      ].join('\n'),
    );

    const result = await runCheck(['--config', config, '--json'], {
      env: {
        MONGODB_ATLAS_PUBLIC_API_KEY_HISTORY: LOG_VIEWER_KEY.publicKey,
        MONGODB_ATLAS_PRIVATE_API_KEY_HISTORY: LOG_VIEWER_KEY.privateKey,
      },
    });

    const checks = (JSON.parse(result.stdout) as { checks: Array<JsonCheck & { connection?: string }> })
      .checks;
    const accessChecks = checks.filter((check) => check.subject.endsWith(' database access history'));
    expect(
      accessChecks.map((check) => [check.connection, check.subject.split(' ')[1], check.status]).sort(),
    ).toEqual(
      [
        ['history', HISTORY.payments, 'ok'],
        ['history', HISTORY.reports, 'fail'],
        ['history', HISTORY.tools, 'warn'],
      ].sort(),
    );
    expect(result.code).toBe(3);
  });

  it('reads no access history unless the sources opt in', async () => {
    const config = await historyConfig([HISTORY.payments, HISTORY.reports], false);
    history.resetCounters();

    const result = await runCheck(['--config', config], { env: envOf(LOG_VIEWER_KEY) });

    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toContain('database access history');
    expect(history.counters.byPath['GET /groups/{groupId}/clusters']).toBe(undefined);
  });

  it('names the roles that cover access history when it warns of an owner key', async () => {
    const config = join(folder, 'owner.yaml');
    await writeFile(
      config,
      [
        'atlas:',
        `  baseUrl: ${history.baseUrl}`,
        'sources:',
        `  orgIds: [${HISTORY.org}]`,
        `  projectIds: [${HISTORY.payments}]`,
        '  accessHistory: true',
        '',
      ].join('\n'),
    );

    const result = await runCheck(['--config', config], { env: envOf(HISTORY_OWNER_KEY) });

    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(
      `warn the API key's privileges on org ${HISTORY.org}: it holds Organization Owner, more than the poller needs (Organization Read Only and, for the access history, Project Cluster Log Viewer on each project cover every call it makes); `,
    );
    expect(result.stdout).toContain(
      'give the poller a key with Organization Read Only and, for the access history, Project Cluster Log Viewer on each project\n',
    );
  });
});

describe('runPreflight', () => {
  it('reads a 401 on the access history, after the credentials were accepted, as a role Atlas refused', async () => {
    // Prepare: an Atlas of its own that answers the role's refusal with 401, as Atlas does on some routes.
    const project = HISTORY.reports;
    const page = (results: unknown[]) => ({ body: { results, totalCount: results.length, links: [] } });
    const server = await startDigestServer({
      username: LOG_VIEWER_KEY.publicKey,
      password: LOG_VIEWER_KEY.privateKey,
      route: ({ url }) => {
        const path = url.pathname.replace(`/api/atlas/v2/groups/${project}`, '');
        if (path === '/events' || path === '/accessList') return page([]);
        if (path === '') return { body: { id: project, name: 'reports', orgId: HISTORY.org } };
        if (path === '/clusters') {
          return page([
            { name: 'reports-main', providerSettings: { providerName: 'GCP', instanceSizeName: 'M10' } },
          ]);
        }
        return {
          status: 401,
          body: {
            error: 401,
            errorCode: 'USER_UNAUTHORIZED',
            detail: 'Current user is not authorized to perform this action.',
            reason: 'Unauthorized',
          },
        };
      },
    });
    const client = new AtlasClient({
      baseUrl: server.baseUrl,
      credentials: { kind: 'digest', ...LOG_VIEWER_KEY },
    });
    try {
      // Act
      const results = await runPreflight({
        client,
        config: pollerConfigSchema.parse({
          atlas: { baseUrl: server.baseUrl },
          sources: { projectIds: [project], accessHistory: true },
        }),
        credentialsKind: 'digest',
        signal: new AbortController().signal,
      });

      // Assess
      expect(results.find((result) => result.check === 'credentials')?.status).toBe('ok');
      expect(results.find((result) => result.subject.endsWith('database access history'))).toMatchObject({
        status: 'fail',
        httpStatus: 401,
        message: `refused (401 USER_UNAUTHORIZED): give the API key or service account Project Cluster Log Viewer (or Project Database Access Admin) on project ${project}: Project Read Only and Organization Read Only do not include it; or turn sources.accessHistory off`,
      });
      expect(server.requests.at(-1)?.url.pathname).toBe(
        `/api/atlas/v2/groups/${project}/dbAccessHistory/clusters/reports-main`,
      );
      // One line of the last hour.
      const query = server.requests.at(-1)?.url.searchParams;
      expect(query?.get('nLogs')).toBe('1');
      expect(Number(query?.get('end')) - Number(query?.get('start'))).toBe(3_600_000);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('warns of a clock ahead of Atlas by more than the lag', async () => {
    const client = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...OWNER_KEY },
      clock: { now: () => systemClock.now() + 120_000, sleep: systemClock.sleep },
    });
    try {
      const results = await runPreflight({
        client,
        config: pollerConfigSchema.parse({ atlas: { baseUrl: sim.baseUrl }, sources: { orgIds: [ORG] } }),
        credentialsKind: 'digest',
        signal: new AbortController().signal,
      });

      const clock = results.find((result) => result.check === 'clock');
      expect(clock?.status).toBe('warn');
      // The Date header has whole seconds: the skew is 120 s give or take one.
      expect(Math.abs((clock?.skewMs ?? 0) - 120_000)).toBeLessThanOrEqual(1_000);
      expect(clock?.message).toMatch(
        /^this machine's clock is 1(19|20|21) s ahead of Atlas, more than the 30 s lag/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('refused credentials', () => {
  it('exit 3 from check, fetch and run alike', async () => {
    const env = envOf({ publicKey: OWNER_KEY.publicKey, privateKey: 'fake-wrong-private-key' });
    const folder = await mkdtemp(join(tmpdir(), 'check-refused-'));
    const state = join(folder, 'state.json');

    const [check, fetch, run] = await Promise.all([
      runCli(['check', '--base-url', sim.baseUrl, '--org', ORG], env),
      runCli(['fetch', 'events', '--base-url', sim.baseUrl, '--org', ORG], env),
      runCli(['run', '--once', '--base-url', sim.baseUrl, '--org', ORG, '--state', `file:${state}`], env),
    ]).finally(() => rm(folder, { recursive: true, force: true }));

    expect([check.status, fetch.status, run.status]).toEqual([3, 3, 3]);
    for (const result of [check, fetch, run])
      expect(result.stdout + result.stderr).not.toContain('fake-wrong');
  });
});
