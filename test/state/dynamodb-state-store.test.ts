import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStateTable,
  DynamoDbStateStore,
  type DynamoDbStateStoreOptions,
  LeaseLostError,
  MAX_SEEN_IDS_PER_ITEM,
  type StateStore,
  StateStoreRequestError,
  stateTableSchema,
} from '../../shared/state/index.js';
import { createDynamoDbLocalClient, freePort } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { ManualClock } from './manual-clock.js';
import { atlasId, describeStateStoreContract } from './state-store.contract.js';
import { describeSuppressionContract } from './suppression.contract.js';

const MINUTE = 60_000;

let endpoint: string;
let client: DynamoDBClient;
const tableName = `state-${randomUUID()}`;

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  client = createDynamoDbLocalClient(endpoint);
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
});

function newStore(options: Partial<DynamoDbStateStoreOptions> = {}): DynamoDbStateStore {
  return new DynamoDbStateStore({ client, tableName, clock: new ManualClock(), ...options });
}

async function acquire(store: StateStore, source: string, owner = 'worker-a') {
  const acquisition = await store.acquireLease({ source, owner, durationMs: 5 * MINUTE });
  if (!acquisition.acquired) throw new Error(`expected to acquire ${source}`);
  return acquisition;
}

/** Sort keys of the items in a source's partition. */
async function sortKeysOf(source: string): Promise<string[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: `SOURCE#${source}` } },
      ProjectionExpression: 'sk',
    }),
  );
  return (output.Items ?? []).map((item) => item.sk?.S ?? '');
}

// Small limits, so that the contract's large cursors and inventories take the spill path.
describeStateStoreContract('DynamoDbStateStore', async ({ clock }) =>
  newStore({ clock, maxSeenIdsPerItem: 1_000, maxInventoryBytesPerItem: 4_000 }),
);

describeSuppressionContract('DynamoDbStateStore', {
  create: ({ clock }) => Promise.resolve(newStore({ clock })),
  reopen: (_store, { clock }) => Promise.resolve(newStore({ clock })),
});

describe('DynamoDbStateStore suppressions in batches', () => {
  const start = Date.UTC(2025, 5, 1, 12, 0, 0);
  const step = (key: string, member: string, offset: number) => ({
    key,
    member,
    now: start + offset,
    expiresAt: start + offset + 60 * MINUTE,
  });

  it('writes 150 keys in two transactions after two batched reads', async () => {
    const store = newStore({ clock: new ManualClock(start) });
    const keys = Array.from({ length: 150 }, () => `suppress|rule|${randomUUID()}`);
    store.resetStats();

    await store.suppressMany(keys.flatMap((key) => [step(key, 'event:a', 0), step(key, 'event:b', MINUTE)]));

    expect(store.stats().requests).toEqual({ BatchGetItem: 2, TransactWriteItems: 2 });
  });

  it('loses no count when two stores write the same keys at once', async () => {
    // Prepare: each store sees one first occurrence and one repeat of each key, at the same time.
    const keys = Array.from({ length: 120 }, () => `suppress|rule|${randomUUID()}`);
    const left = newStore({ clock: new ManualClock(start) });
    const right = newStore({ clock: new ManualClock(start) });

    // Act
    const [fromLeft, fromRight] = await Promise.all([
      left.suppressMany(keys.flatMap((key) => [step(key, 'event:l1', 0), step(key, 'event:l2', MINUTE)])),
      right.suppressMany(
        keys.flatMap((key) => [step(key, 'event:r1', 0), step(key, 'event:r2', 2 * MINUTE)]),
      ),
    ]);
    const next = await left.suppressMany(keys.map((key) => step(key, 'event:n', 61 * MINUTE)));

    // Assess: one first occurrence alerted per key; the next period carries the three others.
    const alerted = keys.map((_, at) =>
      [fromLeft[2 * at], fromRight[2 * at]].filter((answer) => answer?.alerts),
    );
    expect(alerted.every((answers) => answers.length === 1)).toBe(true);
    expect(next.map((answer) => answer.rollUp?.suppressed)).toEqual(keys.map(() => 3));
  });
});

