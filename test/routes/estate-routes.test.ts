import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageAttributeValue, PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { OutboxNotifier, validateSnsEntry } from '../../shared/notify/index.js';
import {
  type ConnectionClients,
  type EffectiveConnection,
  pollerConfigSchema,
  runTick,
  type TickSummary,
} from '../../shared/poll/index.js';
import {
  filterPolicyMatches,
  planRoutes,
  type RouteSettings,
  routeAlert,
  routesSchema,
} from '../../shared/routes/index.js';
import { createRuleEngine, MemoryCounterStore } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { defaultRulePack, ids, pollerKey, pollSeed } from '../poll/support/poll-fixture.js';

/**
 * The estate of the deploy guide's example, end to end: two Atlas organizations (the top-level
 * settings and a subsidiary, each with its own key) and an Ops Manager, polled in one tick, and three
 * routes over the alerts' message attributes, decided as SNS decides its filter policies.
 */

/** The subsidiary's own key, Organization Owner of the second organization of the Atlas seed. */
const subsidiaryKey = { publicKey: 'subsidry', privateKey: 'fake-private-key-subsidiary' } as const;
/** In the Ops Manager's (default) seed: an organization owner key, and one of its projects. */
const opsManagerKey = { publicKey: 'qkzvbgyt', privateKey: 'fake-private-key-ci-automation' } as const;
const OPS_PROJECT = '64b5ca17f1a3d40012ab3d11';
const MINUTE = 60_000;

const routes: RouteSettings[] = routesSchema.parse([
  { name: 'security', match: { minSeverity: 'high' }, email: { to: ['security@example.com'] } },
  {
    name: 'payments',
    match: { projects: [ids.project] },
    slack: { workspaceId: 'T012AB3CD', channelId: 'C0PAYMENTS1' },
  },
  { name: 'data-centre', match: { connections: ['data-centre'] }, email: { to: ['dc-team@example.com'] } },
]);

/** What each route's match says of an alert's attributes, worked out apart from the routes code. */
function expectedRoutes(attributes: Readonly<Record<string, MessageAttributeValue>>): string[] {
  const expected: string[] = [];
  if (Number(attributes.severityRank?.StringValue) >= 4) expected.push('security');
  if (attributes.groupId?.StringValue === ids.project) expected.push('payments');
  if (attributes.connection?.StringValue === 'data-centre') expected.push('data-centre');
  return expected;
}

/** An outbox line: the `PublishBatch` entry as the SNS notifier would send it. */
type OutboxEntry = PublishBatchRequestEntry & { MessageAttributes: Record<string, MessageAttributeValue> };

let atlas: AtlasSimulator;
let opsManager: AtlasSimulator;
let folder: string;
let summary: TickSummary;
let entries: OutboxEntry[];

