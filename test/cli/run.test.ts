import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerRunCommand } from '../../cli/commands/run.js';
import { loadRuleLayers } from '../../cli/rule-layers.js';
import { createStateTable } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { alertingEvent, ids, pollerKey, pollSeed } from '../poll/support/poll-fixture.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { runCli } from './cli-runner.js';
import {
  CapturedOutput,
  expectedAlertFingerprints,
  fingerprintOf,
  ManualStopSignals,
  type RunPollCommandOptions,
  readOutbox,
  runPollCommand as runCommand,
  writeEstateConfig,
} from './poll-command-harness.js';

const BIN = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
const EXAMPLE_CONFIG = fileURLToPath(new URL('../../cli/examples/run.example.yaml', import.meta.url));
const DEPLOY_EXAMPLE = fileURLToPath(new URL('../../infra/examples/config.example.yaml', import.meta.url));
/** The README's worked layer; its backups.yaml holds one rule of its own. */
const EXAMPLE_LAYER = fileURLToPath(new URL('../../examples/my-rules/', import.meta.url));
const CREDENTIALS = { publicKey: 'runtests', privateKey: 'fake-private-key-for-tests' } as const;
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: CREDENTIALS.publicKey,
  MONGODB_ATLAS_PRIVATE_API_KEY: CREDENTIALS.privateKey,
};
/** In the default seed: the organization Acme Labs and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

function runPollCommand(
  args: readonly string[],
  options: Omit<RunPollCommandOptions, 'register'>,
): ReturnType<typeof runCommand> {
  return runCommand(args, { ...options, register: registerRunCommand });
}

let sim: AtlasSimulator;
let directory: string;
/** What the built-in rules raise on every event of ORG and PROJECT, worked out without the tick. */
let expectedFingerprints: string[];
/** How many rules the built-in pack holds. */
let expectedRuleCount: number;
let expectedDisabled: number;

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS });
  directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-run-test-'));
  expectedFingerprints = await expectedAlertFingerprints({
    baseUrl: sim.baseUrl,
    credentials: CREDENTIALS,
    orgIds: [ORG],
    projectIds: [PROJECT],
  });
  const builtin = await loadRuleLayers([]);
  expectedRuleCount = builtin.rules.length;
  expectedDisabled = builtin.rules.filter((rule) => rule.spec.enabled === false).length;
});