describe('DynamoDbStateStore requests', () => {
  it('begins and commits a tick in two requests, with 0 or 10,000 new seen ids', async () => {
    const store = newStore();
    const source = `project:${randomUUID()}`;
    const first = await acquire(store, source);
    await store.commitCursor({ lease: first.lease, watermark: 1, seenIds: [] });
    const measure = async (newIds: number): Promise<Record<string, number>> => {
      store.resetStats();
      const held = await acquire(store, source);
      const seenIds = [...(held.cursor?.seenIds ?? []), ...Array.from({ length: newIds }, atlasId)];
      await store.commitCursor({ lease: held.lease, watermark: 2, seenIds });
      return { ...store.stats().requests, total: store.stats().total };
    };

    const idle = await measure(0);
    const busy = await measure(10_000);
    const afterBusy = await measure(0);

    console.log(
      'DynamoDB requests for begin + commit of one source:\n' +
        `  0 new seen ids:                        ${JSON.stringify(idle)}\n` +
        `  10,000 new seen ids:                   ${JSON.stringify(busy)}\n` +
        `  0 new, 10,000 carried in the overlap: ${JSON.stringify(afterBusy)}`,
    );
    expect(idle).toEqual({ UpdateItem: 2, total: 2 });
    expect(busy).toEqual({ UpdateItem: 2, total: 2 });
    expect(afterBusy).toEqual({ UpdateItem: 2, total: 2 });
  });

  it('claims and marks 250 alerts in three transactions each, and reads 250 source times in three batches', async () => {
    // Prepare
    const store = newStore();
    const fingerprints = Array.from({ length: 250 }, () => `rule|${randomUUID()}`);
    const sources = Array.from({ length: 250 }, () => `project:${randomUUID()}`);

    // Act
    store.resetStats();
    const results = await store.claimAlerts({ fingerprints, claimMs: MINUTE });
    const claims = results.flatMap((result) => (result.outcome === 'claimed' ? [result.claim] : []));
    const afterClaims = store.stats().requests;
    store.resetStats();
    await store.markAlertsSent({ claims });
    const afterMarks = store.stats().requests;
    store.resetStats();
    await store.readSourceTimes({ sources });
    const afterTimes = store.stats().requests;

    // Assess
    expect(claims).toHaveLength(250);
    expect(afterClaims).toEqual({ TransactWriteItems: 3 });
    expect(afterMarks).toEqual({ TransactWriteItems: 3 });
    expect(afterTimes).toEqual({ BatchGetItem: 3 });
  });

  it('answers increments of a full, live counter without a request, and asks again once its window ends', async () => {
    // Prepare: a counter of at most 3 members, filled by another instance and by this one.
    const store = newStore();
    const key = `rule|${randomUUID()}`;
    const window = { now: 1_000, expiresAt: 61_000, limit: 3 };
    await newStore().increment(key, 'a', window);
    await newStore().increment(key, 'b', window);

    // Act
    store.resetStats();
    const filling = await store.increment(key, 'c', window);
    const fillingRequests = store.stats().requests;
    store.resetStats();
    const past = await store.incrementMany([
      { key, member: 'd', ...window, now: 30_000 },
      { key, member: 'a', ...window, now: 30_000 },
      { key, member: 'e', ...window, now: 60_999 },
    ]);
    const pastRequests = store.stats().total;
    const nextWindow = await store.increment(key, 'd', { ...window, now: 61_000, expiresAt: 121_000 });

    // Assess
    expect(filling).toBe(3);
    expect(fillingRequests).toEqual({ BatchGetItem: 1, UpdateItem: 1 });
    expect(past).toEqual([4, 3, 4]);
    expect(pastRequests).toBe(0);
    expect(nextWindow).toBe(1);
    expect(store.stats().total).toBe(2);
  });

  it('counts a batch over many keys with one read per 100 keys and one write per key that changed', async () => {
    // Prepare: 150 keys, each with three increments, and one key already holding its members.
    const store = newStore();
    const prefix = `rule|${randomUUID()}`;
    const window = { now: 0, expiresAt: Date.UTC(2030, 0, 1), limit: 3 };
    const known = `${prefix}|known`;
    await store.incrementMany(['a', 'b'].map((member) => ({ key: known, member, ...window })));
    const increments = Array.from({ length: 150 }, (_, index) =>
      ['a', 'b', 'a'].map((member) => ({ key: `${prefix}|${index}`, member, ...window })),
    ).flat();

    // Act
    store.resetStats();
    const counts = await store.incrementMany([
      ...increments,
      { key: known, member: 'b', ...window },
      { key: known, member: 'a', ...window },
    ]);

    // Assess
    expect(counts).toEqual([...Array.from({ length: 150 }, () => [1, 2, 2]).flat(), 2, 2]);
    expect(store.stats()).toEqual({ requests: { BatchGetItem: 2, UpdateItem: 150 }, total: 152 });
    expect(await store.get(`${prefix}|149`, 0)).toBe(2);
  });

  it('does not write again a counter whose window is past its threshold, even from another instance', async () => {
    // Prepare: a threshold window filled to its count of 3 by one instance.
    const window = { now: 0, expiresAt: Date.UTC(2030, 0, 1), limit: 3 };
    const key = `threshold|${randomUUID()}`;
    await newStore().incrementMany(['a', 'b', 'c'].map((member) => ({ key, member, ...window })));
    const store = newStore();

    // Act: later events of the window, read by an instance that has not seen the set.
    const firstBatch = await store.incrementMany(
      ['d', 'e', 'a'].map((member) => ({ key, member, ...window })),
    );
    const firstRequests = store.stats().requests;
    store.resetStats();
    const secondBatch = await store.incrementMany(['f', 'b'].map((member) => ({ key, member, ...window })));

    // Assess
    expect(firstBatch).toEqual([4, 4, 3]);
    expect(firstRequests).toEqual({ BatchGetItem: 1 });
    expect(secondBatch).toEqual([4, 3]);
    expect(store.stats().total).toBe(0);
  });

  it('applies a batch again to a counter another writer changed between its read and its write', async () => {
    // Prepare: a client that lets another instance add members just before this one's first write.
    const racing = createDynamoDbLocalClient(endpoint);
    const key = `threshold|${randomUUID()}`;
    const window = { now: 0, expiresAt: Date.UTC(2030, 0, 1), limit: 4 };
    let raced = false;
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand' && !raced) {
          raced = true;
          await newStore().incrementMany(['x', 'y', 'z'].map((member) => ({ key, member, ...window })));
        }
        return next(args);
      },
      { step: 'initialize', name: 'raceAnotherWriter' },
    );
    const store = new DynamoDbStateStore({ client: racing, tableName, clock: new ManualClock() });

    // Act
    const counts = await store.incrementMany(['a', 'b', 'x'].map((member) => ({ key, member, ...window })));

    // Assess: as if the other writer's members had been there first.
    expect(raced).toBe(true);
    expect(counts).toEqual([4, 5, 4]);
    expect(store.stats().requests).toEqual({ BatchGetItem: 1, UpdateItem: 2 });
    expect(await store.get(key, 0)).toBe(4);
    racing.destroy();
  });

  it('never lets two instances counting the same keys at once store more than the limit', async () => {
    // Prepare: two instances, each with its own members for the same five keys.
    const prefix = `threshold|${randomUUID()}`;
    const window = { now: 0, expiresAt: Date.UTC(2030, 0, 1), limit: 6 };
    const batchOf = (owner: string) =>
      Array.from({ length: 5 }, (_, key) =>
        Array.from({ length: 5 }, (_, member) => ({
          key: `${prefix}|${key}`,
          member: `${owner}${member}`,
          ...window,
        })),
      ).flat();

    // Act
    const [left, right] = await Promise.all([
      newStore().incrementMany(batchOf('l')),
      newStore().incrementMany(batchOf('r')),
    ]);

    // Assess: each key holds 6 members, and exactly 6 increments of each key were counted.
    for (let key = 0; key < 5; key += 1) {
      const answers = [...left.slice(key * 5, key * 5 + 5), ...right.slice(key * 5, key * 5 + 5)];
      expect(await newStore().get(`${prefix}|${key}`, 0)).toBe(6);
      expect(answers.filter((count) => count <= 6)).toHaveLength(6);
      expect(answers.filter((count) => count === 7)).toHaveLength(4);
    }
  });

  it('counts on a counter written before revisions, guarded by its size', async () => {
    // Prepare: a counter item as an earlier version wrote it, with no revision.
    const key = `threshold|${randomUUID()}`;
    const window = { now: 0, expiresAt: Date.UTC(2030, 0, 1), limit: 5 };
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: `COUNTER#${key}` },
          sk: { S: 'COUNTER' },
          members: { SS: ['a', 'b'] },
          windowExpiresAt: { N: String(window.expiresAt) },
          expiresAt: { N: String(Math.ceil(window.expiresAt / 1000) + 86_400) },
        },
      }),
    );

    // Act
    const counts = await newStore().incrementMany(['c', 'a'].map((member) => ({ key, member, ...window })));

    // Assess
    const stored = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `COUNTER#${key}` }, sk: { S: 'COUNTER' } },
      }),
    );
    expect(counts).toEqual([3, 3]);
    expect(stored.Item?.members?.SS?.sort()).toEqual(['a', 'b', 'c']);
    expect(stored.Item?.revision?.N).toBe('1');
  });

  it('creates missing cursors with one request each, and none for a source it knows has a cursor', async () => {
    // Prepare: a cursor committed through another instance, which this one has never seen.
    const store = newStore();
    const elsewhere = `project:${randomUUID()}`;
    const writer = newStore();
    const held = await acquire(writer, elsewhere);
    await writer.commitCursor({ lease: held.lease, watermark: 50, seenIds: [] });
    const fresh = `project:${randomUUID()}`;
    store.resetStats();

    // Act
    const created = await store.createMissingCursors({
      cursors: [
        { source: fresh, watermark: 10 },
        { source: elsewhere, watermark: 20 },
      ],
    });
    const firstCall = store.stats().total;
    store.resetStats();
    const again = await store.createMissingCursors({
      cursors: [
        { source: fresh, watermark: 30 },
        { source: elsewhere, watermark: 40 },
      ],
    });

    // Assess
    expect(created).toEqual([fresh]);
    expect(firstCall).toBe(2);
    expect(again).toEqual([]);
    expect(store.stats().total).toBe(0);
    expect((await acquire(store, elsewhere)).cursor?.watermark).toBe(50);
  });

  it('keeps 30,000 seen ids in the source item and spills the next one into a chunk item', async () => {
    const store = newStore();
    const source = `project:${randomUUID()}`;
    const ids = Array.from({ length: MAX_SEEN_IDS_PER_ITEM + 1 }, atlasId);
    const first = await acquire(store, source);
    store.resetStats();

    await store.commitCursor({
      lease: first.lease,
      watermark: 1,
      seenIds: ids.slice(0, MAX_SEEN_IDS_PER_ITEM),
    });
    const fits = store.stats().requests;
    const second = await acquire(store, source);
    store.resetStats();
    await store.commitCursor({ lease: second.lease, watermark: 2, seenIds: ids });
    const spills = store.stats().requests;
    const keysWhileSpilled = await sortKeysOf(source);
    const third = await acquire(store, source);

    expect(fits).toEqual({ UpdateItem: 1 });
    expect(spills).toEqual({ PutItem: 1, UpdateItem: 1 });
    expect(keysWhileSpilled).toHaveLength(2);
    expect(keysWhileSpilled).toContainEqual(expect.stringMatching(/^CURSOR#SEEN#[0-9a-f]+#000001$/));
    expect(third.cursor?.seenIds.size).toBe(MAX_SEEN_IDS_PER_ITEM + 1);
    expect(third.cursor?.seenIds.has(ids[MAX_SEEN_IDS_PER_ITEM] ?? '')).toBe(true);
    await store.commitCursor({ lease: third.lease, watermark: 3, seenIds: ids.slice(0, 10) });
    expect(await sortKeysOf(source)).toEqual(['CURSOR']);
  });

  it('deletes the chunks it wrote for a commit that lost its lease', async () => {
    const clock = new ManualClock();
    const store = newStore({ clock, maxSeenIdsPerItem: 10 });
    const source = `project:${randomUUID()}`;
    const stale = await acquire(store, source, 'worker-a');
    clock.advance(6 * MINUTE);
    const fresh = await acquire(store, source, 'worker-b');

    const commit = store.commitCursor({
      lease: stale.lease,
      watermark: 5,
      seenIds: Array.from({ length: 35 }, atlasId),
    });

    await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
    expect(await sortKeysOf(source)).toEqual(['CURSOR']);
    await store.releaseLease({ lease: fresh.lease });
  });

  it('claims an alert, and learns why a claim failed, in one request each', async () => {
    const store = newStore();
    const fingerprint = `rule|${randomUUID()}`;

    await store.claimAlert({ fingerprint, claimMs: MINUTE });
    const claimRequests = store.stats().total;
    const second = await store.claimAlert({ fingerprint, claimMs: MINUTE });

    expect(claimRequests).toBe(1);
    expect(second.outcome).toBe('in-progress');
    expect(store.stats()).toEqual({ requests: { PutItem: 2 }, total: 2 });
  });

  it('counts only its own requests when it shares a client', async () => {
    const counted = newStore();
    const other = newStore();

    await other.get(`rule|${randomUUID()}`, 0);
    await counted.get(`rule|${randomUUID()}`, 0);

    expect(counted.stats()).toEqual({ requests: { GetItem: 1 }, total: 1 });
  });

  it("sends its requests past the SDK's request logging, which other commands on the client keep", async () => {
    // Prepare
    const logged: string[] = [];
    const record = (entry: unknown): void => {
      logged.push(String((entry as { commandName?: unknown }).commandName));
    };
    const logging = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
      logger: { debug: () => {}, info: record, warn: () => {}, error: record },
    });
    const store = new DynamoDbStateStore({ client: logging, tableName, clock: new ManualClock() });

    // Act
    await store.get(`rule|${randomUUID()}`, 0);
    await logging.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'x' }, sk: { S: 'y' } } }));
    logging.destroy();

    // Assess
    expect(store.stats()).toEqual({ requests: { GetItem: 1 }, total: 1 });
    expect(logged).toEqual(['GetItemCommand']);
  });
});