beforeAll(async () => {
  atlas = await startSimulator({
    seed: pollSeed([
      {
        id: '6650a1b2c3d4e5f603000009',
        desc: 'audit poller, subsidiary',
        ...subsidiaryKey,
        roles: [{ orgId: ids.otherOrg, roleName: 'ORG_OWNER' }],
        accessList: [{ cidrBlock: '127.0.0.1/32' }],
      },
    ]),
  });
  opsManager = await startSimulator();
  folder = await mkdtemp(join(tmpdir(), 'estate-routes-'));
  const now = Date.now();
  const opened = { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED', whitelistEntry: '0.0.0.0/0' };
  const keyRemoved = { eventTypeName: 'API_KEY_REMOVED_FROM_GROUP', targetPublicKey: 'zmmrboas' };
  const at = (minutes: number) => new Date(now - minutes * MINUTE).toISOString().replace(/\.\d{3}Z$/, 'Z');
  atlas.addEvent({ groupId: ids.project }, { ...opened, created: at(10), username: 'ana@example.com' });
  atlas.addEvent({ groupId: ids.project }, { ...keyRemoved, created: at(9), username: 'ana@example.com' });
  atlas.addEvent({ groupId: ids.secondProject }, { ...opened, created: at(8), username: 'bo@example.com' });
  atlas.addEvent(
    { groupId: ids.foreignProject },
    { ...keyRemoved, created: at(7), username: 'cy@example.com' },
  );
  opsManager.addEvent({ groupId: OPS_PROJECT }, { ...opened, created: at(6), username: 'di@example.com' });
  opsManager.addEvent(
    { groupId: OPS_PROJECT },
    { ...keyRemoved, created: at(5), username: 'di@example.com' },
  );

  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: atlas.baseUrl },
    sources: { projectIds: [ids.project, ids.secondProject] },
    connections: [
      { name: 'subsidiary', baseUrl: atlas.baseUrl, sources: { projectIds: [ids.foreignProject] } },
      {
        name: 'data-centre',
        flavor: 'ops-manager',
        baseUrl: opsManager.baseUrl,
        sources: { projectIds: [OPS_PROJECT] },
      },
    ],
  });
  const keys: Record<string, { publicKey: string; privateKey: string }> = {
    default: pollerKey,
    subsidiary: subsidiaryKey,
    'data-centre': opsManagerKey,
  };
  const clients: AtlasClient[] = [];
  const clientOf: ConnectionClients = async (connection: EffectiveConnection) => {
    const key = keys[connection.name];
    if (key === undefined) throw new Error(`no key for ${connection.name}`);
    const client = new AtlasClient({
      baseUrl: connection.baseUrl,
      flavor: connection.flavor,
      credentials: { kind: 'digest', ...key },
    });
    clients.push(client);
    return client;
  };
  const store = await FileStateStore.open({ path: join(folder, 'state.json'), clock: systemClock });
  try {
    summary = await runTick(
      {
        atlas: clientOf,
        store,
        engine: createRuleEngine({ pack: await defaultRulePack(), counters: new MemoryCounterStore() }),
        notifier: new OutboxNotifier({ path: join(folder, 'outbox.jsonl'), clock: systemClock }),
        clock: systemClock,
      },
      { config, owner: 'estate-test' },
    );
  } finally {
    await store.close();
    await Promise.all(clients.map((client) => client.close()));
  }
  entries = (await readFile(join(folder, 'outbox.jsonl'), 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as OutboxEntry);
});

afterAll(async () => {
  await atlas?.stop();
  await opsManager?.stop();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe('an estate of three connections and three routes', () => {
  it('polls every source of the three connections, each with its own key', () => {
    expect(summary.totals.sourceErrors, JSON.stringify(summary.sources)).toBe(0);
    expect(summary.sources.map((source) => [source.source, source.connection ?? 'default']).sort()).toEqual(
      [
        [`project:${ids.project}`, 'default'],
        [`project:${ids.secondProject}`, 'default'],
        [`project:${ids.foreignProject}`, 'subsidiary'],
        [`project:${OPS_PROJECT}`, 'data-centre'],
      ].sort(),
    );
    const connections = new Set(entries.map((entry) => entry.MessageAttributes.connection?.StringValue));
    expect(connections).toEqual(new Set(['default', 'subsidiary', 'data-centre']));
  });

  it('delivers each alert to exactly the routes whose match it meets, every route taking some and one alert none', () => {
    const reached = new Map<string, number>();
    let unrouted = 0;
    for (const entry of entries) {
      expect(validateSnsEntry(entry)).toEqual({ valid: true });
      const decided = routeAlert(routes, entry.MessageAttributes).map((decision) => decision.route);
      expect(decided, entry.Subject).toEqual(expectedRoutes(entry.MessageAttributes));
      for (const route of decided) reached.set(route, (reached.get(route) ?? 0) + 1);
      if (decided.length === 0) unrouted += 1;
    }
    expect([...reached.keys()].sort()).toEqual(['data-centre', 'payments', 'security']);
    expect(unrouted).toBeGreaterThan(0);
  });

  it("decides the same through each destination's subscription filter policy, as the stack writes them", () => {
    const plan = planRoutes(routes);
    expect(plan.problems).toEqual([]);
    for (const entry of entries) {
      const expected = expectedRoutes(entry.MessageAttributes);
      for (const destination of plan.destinations) {
        expect(filterPolicyMatches(destination.filterPolicy, entry.MessageAttributes), entry.Subject).toBe(
          destination.routes.some((route) => expected.includes(route)),
        );
      }
    }
  });
});
