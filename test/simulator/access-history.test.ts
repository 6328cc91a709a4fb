import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AtlasSimulator,
  parseSeed,
  type SimulatorAccessLog,
  SimulatorEventError,
  startSimulator,
} from '../../simulator/index.js';
import { DigestSession } from './support/digest-client.js';
import { ManualClock } from './support/manual-clock.js';

const V2 = 'application/vnd.atlas.2023-01-01+json';
const V2_CLUSTERS = 'application/vnd.atlas.2024-08-05+json';
const DAY_MS = 86_400_000;

type AccessLogs = { accessLogs: SimulatorAccessLog[] };

describe('simulator clusters and database access history, default seed', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
  let sim: AtlasSimulator;
  let paymentsProd: string;
  let analyticsProd: string;
  let internalTools: string;

  const get = (path: string, accept = V2): Promise<Response> =>
    fetch(`${sim.baseUrl}${path}`, { headers: { accept } });
  const history = (groupId: string, cluster: string, query = ''): Promise<Response> =>
    get(`/api/atlas/v2/groups/${groupId}/dbAccessHistory/clusters/${cluster}${query}`);
  const lines = async (response: Response): Promise<SimulatorAccessLog[]> => {
    expect(response.status).toBe(200);
    return ((await response.json()) as AccessLogs).accessLogs;
  };
  const projectId = (name: string): string => sim.projects.find((project) => project.name === name)?.id ?? '';

  beforeAll(async () => {
    sim = await startSimulator({ clock, unauthenticatedAccess: true });
    paymentsProd = projectId('payments-prod');
    analyticsProd = projectId('analytics-prod');
    internalTools = projectId('internal-tools');
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('gives every seeded project a dedicated cluster, and internal-tools a shared-tier one beside it', () => {
    const byProject = sim.projects.map((project) =>
      sim.clusters
        .filter((cluster) => cluster.groupId === project.id)
        .map((cluster) => `${cluster.name}:${cluster.accessHistory ? 'dedicated' : 'shared'}`),
    );

    expect(byProject).toEqual([
      ['payments-main:dedicated'],
      ['staging-main:dedicated'],
      ['analytics-main:dedicated'],
      ['tools-main:dedicated', 'tools-free:shared'],
      ['sandbox:dedicated'],
    ]);
  });

  it('lists clusters in version 2024-08-05 with replicationSpecs, whose regionConfigs name the provider and tier', async () => {
    const response = await get(`/api/atlas/v2/groups/${internalTools}/clusters`, V2_CLUSTERS);
    const body = (await response.json()) as { results: Array<Record<string, unknown>>; totalCount: number };

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(V2_CLUSTERS);
    expect(body.totalCount).toBe(2);
    expect(body.results.map((cluster) => [cluster.name, cluster.replicationSpecs])).toEqual([
      [
        'tools-main',
        [
          {
            id: expect.any(String),
            regionConfigs: [
              {
                electableSpecs: { instanceSize: 'M10', nodeCount: 3 },
                priority: 7,
                providerName: 'AWS',
                regionName: 'EU_WEST_1',
              },
            ],
            zoneName: 'Zone 1',
          },
        ],
      ],
      [
        'tools-free',
        [
          {
            id: expect.any(String),
            regionConfigs: [
              {
                backingProviderName: 'AWS',
                electableSpecs: { instanceSize: 'M0', nodeCount: 3 },
                priority: 7,
                providerName: 'TENANT',
                regionName: 'EU_WEST_1',
              },
            ],
            zoneName: 'Zone 1',
          },
        ],
      ],
    ]);
    expect(body.results[0]).not.toHaveProperty('providerSettings');
  });

  it('lists clusters with providerSettings in version 2023-01-01 and on v1.0, and in the Ops Manager shape there', async () => {
    const v2 = await get(`/api/atlas/v2/groups/${internalTools}/clusters`);
    const v1 = await get(`/api/atlas/v1.0/groups/${internalTools}/clusters`, 'application/json');
    const opsManager = await get(`/api/public/v1.0/groups/${internalTools}/clusters`, 'application/json');

    for (const response of [v2, v1]) {
      const body = (await response.json()) as { results: Array<Record<string, unknown>> };
      expect(body.results.map((cluster) => [cluster.name, cluster.providerSettings])).toEqual([
        ['tools-main', { providerName: 'AWS', instanceSizeName: 'M10', regionName: 'EU_WEST_1' }],
        [
          'tools-free',
          {
            providerName: 'TENANT',
            instanceSizeName: 'M0',
            backingProviderName: 'AWS',
            regionName: 'EU_WEST_1',
          },
        ],
      ]);
    }
    const om = (await opsManager.json()) as { results: Array<Record<string, unknown>> };
    expect(om.results.map((cluster) => [cluster.clusterName, cluster.typeName])).toEqual([
      ['tools-main', 'REPLICA_SET'],
      ['tools-free', 'REPLICA_SET'],
    ]);
  });

  it('serves the access history newest first, each line with exactly the fields of MongoDBAccessLogs', async () => {
    const served = await lines(await history(paymentsProd, 'payments-main'));

    expect(served).toHaveLength(45);
    const times = served.map((line) => Date.parse(line.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Object.keys(served[0] as object)).toEqual([
      'authResult',
      'authSource',
      'failureReason',
      'groupId',
      'hostname',
      'ipAddress',
      'logLine',
      'timestamp',
      'username',
    ]);
    expect(served[0]).toMatchObject({ authSource: 'admin', failureReason: null, groupId: paymentsProd });
    expect(served[0]?.hostname).toMatch(/^payments-main-shard-00-0[012]\.x7kq2\.mongodb\.net$/);
    expect(JSON.parse(served[0]?.logLine ?? '')).toMatchObject({
      c: 'ACCESS',
      id: 20250,
      msg: 'Authentication succeeded',
      attr: {
        principalName: served[0]?.username,
        remote: expect.stringContaining(served[0]?.ipAddress ?? ''),
      },
    });
  });

  it('holds a brute force against one user that ends in a success from the same address', async () => {
    const served = await lines(await history(paymentsProd, 'payments-main', '?ipAddress=198.51.100.203'));

    const oldestFirst = served.reverse();
    expect(oldestFirst.map((line) => [line.username, line.authResult])).toEqual([
      ...Array.from({ length: 12 }, () => ['payments-admin', false]),
      ['payments-admin', true],
    ]);
    expect(oldestFirst[0]?.failureReason).toMatch(/^AuthenticationFailed: /);
    const spanMs = Date.parse(oldestFirst[12]?.timestamp ?? '') - Date.parse(oldestFirst[0]?.timestamp ?? '');
    expect(spanMs).toBeLessThanOrEqual(5 * 60_000);
  });

  it('holds a password-spraying burst: one address, many user names, failures within a few minutes', async () => {
    const served = await lines(await history(analyticsProd, 'analytics-main', '?ipAddress=203.0.113.250'));

    expect(served.every((line) => !line.authResult)).toBe(true);
    expect(new Set(served.map((line) => line.username)).size).toBe(14);
    expect(served.filter((line) => line.failureReason?.startsWith('UserNotFound: ')).length).toBe(12);
    const times = served.map((line) => Date.parse(line.timestamp));
    expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(5 * 60_000);
  });

  it('filters on authResult (true: successes only, false: failures only) and ipAddress', async () => {
    const all = await lines(await history(paymentsProd, 'payments-main'));
    const successes = await lines(await history(paymentsProd, 'payments-main', '?authResult=true'));
    const failures = await lines(await history(paymentsProd, 'payments-main', '?authResult=false'));
    const office = await lines(await history(paymentsProd, 'payments-main', '?ipAddress=203.0.113.77'));

    expect(successes.length + failures.length).toBe(all.length);
    expect(successes.every((line) => line.authResult)).toBe(true);
    expect(failures.map((line) => line.authResult)).toEqual(Array(13).fill(false));
    expect(office.map((line) => line.username)).toEqual(['carol', 'carol', 'carol']);
  });

  it('reads an inclusive start and end in epoch milliseconds, and nLogs as the newest lines to return', async () => {
    const all = await lines(await history(paymentsProd, 'payments-main'));
    const [newest, second, third] = all.map((line) => Date.parse(line.timestamp));

    const window = await lines(await history(paymentsProd, 'payments-main', `?start=${third}&end=${second}`));
    const two = await lines(await history(paymentsProd, 'payments-main', '?nLogs=2'));
    const none = await lines(await history(paymentsProd, 'payments-main', '?nLogs=0'));

    expect(window.map((line) => Date.parse(line.timestamp))).toEqual([second, third]);
    expect(two.map((line) => Date.parse(line.timestamp))).toEqual([newest, second]);
    expect(none).toEqual([]);
  });

  it.each([
    ['nLogs=20001', 'nLogs'],
    ['nLogs=-1', 'nLogs'],
    ['nLogs=ten', 'nLogs'],
    ['start=1700000000000', 'end'],
    ['end=1700000000000', 'start'],
    ['start=1199145599999&end=1700000000000', 'start'],
    ['start=1700000000001&end=1700000000000', 'start'],
    ['start=2026-03-01T00:00:00Z&end=1700000000000', 'start'],
    ['authResult=yes', 'authResult'],
    ['ipAddress=203.0.113.0/24', 'ipAddress'],
  ])('answers 400 INVALID_ATTRIBUTE for %s', async (query, field) => {
    const response = await history(paymentsProd, 'payments-main', `?${query}`);

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 400,
      errorCode: 'INVALID_ATTRIBUTE',
      badRequestDetail: { fields: [{ field }] },
    });
  });

  it('serves only the last seven days, and a line added late into a range already read', async () => {
    const now = clock.now();
    const before = await lines(
      await history(paymentsProd, 'payments-main', `?start=${now - 7 * DAY_MS - 1}&end=${now - DAY_MS}`),
    );

    const added = sim.addAccessLogs(paymentsProd, 'payments-main', [
      { username: 'late-user', ipAddress: '10.20.1.99', authResult: true, timestamp: now - 2 * DAY_MS },
      { username: 'gone-user', ipAddress: '10.20.1.99', authResult: true, timestamp: now - 7 * DAY_MS - 1 },
    ]);
    const after = await lines(
      await history(paymentsProd, 'payments-main', `?start=${now - 7 * DAY_MS - 1}&end=${now - DAY_MS}`),
    );

    // The seeded week of payments-main, older than a day: the late line joins it, the gone one does not.
    expect(before).toHaveLength(12);
    expect(added.map((line) => line.timestamp)).toEqual([
      new Date(now - 2 * DAY_MS).toISOString(),
      new Date(now - 7 * DAY_MS - 1).toISOString(),
    ]);
    const seen = new Set(before.map((line) => JSON.stringify(line)));
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((line) => !seen.has(JSON.stringify(line)))).toEqual([added[0]]);
  });

  it('answers the processes variant with the lines of that host only', async () => {
    const [host] = sim.clusters.find((cluster) => cluster.name === 'payments-main')?.hosts ?? [];
    const response = await get(`/api/atlas/v2/groups/${paymentsProd}/dbAccessHistory/processes/${host}`);
    const unknown = await get(
      `/api/atlas/v2/groups/${paymentsProd}/dbAccessHistory/processes/nowhere.example`,
    );

    const served = await lines(response);
    expect(served.length).toBeGreaterThan(5);
    expect(new Set(served.map((line) => line.hostname))).toEqual(new Set([host]));
    expect(unknown.status).toBe(404);
  });

  it('refuses a shared-tier cluster with 400 TENANT_CLUSTER_UNSUPPORTED and an unknown one with 404 CLUSTER_NOT_FOUND', async () => {
    const shared = await history(internalTools, 'tools-free');
    const unknown = await history(internalTools, 'nope');
    const badName = await history(internalTools, '-nope');

    expect(shared.status).toBe(400);
    expect(await shared.json()).toMatchObject({ errorCode: 'TENANT_CLUSTER_UNSUPPORTED' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      errorCode: 'CLUSTER_NOT_FOUND',
      parameters: ['nope', internalTools],
    });
    expect(badName.status).toBe(400);
  });

  it('has no access history on Ops Manager (404), and the legacy Atlas API serves it', async () => {
    const opsManager = await get(
      `/api/public/v1.0/groups/${paymentsProd}/dbAccessHistory/clusters/payments-main`,
      'application/json',
    );
    const v1 = await get(
      `/api/atlas/v1.0/groups/${paymentsProd}/dbAccessHistory/clusters/payments-main?nLogs=1`,
      'application/json',
    );

    expect(opsManager.status).toBe(404);
    expect(await opsManager.json()).toMatchObject({ errorCode: 'RESOURCE_NOT_FOUND' });
    expect(await lines(v1)).toHaveLength(1);
  });

  it('wraps the answer with envelope=true as a single resource', async () => {
    const response = await history(paymentsProd, 'payments-main', '?nLogs=1&envelope=true');

    expect(await response.json()).toMatchObject({
      status: 200,
      content: { accessLogs: [expect.any(Object)] },
    });
  });

  it('injects faults on the new routes by their patterns, and counts them', async () => {
    sim.resetCounters();
    sim.setFaults({
      schedule: [{ kind: 'internalServerError' }],
      routes: ['GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}'],
    });
    const clusters = await get(`/api/atlas/v2/groups/${paymentsProd}/clusters`, V2_CLUSTERS);
    const failed = await history(paymentsProd, 'payments-main');
    const next = await history(paymentsProd, 'payments-main');
    sim.setFaults();

    expect([clusters.status, failed.status, next.status]).toEqual([200, 500, 200]);
    expect(sim.counters.byPath).toMatchObject({
      'GET /groups/{groupId}/clusters': 1,
      'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}': 2,
    });
  });
});