describe('DynamoDbStateStore storage', () => {
  it('keeps no privateKey in the table', async () => {
    const store = newStore();
    const orgId = atlasId();
    await store.writeInventory({
      snapshot: {
        orgId,
        takenAt: 1,
        apiKeys: [{ apiKey: { id: atlasId(), privateKey: 'fake-private-key-for-tests' }, accessList: [] }],
      },
    });

    const raw = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `INVENTORY#${orgId}` }, sk: { S: 'SNAPSHOT' } },
      }),
    );

    const stored = gunzipSync(raw.Item?.data?.B ?? new Uint8Array()).toString('utf8');
    expect(stored).toContain(orgId);
    expect(stored).not.toContain('privateKey');
    expect(JSON.stringify(raw.Item)).not.toContain('fake-private-key-for-tests');
  });

  it('stores an inventory of 10,000 keys, spilling past the item limit', async () => {
    const store = newStore();
    const orgId = atlasId();
    const apiKeys = Array.from({ length: 10_000 }, () => ({
      apiKey: { id: atlasId(), desc: `key ${atlasId()}`, roles: [{ orgId, roleName: 'ORG_MEMBER' }] },
      accessList: [{ cidrBlock: '10.1.2.0/24', created: '2025-05-01T00:00:00Z', lastUsedAddress: atlasId() }],
    }));

    const written = await store.writeInventory({ snapshot: { orgId, takenAt: 1, apiKeys } });
    const read = await store.readInventory({ orgId });

    expect(written).toBe(true);
    expect(store.stats().requests.PutItem).toBeGreaterThan(1);
    expect(read?.apiKeys).toHaveLength(10_000);
    expect(read?.apiKeys[9_999]).toEqual(apiKeys[9_999]);
  });

  it('keeps only the chunks of the stored inventory snapshot', async () => {
    const store = newStore({ maxInventoryBytesPerItem: 1_000 });
    const orgId = atlasId();
    const snapshotAt = (takenAt: number) => ({
      orgId,
      takenAt,
      apiKeys: Array.from({ length: 200 }, () => ({
        apiKey: { id: atlasId(), desc: atlasId() },
        accessList: [],
      })),
    });
    await store.writeInventory({ snapshot: snapshotAt(1) });
    const newest = snapshotAt(3);

    await store.writeInventory({ snapshot: newest });
    const refused = await store.writeInventory({ snapshot: snapshotAt(2) });

    const items = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `INVENTORY#${orgId}` } },
        ProjectionExpression: 'sk',
      }),
    );
    const generations = new Set(
      (items.Items ?? []).flatMap((item) => /^SNAPSHOT#([0-9a-f]+)#/.exec(item.sk?.S ?? '')?.slice(1) ?? []),
    );
    expect(refused).toBe(false);
    expect(generations.size).toBe(1);
    expect(await store.readInventory({ orgId })).toEqual(newest);
  });

  it('exports the table layout the store writes', () => {
    expect(stateTableSchema).toEqual({
      partitionKey: 'pk',
      sortKey: 'sk',
      keyType: 'S',
      timeToLiveAttribute: 'expiresAt',
    });
  });
});

