import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRunCommand } from '../../cli/commands/run.js';
import { registerStatusCommand } from '../../cli/commands/status.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ManualClock } from '../state/manual-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { runCli } from './cli-runner.js';
import { runPollCommand } from './poll-command-harness.js';

/** In the default seed: a key with Project Read Only on PROJECT_OK only (throwaway values). */
const ENV = {
  MONGODB_ATLAS_PUBLIC_API_KEY: 'mvpluqwa',
  MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-analytics',
};
const PROJECT_OK = '64b5ca17f1a3d40012ab3d13';
const PROJECT_REFUSED = '64b5ca17f1a3d40012ab3d11';
const MINUTE = 60_000;

interface StatusJson {
  now: string;
  sources: Array<{
    source: string;
    connection: string;
    watermark: string | null;
    lagSeconds: number | null;
    lastPoll: string | null;
    alertsLastDay: number;
    lease: { owner: string; expiresAt: string } | null;
    lastError: { at: string; code: string; message: string } | null;
  }>;
}

let sim: AtlasSimulator;
let directory: string;

beforeAll(async () => {
  sim = await startSimulator();
  directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-status-test-'));
});

afterAll(async () => {
  await sim.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('status with a state file', () => {
  it('shows the source a run failed on with its error, and the one it polled with its alerts', async () => {
    // Prepare: one tick over a project the key reads and one it may not.
    const state = `file:${join(directory, 'state.json')}`;
    const run = await runPollCommand(
      [
        'run',
        '--base-url',
        sim.baseUrl,
        '--project',
        PROJECT_OK,
        '--project',
        PROJECT_REFUSED,
        '--state',
        state,
        '--lookback',
        '30d',
      ],
      { register: registerRunCommand, env: ENV, cwd: directory },
    );
    expect(run.code).not.toBe(0);
    const alertsPrinted = (run.stdout.match(/^Subject: /gm) ?? []).length;

    // Act
    const status = await runPollCommand(['status', '--state', state, '--json'], {
      register: registerStatusCommand,
      env: {},
      cwd: directory,
    });

    // Assess
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as StatusJson;
    const bySource = new Map(report.sources.map((source) => [source.source, source]));
    const refused = bySource.get(`project:${PROJECT_REFUSED}`);
    expect(refused?.lastError?.code).toBe('USER_UNAUTHORIZED');
    expect(refused?.lastError?.message).toContain('403');
    expect(refused?.lease).toBeNull();
    const polled = bySource.get(`project:${PROJECT_OK}`);
    expect(polled?.lastError).toBeNull();
    expect(polled?.watermark).not.toBeNull();
    expect(polled?.lastPoll).not.toBeNull();
    expect(alertsPrinted).toBeGreaterThan(0);
    expect(polled?.alertsLastDay).toBe(alertsPrinted);
  }, 120_000);

  it('prints a table with a row per source', async () => {
    const status = await runPollCommand(['status', '--state', `file:${join(directory, 'state.json')}`], {
      register: registerStatusCommand,
      env: {},
      cwd: directory,
    });

    const lines = status.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SOURCE +WATERMARK +LAG +LAST POLL +ALERTS 24H +LEASE +LAST ERROR$/);
    expect(lines).toHaveLength(3);
    expect(lines.find((line) => line.includes(PROJECT_REFUSED))).toMatch(
      /USER_UNAUTHORIZED \d+s ago: Atlas answered 403/,
    );
  });

  it('fails with exit 2 for a state file that does not exist, saying which --state to give', async () => {
    const missing = join(directory, 'missing.json');

    const status = await runPollCommand(['status', '--state', `file:${missing}`], {
      register: registerStatusCommand,
      env: {},
      cwd: directory,
    });

    expect(status).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `atlas-audit-alerts: there is no state file ${missing}: give --state the file run wrote (file:.atlas-audit-alerts/state.json in the directory run ran from, unless --state or local.state said otherwise), or dynamodb:TABLE for a deployed stack (its StateTableName output)\n`,
    });
  });

  it('says so when the state file holds no source yet', async () => {
    // A state file as a run leaves it when it has polled nothing yet.
    const empty = join(directory, 'empty.json');
    await writeFile(
      empty,
      JSON.stringify({ version: 1, sources: [], alerts: [], counters: [], inventories: [], names: [] }),
    );

    const status = await runPollCommand(['status', '--state', `file:${empty}`], {
      register: registerStatusCommand,
      env: {},
      cwd: directory,
    });

    expect(status).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^no sources in this state store yet/),
    });
  });

  it('says how to set an AWS region when none is set, for status and run alike', async () => {
    const home = await mkdtemp(join(tmpdir(), 'no-aws-config-'));
    // No region anywhere the SDK looks: no variable, no profile, an empty home directory.
    const env = { HOME: home, ...ENV };
    const unset = [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_PROFILE',
      'AWS_CONFIG_FILE',
      'AWS_SHARED_CREDENTIALS_FILE',
    ];

    const [status, run] = await Promise.all([
      runCli(['status', '--state', 'dynamodb:AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7'], env, {
        unset,
      }),
      runCli(
        ['run', '--project', PROJECT_OK, '--base-url', sim.baseUrl, '--state', 'dynamodb:state-table'],
        env,
        {
          unset,
        },
      ),
    ]).finally(() => rm(home, { recursive: true, force: true }));

    expect(status.status).toBe(2);
    expect(status.stderr).toContain(
      'atlas-audit-alerts: --state dynamodb:AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7 needs an AWS region, and none is set: export AWS_REGION=eu-west-1',
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('atlas-audit-alerts: --state dynamodb:state-table needs an AWS region');
  });
});

