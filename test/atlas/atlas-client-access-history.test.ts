import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import type { AtlasClientOptions } from '../../shared/atlas/client-options.js';
import {
  AtlasForbiddenError,
  AtlasNotFoundError,
  AtlasRequestError,
  AtlasResponseError,
} from '../../shared/atlas/errors.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { listPage } from '../support/digest-server.js';
import { type ClientHarness, type HarnessOptions, startClientHarness } from './client-harness.js';
import { ManualClock } from './manual-clock.js';

const GROUP = '6a5b4c3d2e1f009988776655';
const HOUR_MS = 3_600_000;

describe('AtlasClient clusters and access history against the simulator', () => {
  let sim: AtlasSimulator;
  const clients: AtlasClient[] = [];
  const project = (name: string): string => sim.projects.find((p) => p.name === name)?.id ?? '';

  const client = (options: Partial<AtlasClientOptions> = {}): AtlasClient => {
    const created = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...sim.credentials },
      clock: new ManualClock(),
      random: () => 0.5,
      ...options,
    });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    sim = await startSimulator();
  });

  afterAll(async () => {
    await Promise.all(clients.map((created) => created.close()));
    await sim.stop();
  });

  it.each(['atlas-v2', 'atlas-v1'] as const)(
    'lists the clusters of a project with %s, telling dedicated from shared tier',
    async (flavor) => {
      const clusters = await client({ flavor }).listClusters(project('internal-tools')).toArray();

      expect(clusters).toEqual([
        {
          name: 'tools-main',
          tier: 'dedicated',
          accessHistory: true,
          providerName: 'AWS',
          instanceSize: 'M10',
        },
        {
          name: 'tools-free',
          tier: 'shared',
          accessHistory: false,
          providerName: 'TENANT',
          instanceSize: 'M0',
        },
      ]);
    },
  );

  it('asks for clusters in version 2024-08-05 on Atlas v2', async () => {
    const atlas = client();

    await atlas.listClusters(project('internal-tools')).toArray();

    expect(atlas.lastAnswer?.contentType).toBe('application/vnd.atlas.2024-08-05+json');
  });

  it('lists Ops Manager clusters as self-managed, without access history, and refuses to read it there', async () => {
    const opsManager = client({ flavor: 'ops-manager' });

    const clusters = await opsManager.listClusters(project('internal-tools')).toArray();
    const read = opsManager.readAccessHistory(project('internal-tools'), 'tools-main');

    expect(clusters.map((cluster) => [cluster.name, cluster.tier, cluster.accessHistory])).toEqual([
      ['tools-main', 'self-managed', false],
      ['tools-free', 'self-managed', false],
    ]);
    await expect(read).rejects.toThrow(AtlasRequestError);
    await expect(read).rejects.toThrow(/Ops Manager keeps no database access history/);
  });

  it('reads the access history of a dedicated cluster, every line whole, with nLogs sent', async () => {
    const atlas = client();

    const history = await atlas.readAccessHistory(project('payments-prod'), 'payments-main', { nLogs: 5 });

    expect(history.dropped).toBe(0);
    expect(history.lines).toHaveLength(5);
    expect(history.lines[0]).toEqual({
      authResult: true,
      authSource: 'admin',
      failureReason: null,
      groupId: project('payments-prod'),
      hostname: expect.stringMatching(/\.x7kq2\.mongodb\.net$/),
      ipAddress: expect.any(String),
      logLine: expect.stringContaining('"msg":"Authentication succeeded"'),
      timestamp: expect.any(String),
      timestampMs: Date.parse(history.lines[0]?.timestamp ?? ''),
      username: expect.any(String),
    });
    expect(
      sim.counters.byPath['GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}'],
    ).toBeGreaterThan(0);
  });

  it('reads a window in epoch milliseconds, sees a line that appeared late in it on the next read', async () => {
    const atlas = client();
    const groupId = project('analytics-prod');
    const start = sim.startedAt - HOUR_MS;
    const end = sim.startedAt;

    const first = await atlas.readAccessHistory(groupId, 'analytics-main', { start, end, authResult: false });
    sim.addAccessLogs(groupId, 'analytics-main', [
      {
        username: 'late-user',
        ipAddress: '192.0.2.200',
        authResult: false,
        timestamp: sim.startedAt - HOUR_MS / 2,
      },
    ]);
    const second = await atlas.readAccessHistory(groupId, 'analytics-main', {
      start: new Date(start),
      end,
      authResult: false,
    });

    expect(first.lines.every((line) => !line.authResult)).toBe(true);
    expect(second.lines.length).toBe(first.lines.length + 1);
    expect(second.lines.filter((line) => line.username === 'late-user')).toHaveLength(1);
  });

  it('is refused a shared-tier cluster, an unknown cluster, and a project without the role', async () => {
    const atlas = client();

    const shared = atlas.readAccessHistory(project('internal-tools'), 'tools-free');
    const unknown = atlas.readAccessHistory(project('internal-tools'), 'nope');
    // The seed's read-only key (Organization Read Only of Acme Corp): not enough for logins.
    const readOnly = client({
      credentials: { kind: 'digest', publicKey: 'hxnwmpla', privateKey: 'fake-private-key-monitoring' },
    });
    const forbidden = readOnly.readAccessHistory(project('payments-prod'), 'payments-main');

    await expect(shared).rejects.toMatchObject({ status: 400, errorCode: 'TENANT_CLUSTER_UNSUPPORTED' });
    await expect(unknown).rejects.toBeInstanceOf(AtlasNotFoundError);
    await expect(forbidden).rejects.toBeInstanceOf(AtlasForbiddenError);
  });

  it.each([
    [{ start: 1_700_000_000_000 }, /start and end go together/],
    [{ start: 1_700_000_000_001, end: 1_700_000_000_000 }, /is after end/],
    [{ start: 1_000, end: 2_000 }, /out of range/],
    [{ start: 1_700_000_000_000.5, end: 1_700_000_000_001 }, /out of range/],
    [{ nLogs: 20_001 }, /nLogs 20001 is out of range/],
    [{ nLogs: -1 }, /nLogs -1 is out of range/],
  ])('refuses %j before sending anything', async (options, message) => {
    const atlas = client();
    sim.resetCounters();

    await expect(atlas.readAccessHistory(project('payments-prod'), 'payments-main', options)).rejects.toThrow(
      message,
    );
    expect(sim.counters.requests).toBe(0);
  });

  it('refuses a cluster name that could leave the path before sending anything', async () => {
    const atlas = client();

    await expect(atlas.readAccessHistory(project('payments-prod'), '../../orgs')).rejects.toThrow(
      AtlasRequestError,
    );
  });
});