describe('DynamoDbStateStore failures', () => {
  it('names the table and says what to do when the table does not exist', async () => {
    const store = newStore({ tableName: 'no-such-table' });

    const acquisition = store.acquireLease({ source: 'org:a', owner: 'worker-a', durationMs: MINUTE });

    await expect(acquisition).rejects.toBeInstanceOf(StateStoreRequestError);
    await expect(acquisition).rejects.toMatchObject({ operation: 'UpdateItem', tableName: 'no-such-table' });
    await expect(acquisition).rejects.toThrow(
      'state table no-such-table does not exist in this account and region',
    );
  });

  it('reports DynamoDB out of reach after the SDK retries, counting every attempt', async () => {
    const unreachable = createDynamoDbLocalClient(`http://127.0.0.1:${await freePort()}`, { maxAttempts: 2 });
    const store = new DynamoDbStateStore({ client: unreachable, tableName, clock: new ManualClock() });

    const read = store.get('rule|a', 0);

    await expect(read).rejects.toThrow(
      `DynamoDB GetItem on state table ${tableName} failed after 2 attempts`,
    );
    expect(store.stats()).toEqual({ requests: { GetItem: 2 }, total: 2 });
    unreachable.destroy();
  });

  it('refuses limits that would let an item pass 400 KB', () => {
    expect(() => newStore({ maxSeenIdsPerItem: MAX_SEEN_IDS_PER_ITEM + 1 })).toThrow(RangeError);
    expect(() => newStore({ maxInventoryBytesPerItem: 0 })).toThrow(RangeError);
  });
});