describe('status with DynamoDB', () => {
  let client: DynamoDBClient;
  let endpoint: string;
  const tableName = `status-${randomUUID()}`;

  beforeAll(async () => {
    endpoint = await dynamoDbLocalEndpoint();
    client = createDynamoDbLocalClient(endpoint);
    await createStateTable({ client, tableName, timeToLive: false });
  });

  afterAll(() => {
    client?.destroy();
  });

  it('shows watermark, lag, last poll, alerts, lease holder and last error of each source', async () => {
    // Prepare: what the Lambda's ticks would have left in the table.
    const clock = new ManualClock();
    const store = new DynamoDbStateStore({ client, tableName, clock });
    const acquire = async (source: string, owner = 'poller') => {
      const acquisition = await store.acquireLease({ source, owner, durationMs: 5 * MINUTE });
      if (!acquisition.acquired) throw new Error(`${source} is held`);
      return acquisition.lease;
    };
    const start = clock.now();
    await store.commitCursor({
      lease: await acquire('org:5f4e3d2c1b0a998877665544'),
      watermark: start - 2 * MINUTE,
      seenIds: [],
      alertsSent: 4,
    });
    await store.commitCursor({
      lease: await acquire('project:5f4e3d2c1b0a998877665545'),
      watermark: start - 9 * MINUTE,
      seenIds: [],
    });
    clock.advance(MINUTE);
    await store.releaseLease({
      lease: await acquire('project:5f4e3d2c1b0a998877665545'),
      polled: true,
      error: {
        code: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
        message: 'Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST',
      },
    });
    await acquire('project:5f4e3d2c1b0a998877665546', 'ip-10-0-1-7:811');

    // Act
    const status = await runPollCommand(['status', '--state', `dynamodb:${tableName}`, '--json'], {
      register: (program, io) =>
        registerStatusCommand(program, io, {
          dynamoDbClient: () => createDynamoDbLocalClient(endpoint),
          clock,
        }),
      env: {},
      cwd: directory,
    });

    // Assess
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as StatusJson;
    const iso = (ms: number): string => new Date(ms).toISOString();
    expect(report.sources).toEqual([
      {
        source: 'org:5f4e3d2c1b0a998877665544',
        connection: 'default',
        watermark: iso(start - 2 * MINUTE),
        lagSeconds: 180,
        lastPoll: iso(start),
        alertsLastDay: 4,
        lease: null,
        lastError: null,
      },
      {
        source: 'project:5f4e3d2c1b0a998877665545',
        connection: 'default',
        watermark: iso(start - 9 * MINUTE),
        lagSeconds: 600,
        lastPoll: iso(start + MINUTE),
        alertsLastDay: 0,
        lease: null,
        lastError: {
          at: iso(start + MINUTE),
          code: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
          message: 'Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST',
        },
      },
      {
        source: 'project:5f4e3d2c1b0a998877665546',
        connection: 'default',
        watermark: null,
        lagSeconds: null,
        lastPoll: null,
        alertsLastDay: 0,
        lease: { owner: 'ip-10-0-1-7:811', expiresAt: iso(start + 6 * MINUTE) },
        lastError: null,
      },
    ]);
  });
});
