import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AttributeValue, BatchWriteItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondTickEvents } from '../../cli/demo-scenario.js';
import { AtlasClient, type AtlasEvent } from '../../shared/atlas/index.js';
import { DiscoveryCache, NameCache, pollerConfigSchema, runTick } from '../../shared/poll/index.js';
import { createRuleEngine } from '../../shared/rules/index.js';
import {
  createStateTable,
  DynamoDbStateStore,
  FileStateStore,
  type StateStore,
} from '../../shared/state/index.js';
import { type SeedData, startSimulator } from '../../simulator/index.js';
import { defaultRulePack } from '../poll/support/poll-fixture.js';
import { RecordingNotifier } from '../poll/support/recording-notifier.js';
import { TestClock } from '../poll/support/test-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

/**
 * State written by version 0.1.0 after one tick of the simulator's default seed (73 events, 64
 * alerts), kept as it was: the state file, and the items of the DynamoDB table as a Scan returned
 * them. The next tick of today's code must read it as its own: nothing alerted again, nothing missed.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/upgrade-0.1.0/', import.meta.url));
const MINUTE = 60_000;

interface FixtureRun {
  simulatorStartedAt: string;
  file: { finishedAt: string };
  dynamodb: { finishedAt: string };
}

let client: DynamoDBClient | undefined;
beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
});
afterAll(() => {
  client?.destroy();
});

async function fixtureJson<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(FIXTURE, name), 'utf8')) as T;
}

/** The file store over a copy of the state file 0.1.0 wrote. */
async function legacyFileStore(folder: string, clock: TestClock): Promise<StateStore> {
  const path = join(folder, 'state.json');
  await copyFile(join(FIXTURE, 'state.json'), path);
  return FileStateStore.open({ path, clock });
}

/** A DynamoDB table holding the items 0.1.0 wrote, as they were. */
async function legacyDynamoDbStore(clock: TestClock): Promise<StateStore> {
  if (client === undefined) throw new Error('DynamoDB Local is not started');
  const tableName = `upgrade-${Math.random().toString(36).slice(2)}`;
  await createStateTable({ client, tableName, timeToLive: false });
  const items = (await fixtureJson<Record<string, unknown>[]>('dynamodb-items.json')).map((item) =>
    Object.fromEntries(Object.entries(item).map(([name, value]) => [name, attributeValue(value)])),
  );
  for (let start = 0; start < items.length; start += 25) {
    let unprocessed: Record<string, { PutRequest: { Item: Record<string, AttributeValue> } }[]> | undefined =
      {
        [tableName]: items.slice(start, start + 25).map((item) => ({ PutRequest: { Item: item } })),
      };
    while (unprocessed !== undefined && Object.keys(unprocessed).length > 0) {
      const answer = await client.send(new BatchWriteItemCommand({ RequestItems: unprocessed }));
      unprocessed = answer.UnprocessedItems as typeof unprocessed;
    }
  }
  return new DynamoDbStateStore({ client, tableName, clock });
}

/**
 * An attribute as the Scan wrote it to JSON, read back: binary values (the cursor's seen ids) were
 * written as objects of byte by index.
 */
function attributeValue(value: unknown): AttributeValue {
  const attribute = value as Record<string, unknown>;
  if (typeof attribute.B === 'object' && attribute.B !== null) {
    const bytes = attribute.B as Record<string, number>;
    return { B: Uint8Array.from(Object.keys(bytes).map((index) => bytes[index] ?? 0)) };
  }
  if (Array.isArray(attribute.L)) return { L: attribute.L.map(attributeValue) };
  if (typeof attribute.M === 'object' && attribute.M !== null) {
    return {
      M: Object.fromEntries(
        Object.entries(attribute.M as Record<string, unknown>).map(([name, item]) => [
          name,
          attributeValue(item),
        ]),
      ),
    };
  }
  return attribute as unknown as AttributeValue;
}

describe.each([
  { kind: 'file' as const, name: 'the state file' },
  { kind: 'dynamodb' as const, name: 'the DynamoDB table' },
])('upgrading from 0.1.0 with $name', ({ kind }) => {
  it('alerts on the new events only, and reads every one of them', async () => {
    // Prepare: the simulator as 0.1.0's tick saw it (its seed, started at the same instant, gives
    // the same event ids), the state it left, and five minutes later three new events.
    const run = await fixtureJson<FixtureRun>('run.json');
    const seed = await fixtureJson<SeedData>('seed.json');
    const clock = new TestClock(Date.parse(run.simulatorStartedAt));
    const sim = await startSimulator({ clock, seed });
    const folder = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-upgrade-'));
    const store = kind === 'file' ? await legacyFileStore(folder, clock) : await legacyDynamoDbStore(clock);
    const atlas = new AtlasClient({
      baseUrl: sim.baseUrl,
      flavor: 'atlas-v2',
      credentials: { kind: 'digest', ...sim.credentials },
      clock,
    });
    try {
      const firstTickAt = Date.parse(run[kind].finishedAt);
      clock.advance(firstTickAt + 5 * MINUTE - clock.now());
      const added: AtlasEvent[] = secondTickEvents({ sim, firstTickAt, secondTickAt: clock.now() }).map(
        ({ scope, event }) => sim.addEvent(scope, event),
      );
      const pack = await defaultRulePack();
      const notifier = new RecordingNotifier();
      const config = pollerConfigSchema.parse({
        atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
        sources: { orgIds: [...sim.orgIds], allProjectsOfOrgs: true },
        timing: { inventoryIntervalSeconds: 300 },
      });

      // Act
      const summary = await runTick(
        {
          atlas,
          store,
          engine: createRuleEngine({ pack, counters: store, firstSeen: store, clock }),
          notifier,
          clock,
          discoveryCache: new DiscoveryCache(),
          names: new NameCache(),
        },
        { config, owner: 'upgraded' },
      );

      // Assess: every source polled from its cursor, the three new events read as new and the others
      // as read before; each alert about a new event, and the inventory (read again) unchanged.
      expect(summary.sources.map((outcome) => outcome.status)).toEqual(Array(7).fill('ok'));
      expect(summary.totals.eventsNew).toBe(added.length);
      const addedIds = new Set(added.map((event) => event.id));
      const delivered = notifier.delivered;
      expect(
        delivered.flatMap((alert) => alert.events.map((event) => event.id)).every((id) => addedIds.has(id)),
      ).toBe(true);
      expect(delivered.map((alert) => alert.ruleId).sort()).toEqual([
        'data-explorer-destructive-write',
        'data-explorer-first-use',
        'database-user-created',
        'network-access-open-to-internet',
      ]);
    } finally {
      await atlas.close();
      await store.close();
      await sim.stop();
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