describe('simulator access history roles, default seed', () => {
  let sim: AtlasSimulator;
  const session = (publicKey: string, privateKey: string): DigestSession =>
    new DigestSession({ username: publicKey, password: privateKey });

  beforeAll(async () => {
    sim = await startSimulator();
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('needs Project Cluster Log Viewer, Database Access Admin or Owner for access history, Project Read Only for clusters', async () => {
    const project = (name: string): string => sim.projects.find((p) => p.name === name)?.id ?? '';
    const paths = (groupId: string, cluster: string): string[] => [
      `${sim.baseUrl}/api/atlas/v2/groups/${groupId}/clusters`,
      `${sim.baseUrl}/api/atlas/v2/groups/${groupId}/dbAccessHistory/clusters/${cluster}?nLogs=1`,
    ];
    const statuses = async (who: DigestSession, urls: string[]): Promise<number[]> => {
      const result: number[] = [];
      for (const url of urls) result.push((await who.get(url)).status);
      return result;
    };

    const orgOwner = await statuses(
      session('qkzvbgyt', 'fake-private-key-ci-automation'),
      paths(project('analytics-prod'), 'analytics-main'),
    );
    const orgReadOnly = await statuses(
      session('hxnwmpla', 'fake-private-key-monitoring'),
      paths(project('analytics-prod'), 'analytics-main'),
    );
    const projectReadOnly = await statuses(
      session('mvpluqwa', 'fake-private-key-analytics'),
      paths(project('analytics-prod'), 'analytics-main'),
    );
    const projectOwner = await statuses(
      session('rtfcjdse', 'fake-private-key-payments-deployer'),
      paths(project('payments-prod'), 'payments-main'),
    );

    expect({ orgOwner, orgReadOnly, projectReadOnly, projectOwner }).toEqual({
      orgOwner: [200, 200],
      orgReadOnly: [200, 403],
      projectReadOnly: [200, 403],
      projectOwner: [200, 200],
    });
  });
});

describe('simulator seed clusters', () => {
  const seedWith = (clusters: unknown[], extra: Record<string, unknown> = {}): unknown => ({
    orgs: [{ id: '64b5c9e2f1a3d40012ab3c01', name: 'Org' }],
    projects: [
      { id: '64b5ca17f1a3d40012ab3d11', name: 'p', orgId: '64b5c9e2f1a3d40012ab3c01', clusters, ...extra },
    ],
  });
  const dedicated = { name: 'c1', providerSettings: { providerName: 'AWS', instanceSizeName: 'M10' } };
  const problems = (input: unknown): string => {
    try {
      parseSeed(input, 'test');
      return 'valid';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('accepts the cluster the simulator guide shows', () => {
    const guide = readFileSync(new URL('../../docs/simulator.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';

    expect(problems(seedWith([JSON.parse(example)]))).toBe('valid');
  });

  it('accepts dedicated, shared-tier and Flex clusters and counts them for clusterCount', () => {
    const seed = parseSeed(
      seedWith([
        dedicated,
        {
          name: 'free',
          providerSettings: { providerName: 'TENANT', instanceSizeName: 'M0', backingProviderName: 'AWS' },
        },
        { name: 'flex', providerSettings: { providerName: 'FLEX', backingProviderName: 'GCP' } },
      ]),
      'test',
    );

    expect(seed.projects[0]?.clusters.map((cluster) => cluster.providerSettings.instanceSizeName)).toEqual([
      'M10',
      'M0',
      'FLEX',
    ]);
  });

  it.each([
    [[{ ...dedicated, nodes: 3 }], {}, 'projects[0].clusters[0].nodes: unknown field'],
    [
      [{ ...dedicated, accessLogs: [{ username: 'u', ipAddress: '10.0.0.1', authResult: true, extra: 1 }] }],
      {},
      'accessLogs[0].extra: unknown field',
    ],
    [
      [
        {
          name: 'free',
          providerSettings: { providerName: 'TENANT', instanceSizeName: 'M0', backingProviderName: 'AWS' },
          accessLogs: [{ username: 'u', ipAddress: '10.0.0.1', authResult: true }],
        },
      ],
      {},
      'has no database access history',
    ],
    [
      [
        {
          name: 'free',
          providerSettings: { providerName: 'TENANT', instanceSizeName: 'M10', backingProviderName: 'AWS' },
        },
      ],
      {},
      'instanceSizeName',
    ],
    [[dedicated, { ...dedicated, name: 'C1' }], {}, 'duplicate cluster name c1'],
    [[dedicated], { clusterCount: 2 }, 'clusterCount: is 2 but the project lists 1 clusters'],
    [[{ ...dedicated, name: 'bad_name' }], {}, 'clusters[0].name'],
    [
      [{ ...dedicated, accessLogs: [{ username: 'u', ipAddress: 'nowhere', authResult: true }] }],
      {},
      'must be an IPv4 or IPv6 address',
    ],
    [
      [
        {
          ...dedicated,
          accessLogs: [{ username: 'u', ipAddress: '10.0.0.1', authResult: true, failureReason: 'x' }],
        },
      ],
      {},
      'a successful attempt has no failureReason',
    ],
  ])('refuses %j with a message naming the field', (clusters, extra, message) => {
    expect(problems(seedWith(clusters, extra))).toContain(message);
  });

  it('refuses lines for a shared-tier cluster or a host the cluster does not have at run time', async () => {
    const sim = await startSimulator();
    try {
      const groupId = sim.projects.find((project) => project.name === 'internal-tools')?.id ?? '';

      expect(() =>
        sim.addAccessLogs(groupId, 'tools-free', [
          { username: 'u', ipAddress: '10.0.0.1', authResult: true },
        ]),
      ).toThrow(SimulatorEventError);
      expect(() =>
        sim.addAccessLogs(groupId, 'tools-main', [
          { username: 'u', ipAddress: '10.0.0.1', authResult: true, hostname: 'elsewhere.example' },
        ]),
      ).toThrow(/not one of the cluster's/);
      expect(
        sim.addCluster(groupId, {
          name: 'tools-two',
          providerSettings: { providerName: 'AWS', instanceSizeName: 'M20' },
        }),
      ).toMatchObject({
        accessHistory: true,
        hosts: [expect.stringMatching(/^tools-two-shard-00-00\./), expect.any(String), expect.any(String)],
      });
      expect(() =>
        sim.addCluster(groupId, {
          name: 'tools-main',
          providerSettings: { providerName: 'AWS', instanceSizeName: 'M20' },
        }),
      ).toThrow(/already has a cluster named tools-main/);
    } finally {
      await sim.stop();
    }
  });

  it('generates routine traffic for benchmarks with about the share of failures asked', async () => {
    const sim = await startSimulator();
    try {
      const groupId = sim.projects.find((project) => project.name === 'payments-staging')?.id ?? '';
      const generated = sim.generateAccessLogs({
        groupId,
        clusterName: 'staging-main',
        count: 500,
        seed: 7,
        failureShare: 0.1,
      });

      expect(generated.count).toBe(500);
      expect(generated.failures).toBeGreaterThan(20);
      expect(generated.failures).toBeLessThan(80);
    } finally {
      await sim.stop();
    }
  });
});