afterAll(async () => {
  await sim?.stop();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

/** A fresh folder for one test's state file and outbox. */
async function workspace(): Promise<string> {
  return mkdtemp(join(directory, 'case-'));
}

function pollArgs(folder: string, ...extra: string[]): string[] {
  return [
    'run',
    '--base-url',
    sim.baseUrl,
    '--org',
    ORG,
    '--project',
    PROJECT,
    '--state',
    `file:${join(folder, 'state.json')}`,
    ...extra,
  ];
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('atlas-audit-alerts run', () => {
  it('delivers each expected alert once to the outbox, and a second run adds nothing', async () => {
    const folder = await workspace();
    const outbox = join(folder, 'outbox.jsonl');
    const args = pollArgs(folder, '--once', '--notify', `outbox:${outbox}`);

    const first = await runPollCommand(args, { env: ENV, cwd: folder });
    const afterFirst = (await readOutbox(outbox)).map(fingerprintOf).sort();
    const second = await runPollCommand(args, { env: ENV, cwd: folder });
    const afterSecond = (await readOutbox(outbox)).map(fingerprintOf).sort();

    expect(expectedFingerprints.length).toBeGreaterThan(3);
    expect(first.code).toBe(0);
    expect(afterFirst).toEqual(expectedFingerprints);
    expect(second.code).toBe(0);
    expect(afterSecond).toEqual(expectedFingerprints);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(
      new RegExp(
        `^Polling 1 org and 1 project at ${sim.baseUrl} \\(atlas-v2\\); rules builtin \\(\\d+ rules, ${expectedDisabled} disabled\\); state file:.+; alerts to outbox:.+\\n`,
      ),
    );
    expect(first.stderr).toMatch(
      new RegExp(
        `\\ntick \\d\\d:\\d\\d:\\d\\dZ: 2 sources \\(2 ok\\) · \\d+ events \\(\\d+ new\\) · ${expectedFingerprints.length} alerts: `,
      ),
    );
    expect(second.stderr).toMatch(/· 0 alerts · /);
  });

  it('prints alerts on stdout as the email and Slack would show them, and the report on stderr', async () => {
    const folder = await workspace();

    const result = await runPollCommand(pollArgs(folder), { env: ENV, cwd: folder });

    expect(result.code).toBe(0);
    expect(result.stdout.match(/^Subject: \[[A-Z]+\] /gm)).toHaveLength(expectedFingerprints.length);
    expect(result.stdout).toContain('┌─ Slack (AWS Chatbot) ');
    expect(result.stderr).toMatch(/\ntick .+ alerts: /);
  });

  it('colours alerts on a terminal, and not when NO_COLOR is set', async () => {
    const coloured = await runPollCommand(pollArgs(await workspace()), {
      env: ENV,
      cwd: directory,
      stdout: new CapturedOutput({ isTTY: true }),
    });
    const plain = await runPollCommand(pollArgs(await workspace()), {
      env: { ...ENV, NO_COLOR: '1' },
      cwd: directory,
      stdout: new CapturedOutput({ isTTY: true }),
    });

    expect(coloured.stdout).toContain('\u001b[');
    expect(plain.stdout).toMatch(/^Subject: /m);
    expect(plain.stdout).not.toContain('\u001b');
  });

  it('prints the warnings of its rules before the run', async () => {
    const folder = await workspace();
    const rules = join(folder, 'rules.yaml');
    await writeFile(
      rules,
      [
        'rules:',
        '  - id: project-deleted',
        '    name: Project deleted',
        '    severity: high',
        '    match: { eventTypeName: GROUP_DELETD }',
        "    title: 'Project deleted'",
        '',
      ].join('\n'),
    );

    const result = await runPollCommand(pollArgs(folder, '--once', '--rules', rules), {
      env: ENV,
      cwd: folder,
    });

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/rules\.yaml:2:9: warning: rule "project-deleted" has no tests/);
    expect(result.stderr).toMatch(
      /rules\.yaml:5:29: warning: "GROUP_DELETD" is not a known Atlas event type, so no event will match it \[UNKNOWN_EVENT_TYPE\]\n[\s\S]*= hint: did you mean "GROUP_DELETED"\?\nPolling 1 org and 1 project/,
    );
  });

  it('names the rule layers in its header, and warns when they leave the built-in pack out', async () => {
    const folder = await workspace();
    const rules = join(folder, 'mine');
    await mkdir(rules);
    await copyFile(join(EXAMPLE_LAYER, 'backups.yaml'), join(rules, 'backups.yaml'));

    const alone = await runPollCommand(pollArgs(folder, '--once', '--rules', rules), {
      env: ENV,
      cwd: folder,
    });
    const layered = await runPollCommand(pollArgs(folder, '--once', '--rules', 'builtin', rules), {
      env: ENV,
      cwd: folder,
    });

    expect(alone.code).toBe(0);
    expect(alone.stderr).toContain(
      `${rules}: warning: builtin is not among the rule layers (${rules}), so the ${expectedRuleCount} rules of the built-in pack are off and only the 1 rule of ${rules} runs; to tune the built-in pack, give builtin first: --rules builtin ${rules}, or rules.directories: [builtin, ${rules}] [LAYER_ORDER]\n`,
    );
    expect(alone.stderr).toContain(`(atlas-v2); rules ${rules} (1 rule); state file:`);
    expect(layered.stderr).not.toContain('LAYER_ORDER');
    expect(layered.stderr).toContain(
      `(atlas-v2); rules builtin, ${rules} (${expectedRuleCount + 1} rules, ${expectedDisabled} disabled); state file:`,
    );
  });

  it('takes sources and local settings from --config, relative to the file, with flags on top', async () => {
    const folder = await workspace();
    const config = join(folder, 'poller.yaml');
    await writeFile(
      config,
      [
        'atlas:',
        `  baseUrl: ${sim.baseUrl}`,
        '  flavor: atlas-v1',
        'sources:',
        `  orgIds: [${ORG}]`,
        `  projectIds: [${PROJECT}]`,
        'timing:',
        '  overlapSeconds: 600',
        'local:',
        '  state: file:state/poller.json',
        '  notify: outbox:alerts.jsonl',
        '',
      ].join('\n'),
    );

    const result = await runPollCommand(['run', '--config', config, '--flavor', 'atlas-v2'], {
      env: ENV,
      cwd: directory,
    });
    const state = JSON.parse(await readFile(join(folder, 'state', 'poller.json'), 'utf8')) as unknown;

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `at ${sim.baseUrl} (atlas-v2); rules builtin (${expectedRuleCount} rules, ${expectedDisabled} disabled); state file:${join(folder, 'state', 'poller.json')}`,
    );
    expect((await readOutbox(join(folder, 'alerts.jsonl'))).map(fingerprintOf).sort()).toEqual(
      expectedFingerprints,
    );
    expect(state).toMatchObject({
      sources: expect.arrayContaining([expect.objectContaining({ source: `org:${ORG}` })]),
    });
  });

  it('reads the deploy configuration cdk deploy reads: its sources, and its rule layers from where it runs', async () => {
    const folder = await workspace();
    const config = join(folder, 'prod.yaml');
    await writeFile(
      config,
      (await readFile(DEPLOY_EXAMPLE, 'utf8'))
        .replace('5f4e3d2c1b0a998877665544', ORG)
        .replace('    - builtin\n    # - my-rules', '    - builtin\n    - my-rules'),
    );
    await cp(EXAMPLE_LAYER, join(folder, 'my-rules'), { recursive: true });
    const outbox = join(folder, 'alerts.jsonl');

    const result = await runPollCommand(
      [
        'run',
        '--config',
        config,
        '--base-url',
        sim.baseUrl,
        '--state',
        `file:${join(folder, 'state.json')}`,
        '--notify',
        `outbox:${outbox}`,
      ],
      { env: ENV, cwd: folder },
    );

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Polling 1 org (and all its projects) at ${sim.baseUrl} (atlas-v2); rules builtin, ${join(folder, 'my-rules')} (${expectedRuleCount + 1} rules, ${expectedDisabled + 1} disabled);`,
    );
    expect((await readOutbox(outbox)).length).toBeGreaterThan(0);
  });

  it('refuses a deploy configuration cdk synth would refuse, naming each setting at its line and column', async () => {
    const folder = await workspace();
    const config = join(folder, 'prod.yaml');
    await writeFile(
      config,
      'stackName: Alerts\nalerts:\n  emails: [not-an-address]\nsources:\n  orgIds: [acme]\n',
    );

    const result = await runPollCommand(['run', '--config', config], { env: ENV, cwd: folder });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `atlas-audit-alerts: config file ${config} is a deploy configuration that cdk synth would refuse (2 settings): ${config}:5:12: sources.orgIds[0]: must be a 24-character hexadecimal Atlas id, such as 5f4e3d2c1b0a998877665544; ${config}:3:12: alerts.emails[0]: must be an email address\n`,
    );
  });

  it('refuses a source given to two connections of a run configuration, at the second place it is written', async () => {
    const folder = await workspace();
    const config = join(folder, 'estate.yaml');
    await writeFile(
      config,
      [
        'connections:',
        '  - name: production',
        `    sources: { orgIds: [${ORG}] }`,
        '  - name: development',
        '    sources:',
        '      orgIds:',
        `        - ${ORG}`,
        '',
      ].join('\n'),
    );

    const result = await runPollCommand(['run', '--config', config], { env: ENV, cwd: folder });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `atlas-audit-alerts: config file ${config} is not valid: ${config}:7:11: connections.1.sources.orgIds.0: organization ${ORG} is polled by connection "production" already: give each organization and project to one connection, whose credentials read it\n`,
    );
  });

  it('shows a YAML mistake of its config file at its line, with a caret and what to write', async () => {
    const folder = await workspace();
    const config = join(folder, 'poller.yaml');
    await writeFile(config, `sources:\n  orgIds: [${ORG}]\n   allProjectsOfOrgs: true\n`);

    const result = await runPollCommand(['run', '--config', config], { env: ENV, cwd: folder });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        `atlas-audit-alerts: config file ${config} is not valid YAML:`,
        `${config}:3:4: this line is indented 3 spaces, deeper than the key above it, which has its value already, so nothing can nest under it: line it up with that key (2 spaces), or give it a key of its own to nest under [YAML_SYNTAX]`,
        ' 3 |    allProjectsOfOrgs: true',
        '   |    ^^^^^^^^^^^^^^^^^',
        '',
      ].join('\n'),
    );
  });

  it('runs the example config file, pointed at the simulator by flags, once with --once', async () => {
    const folder = await workspace();
    const config = join(folder, 'run.example.yaml');
    await copyFile(EXAMPLE_CONFIG, config);

    const result = await runPollCommand(
      ['run', '--config', config, '--once', '--base-url', sim.baseUrl, '--org', ORG],
      { env: ENV, cwd: directory },
    );

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `Polling 1 org (and all its projects) at ${sim.baseUrl} (atlas-v2); rules builtin (${expectedRuleCount} rules, ${expectedDisabled} disabled); state file:${join(folder, '.atlas-audit-alerts', 'acme.json')}; alerts to outbox:${join(folder, 'alerts.jsonl')}\n`,
    );
    expect((await readOutbox(join(folder, 'alerts.jsonl'))).map(fingerprintOf).sort()).toEqual(
      expectedFingerprints,
    );
  });

  it('polls every DURATION until a signal, letting the tick in progress finish', async () => {
    const folder = await workspace();
    const signals = new ManualStopSignals();
    const stderr = new CapturedOutput();
    const ticks = (): number => stderr.text.match(/^tick /gm)?.length ?? 0;

    const running = runPollCommand(
      pollArgs(folder, '--every', '1s', '--notify', `outbox:${join(folder, 'o.jsonl')}`),
      {
        env: ENV,
        cwd: folder,
        signals,
        stderr,
      },
    );
    await waitFor(() => ticks() >= 2, 'two ticks');
    signals.send('SIGINT');
    const result = await running;

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /; a tick every 1s until Ctrl\+C; a tick may take up to 40s \(at least twice timing\.deadlineMarginSeconds\)\n/,
    );
    expect(result.stderr).toMatch(/\nSIGINT: stopping\n$/);
    expect(signals.listening).toBe(false);
  });

  it('keeps state in a DynamoDB table with dynamodb:TABLE', async () => {
    const endpoint = await dynamoDbLocalEndpoint();
    const tableName = `run-${randomUUID()}`;
    const client = createDynamoDbLocalClient(endpoint);
    await createStateTable({ client, tableName });
    client.destroy();
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoint);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'fakeAccessKeyForTests');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret-access-key-for-tests');
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
    const folder = await workspace();
    const outbox = join(folder, 'outbox.jsonl');
    const args = [...pollArgs(folder, '--notify', `outbox:${outbox}`), '--state', `dynamodb:${tableName}`];

    try {
      const first = await runPollCommand(args, { env: ENV, cwd: folder });
      const second = await runPollCommand(args, { env: ENV, cwd: folder });

      expect(first.code).toBe(0);
      expect(second.code).toBe(0);
      expect(first.stderr).toContain(`state dynamodb:${tableName};`);
      expect((await readOutbox(outbox)).map(fingerprintOf).sort()).toEqual(expectedFingerprints);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each([
    [['--every', '5x'], /option '--every <duration>' argument '5x' is invalid\. use a duration such as 30s/],
    [['--org', 'acme'], /"acme" is not an Atlas id: --org takes 24-character hexadecimal ids/],
    [['--once', '--every', '5m'], /--once and --every exclude each other/],
    [
      ['--state', 'redis:cache'],
      /--state "redis:cache" is not a state store: use file:PATH .* or dynamodb:TABLE/,
    ],
    [
      ['--notify', 'slack'],
      /--notify "slack" is not a notifier: use console, outbox:PATH .* or sns:TOPIC_ARN/,
    ],
    [
      ['--notify', 'sns:arn:aws:sns:eu-west-1:alerts'],
      /--notify: "arn:aws:sns:eu-west-1:alerts" is not an SNS topic ARN/,
    ],
    [['--overlap', '2d'], /the poll settings are not valid: --overlap: must be at most 86400 seconds$/m],
    [['--concurrency', '0'], /argument '0' is invalid\. use a whole number from 1 to 32/],
    [
      ['--all-projects', '--project', PROJECT],
      /--all-projects polls the projects of each --org: give at least one --org ID/,
    ],
    [['--colour'], /unknown option '--colour'/],
  ])('exits 2 for %j, saying what is wrong', async (flags, message) => {
    const folder = await workspace();
    const sources = flags.includes('--org') || flags.includes('--all-projects') ? [] : ['--org', ORG];

    const result = await runPollCommand(
      ['run', '--base-url', sim.baseUrl, '--state', `file:${join(folder, 's.json')}`, ...sources, ...flags],
      { env: ENV, cwd: folder },
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('polls each connection of its config file with the credentials named after it, and names the connection of a failed source', async () => {
    // Prepare: an Ops Manager beside the Atlas of the other tests, with its own key and ids.
    const opsManager = await startSimulator({ seed: pollSeed() });
    try {
      const folder = await workspace();
      const config = join(folder, 'estate.yaml');
      await writeEstateConfig(config, {
        atlasBaseUrl: sim.baseUrl,
        orgId: ORG,
        opsManagerBaseUrl: opsManager.baseUrl,
        projectIds: [ids.project, ids.foreignProject],
        local: ['notify: outbox:alerts.jsonl', 'state: file:state.json'],
      });
      const opened = opsManager.addEvent({ groupId: ids.project }, alertingEvent(Date.now() - 10 * 60_000));
      const env = {
        ...ENV,
        MONGODB_ATLAS_PUBLIC_API_KEY_DATA_CENTRE: pollerKey.publicKey,
        MONGODB_ATLAS_PRIVATE_API_KEY_DATA_CENTRE: pollerKey.privateKey,
      };

      // Act
      const result = await runPollCommand(['run', '--config', config, '--once'], { env, cwd: folder });
      const missing = await runPollCommand(['run', '--config', config, '--once'], { env: ENV, cwd: folder });

      // Assess
      const alerts = await readOutbox(join(folder, 'alerts.jsonl'));
      expect(result.stderr).toContain(
        `Polling 1 org at ${sim.baseUrl} (atlas-v2) (connection default), 2 projects at ${opsManager.baseUrl} (ops-manager) (connection data-centre);`,
      );
      const orgsAlerted = alerts.map(
        (alert) => (alert.MessageAttributes as Record<string, { StringValue?: string }>).orgId?.StringValue,
      );
      expect(new Set(orgsAlerted)).toEqual(new Set([ORG, ids.org]));
      expect(alerts.filter((alert) => String(alert.Message).includes(String(opened.id)))).toHaveLength(1);
      // The key of the data centre reads its own organization's project, not the other one.
      expect(result.stderr).toMatch(
        new RegExp(`! project:${ids.foreignProject} \\(connection data-centre\\) failed: 403 `),
      );
      expect(result.code).toBe(3);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        'no Atlas credentials for connection "data-centre": set MONGODB_ATLAS_PUBLIC_API_KEY_DATA_CENTRE and MONGODB_ATLAS_PRIVATE_API_KEY_DATA_CENTRE (an API key), or MONGODB_ATLAS_CLIENT_ID_DATA_CENTRE and MONGODB_ATLAS_CLIENT_SECRET_DATA_CENTRE (a service account)',
      );
    } finally {
      await opsManager.stop();
    }
  });

  it('exits 2 with nothing to poll, or without credentials', async () => {
    const folder = await workspace();
    const state = `file:${join(folder, 's.json')}`;

    const noSources = await runPollCommand(['run', '--state', state], { env: ENV, cwd: folder });
    const noCredentials = await runPollCommand(['run', '--org', ORG, '--state', state], {
      env: {},
      cwd: folder,
    });

    expect(noSources.code).toBe(2);
    expect(noSources.stderr).toMatch(/nothing to poll: give --org ID and\/or --project ID/);
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toMatch(/no Atlas credentials: set MONGODB_ATLAS_PUBLIC_API_KEY/);
  });

  it('exits 3 when Atlas refuses the key, and never prints a private key', async () => {
    const folder = await workspace();
    const wrongKey = 'fake-wrong-private-key-for-tests';

    const refused = await runPollCommand(pollArgs(folder), {
      env: { ...ENV, MONGODB_ATLAS_PRIVATE_API_KEY: wrongKey },
      cwd: folder,
    });
    const accepted = await runPollCommand(pollArgs(folder, '--verbose'), { env: ENV, cwd: folder });

    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/\n {2}! org:64b5c9e2f1a3d40012ab3c02 failed: 401 /);
    for (const output of [refused.stdout, refused.stderr, accepted.stdout, accepted.stderr]) {
      expect(output).not.toContain(wrongKey);
      expect(output).not.toContain(CREDENTIALS.privateKey);
    }
  });
});

/**
 * Each test of this block starts two or three CLI processes one after another, each paying the
 * TypeScript load at start (seconds on a busy 2-core machine): the limit guards against a hang, not
 * for speed.
 */
const PROCESSES_TIMEOUT_MS = 120_000;

describe('atlas-audit-alerts run, as processes sharing a state file', () => {
  let holder: ChildProcess | undefined;

  afterAll(() => {
    holder?.kill('SIGKILL');
  });

  /** A `run` process of the CLI with the test's credentials, its stderr collected as it comes. */
  const spawnRun = (args: readonly string[]) => {
    const child = spawn(process.execPath, [BIN, 'run', ...args], {
      env: { ...process.env, ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stderr: '' };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output.stderr += chunk;
    });
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    return { child, output, exit };
  };

  it(
    'refuses a second run while the first holds the file, and the first stops cleanly on SIGTERM',
    async () => {
      const folder = await workspace();
      const state = join(folder, 'state.json');
      const args = [
        '--base-url',
        sim.baseUrl,
        '--org',
        ORG,
        '--state',
        `file:${state}`,
        '--notify',
        `outbox:${join(folder, 'o.jsonl')}`,
      ];
      const { child: first, output, exit: firstExit } = spawnRun(['--every', '1h', ...args]);
      holder = first;
      await waitFor(() => /\ntick /.test(output.stderr), 'the first run to finish a tick', 30_000);

      const second = await runCli(['run', '--once', ...args], ENV);
      first.kill('SIGTERM');
      const firstStatus = await firstExit;

      expect(second.status).toBe(1);
      expect(second.stderr).toBe(
        `atlas-audit-alerts: state file ${state} is in use by process ${first.pid}: two runs cannot share a state file. Wait for it to finish, or give this run another state file; if that process is gone, delete ${state}.lock\n`,
      );
      expect(firstStatus).toBe(0);
      expect(output.stderr).toMatch(/\nSIGTERM: stopping\n$/);
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'frees its leases and alert claims when the reader closes the pipe early, as run --once | head -1',
    async () => {
      const folder = await workspace();
      const state = join(folder, 'state.json');
      const args = [
        '--base-url',
        sim.baseUrl,
        '--org',
        ORG,
        '--project',
        PROJECT,
        '--state',
        `file:${state}`,
      ];
      const { child: cut, output, exit } = spawnRun(['--once', ...args]);
      // The reader takes the first chunk of alerts and goes, as head does: every alert after it, far
      // more than a pipe holds, meets a closed pipe.
      cut.stdout.once('data', () => cut.stdout.destroy());
      const status = await exit;

      const document = JSON.parse(await readFile(state, 'utf8')) as {
        sources: Array<{ source: string; lease?: unknown }>;
        alerts: Array<{ status: string }>;
      };
      const sent = document.alerts.filter((alert) => alert.status === 'SENT').length;
      const outbox = join(folder, 'outbox.jsonl');
      const next = await runPollCommand(pollArgs(folder, '--notify', `outbox:${outbox}`), {
        env: ENV,
        cwd: folder,
      });

      expect(document.sources.filter((source) => source.lease !== undefined)).toEqual([]);
      expect(document.alerts.filter((alert) => alert.status === 'IN_PROGRESS')).toEqual([]);
      expect(status).toBe(0);
      expect(output.stderr).toContain('output closed: stopping now; unfinished sources keep their cursors');
      expect(sent).toBeLessThan(expectedFingerprints.length);
      // The next run delivers at once every alert the first could not print: none waits for a claim to lapse.
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toContain('being published by another worker');
      expect((await readOutbox(outbox)).length).toBe(expectedFingerprints.length - sent);
    },
    PROCESSES_TIMEOUT_MS,
  );

  describe('against a server that trickles its answers', () => {
    let trickle: Server;
    let trickleUrl: string;

    beforeAll(async () => {
      // Headers at once, then one byte every 100 ms, forever.
      trickle = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const drip = setInterval(() => response.write(' '), 100);
        response.on('close', () => clearInterval(drip));
      });
      await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
      trickleUrl = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      trickle.closeAllConnections();
      await new Promise<void>((resolve) => trickle.close(() => resolve()));
    });

    /** A config with a one-second deadline margin, so that a tick of a few seconds can poll. */
    async function trickleArgs(folder: string, ...extra: string[]): Promise<string[]> {
      const config = join(folder, 'poller.yaml');
      await writeFile(config, 'timing:\n  deadlineMarginSeconds: 1\n');
      return [
        'run',
        '--config',
        config,
        '--base-url',
        trickleUrl,
        '--flavor',
        'ops-manager',
        '--org',
        ORG,
        '--state',
        `file:${join(folder, 'state.json')}`,
        '--notify',
        `outbox:${join(folder, 'o.jsonl')}`,
        ...extra,
      ];
    }

    it('ends a single tick at its --tick-timeout, the source cut short and its cursor safe', async () => {
      // Prepare
      const folder = await workspace();

      // Act
      const result = await runPollCommand(await trickleArgs(folder, '--once', '--tick-timeout', '3s'), {
        env: ENV,
        cwd: folder,
      });

      // Assess
      expect(result.stderr).toMatch(/stopped early \(deadline\): the rest is read on the next tick/);
      expect(result.code).toBe(0);
    }, 30_000);

    it('keeps ticking every DURATION, each tick ended by its deadline, until a signal', async () => {
      // Prepare
      const folder = await workspace();
      const signals = new ManualStopSignals();
      const stderr = new CapturedOutput();
      const ticks = (): number => stderr.text.match(/^tick /gm)?.length ?? 0;

      // Act
      const running = runPollCommand(await trickleArgs(folder, '--every', '3s'), {
        env: ENV,
        cwd: folder,
        signals,
        stderr,
      });
      await waitFor(() => ticks() >= 2, 'two ticks', 25_000);
      signals.send('SIGINT');
      const result = await running;

      // Assess
      expect(result.code).toBe(0);
      expect(ticks()).toBeGreaterThanOrEqual(2);
    }, 40_000);

    it('stops a tick in progress within the grace of a SIGTERM', async () => {
      // Prepare: a tick that would wait for the trickling server for ten minutes.
      const folder = await workspace();
      const signals = new ManualStopSignals();
      const stderr = new CapturedOutput();

      // Act
      const running = runPollCommand(await trickleArgs(folder, '--every', '10m'), {
        env: ENV,
        cwd: folder,
        signals,
        stderr,
      });
      await waitFor(() => /a tick every 10m/.test(stderr.text), 'the run to start');
      signals.send('SIGTERM');
      const result = await running;

      // Assess
      expect(result.stderr).toMatch(/SIGTERM: finishing the current tick for up to 5 s, then stopping\n/);
      expect(result.stderr).toMatch(/SIGTERM: stopping now; unfinished sources keep their cursors/);
    }, 30_000);
  });
});