describe('AtlasClient clusters and access history, hostile answers', () => {
  const harnesses: ClientHarness[] = [];

  afterEach(async () => {
    for (const started of harnesses.splice(0)) await started.close();
  });

  const harness = async (body: unknown, options: HarnessOptions = {}): Promise<ClientHarness> => {
    const started = await startClientHarness({
      server: { route: () => ({ body }) },
      client: { flavor: 'atlas-v2' },
      ...options,
    });
    harnesses.push(started);
    return started;
  };

  const line = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    authResult: false,
    authSource: 'admin',
    failureReason: 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch',
    hostname: 'c0-shard-00-00.abcde.mongodb.net',
    ipAddress: '198.51.100.7',
    logLine: '{"msg":"Authentication failed"}',
    timestamp: '2026-03-01T11:59:00.123Z',
    username: 'app',
    ...overrides,
  });

  it('skips lines that are not objects or lack a field, counts them, and warns with positions only', async () => {
    const { client, logs } = await harness({
      accessLogs: [
        line(),
        null,
        'fake-private-key-echoed',
        line({ username: undefined }),
        line({ authResult: 'false' }),
        line({ timestamp: 'not a time' }),
        line({ failureReason: { nested: true } }),
        [line()],
        line({ failureReason: null, authResult: true }),
      ],
    });

    const history = await client.readAccessHistory(GROUP, 'c0');

    expect(history.lines.map((read) => [read.authResult, read.failureReason])).toEqual([
      [false, 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch'],
      [true, null],
    ]);
    expect(history.dropped).toBe(7);
    const warnings = logs.filter((entry) => entry.message.includes('access-history'));
    expect(warnings.map((entry) => [entry.message, entry.attributes])).toEqual([
      [
        'Atlas sent access-history lines that cannot be read; skipped them',
        {
          path: `/api/atlas/v2/groups/${GROUP}/dbAccessHistory/clusters/c0`,
          skipped: 7,
          positions: [1, 2, 3, 4, 5, 6, 7],
        },
      ],
    ]);
    expect(JSON.stringify(logs)).not.toContain('fake-private-key-echoed');
  });

  it("reads JavaScript's date text as a timestamp too, and a failure without failureReason as null", async () => {
    const { client } = await harness({
      accessLogs: [
        line({
          timestamp: 'Sun Mar 01 2026 11:59:00 GMT+0000 (Coordinated Universal Time)',
          failureReason: undefined,
        }),
      ],
    });

    const history = await client.readAccessHistory(GROUP, 'c0');

    expect(history.lines[0]).toMatchObject({
      timestampMs: Date.parse('2026-03-01T11:59:00Z'),
      failureReason: null,
    });
  });

  it.each([
    ['an answer without accessLogs', { results: [] }, /without an accessLogs array/],
    ['accessLogs that is not an array', { accessLogs: { 0: line() } }, /without an accessLogs array/],
    [
      'more lines than nLogs asked',
      { accessLogs: [line(), line(), line()] },
      /3 lines, more than the 2 asked for/,
    ],
  ])('refuses %s without retrying', async (_name, body, message) => {
    const { client, server } = await harness(body);

    const read = client.readAccessHistory(GROUP, 'c0', { nLogs: 2 });

    await expect(read).rejects.toBeInstanceOf(AtlasResponseError);
    await expect(read).rejects.toThrow(message);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(1);
  });

  it('refuses JSON nested deeper than the client reads, and survives enormous strings', async () => {
    let deep: unknown = line();
    for (let depth = 0; depth < 300; depth++) deep = [deep];
    const nested = await harness({ accessLogs: [deep] });
    const huge = await harness({ accessLogs: [line({ username: 'u'.repeat(2_000_000) })] });

    await expect(nested.client.readAccessHistory(GROUP, 'c0')).rejects.toThrow(/nested more than/);
    const history = await huge.client.readAccessHistory(GROUP, 'c0');
    expect(history.lines[0]?.username).toHaveLength(2_000_000);
  });

  it('sends start, end, nLogs, authResult and ipAddress as Atlas names them', async () => {
    const { client, server } = await harness({ accessLogs: [] });

    await client.readAccessHistory(GROUP, 'c0', {
      start: 1_772_362_800_000,
      end: 1_772_366_400_000,
      nLogs: 500,
      authResult: false,
      ipAddress: '198.51.100.7',
    });

    const sent = server.requests.find((request) => request.status === 200);
    expect(sent?.url.pathname).toBe(`/api/atlas/v2/groups/${GROUP}/dbAccessHistory/clusters/c0`);
    expect(sent?.url.search).toBe(
      '?start=1772362800000&end=1772366400000&nLogs=500&authResult=false&ipAddress=198.51.100.7',
    );
  });

  it('classifies clusters by provider wherever Atlas states it, and skips entries it cannot name', async () => {
    const { client, logs } = await harness(
      listPage(
        [
          {
            name: 'dedicated',
            replicationSpecs: [{ regionConfigs: [{ providerName: 'AWS' }, { providerName: 'GCP' }] }],
          },
          { name: 'flex', providerSettings: { providerName: 'FLEX', instanceSizeName: 'FLEX' } },
          {
            name: 'mixed',
            replicationSpecs: [{ regionConfigs: [{ providerName: 'AWS' }, { providerName: 'TENANT' }] }],
          },
          { name: 'odd', providerSettings: { providerName: 'MARS' } },
          { name: 'bare' },
          { name: 42 },
          null,
          { name: 'deep', replicationSpecs: 'not a list', providerSettings: ['AWS'] },
        ],
        { self: '' },
      ),
    );

    const clusters = await client.listClusters(GROUP).toArray();

    expect(clusters.map((cluster) => [cluster.name, cluster.tier, cluster.accessHistory])).toEqual([
      ['dedicated', 'dedicated', true],
      ['flex', 'flex', false],
      ['mixed', 'shared', false],
      ['odd', 'unknown', true],
      ['bare', 'unknown', true],
      ['deep', 'unknown', true],
    ]);
    expect(logs.find((entry) => entry.message.includes('not clusters'))?.attributes).toMatchObject({
      skipped: 2,
      positions: [5, 6],
    });
  });
});
