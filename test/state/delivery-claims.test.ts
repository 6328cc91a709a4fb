import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStateTable,
  type DeliveryClaimStore,
  DynamoDbStateStore,
  FileStateStore,
  PUSH_KEY_PREFIX,
} from '../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { ManualClock } from './manual-clock.js';

const HOUR = 3_600_000;
const folder = mkdtempSync(join(tmpdir(), 'delivery-claims-'));
let client: DynamoDBClient;
const tableName = `claims-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

type Open = (clock: ManualClock) => Promise<DeliveryClaimStore & { close(): Promise<void> }>;

const stores: Array<[string, Open]> = [
  ['DynamoDbStateStore', async (clock) => new DynamoDbStateStore({ client, tableName, clock })],
  ['FileStateStore', (clock) => FileStateStore.open({ path: join(folder, `${randomUUID()}.json`), clock })],
];

describe.each(stores)('%s delivery claims', (_name, open) => {
  it('takes a key once while its claim lives, and again once it has expired', async () => {
    const clock = new ManualClock();
    const store = await open(clock);
    const key = `default#${randomUUID()}#alert.inform#2025-06-01T12:00:00Z`;

    const first = await store.claimDelivery({ key, holdMs: HOUR });
    const replay = await store.claimDelivery({ key, holdMs: HOUR });
    clock.advance(HOUR - 1_000);
    const late = await store.claimDelivery({ key, holdMs: HOUR });
    clock.advance(1_000);
    const afterExpiry = await store.claimDelivery({ key, holdMs: HOUR });
    await store.close();

    expect(first).toMatchObject({ key, expiresAt: clock.now() });
    expect(replay).toBeUndefined();
    expect(late).toBeUndefined();
    expect(afterExpiry?.token).toEqual(expect.any(String));
    expect(afterExpiry?.token).not.toBe(first?.token);
  });

  it('keeps different keys apart', async () => {
    const store = await open(new ManualClock());
    const id = randomUUID();

    const open1 = await store.claimDelivery({ key: `default#${id}#alert.open#t1`, holdMs: HOUR });
    const close1 = await store.claimDelivery({ key: `default#${id}#alert.close#t1`, holdMs: HOUR });
    const open2 = await store.claimDelivery({ key: `default#${id}#alert.open#t2`, holdMs: HOUR });
    await store.close();

    expect([open1, close1, open2].every((claim) => claim !== undefined)).toBe(true);
  });

  it('frees a released claim at once, and leaves a claim taken over by another alone', async () => {
    const clock = new ManualClock();
    const store = await open(clock);
    const key = `prod#${randomUUID()}#alert.inform#t`;
    const first = await store.claimDelivery({ key, holdMs: 1_000 });
    if (first === undefined) throw new Error('expected a claim');

    await store.releaseDelivery(first);
    const again = await store.claimDelivery({ key, holdMs: 1_000 });
    clock.advance(1_000);
    const third = await store.claimDelivery({ key, holdMs: HOUR });
    if (again === undefined) throw new Error('expected a claim');
    await store.releaseDelivery(again);
    const replay = await store.claimDelivery({ key, holdMs: HOUR });
    await store.close();

    expect(third).toBeDefined();
    expect(replay).toBeUndefined();
  });

  it('takes exactly one of many concurrent claims of one key', async () => {
    const store = await open(new ManualClock());
    const key = `default#${randomUUID()}#alert.inform#t`;

    const claims = await Promise.all(
      Array.from({ length: 20 }, () => store.claimDelivery({ key, holdMs: HOUR })),
    );
    await store.close();

    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });
});

describe('DynamoDbStateStore delivery claims', () => {
  it('are items under the push prefix with a TTL, which the receiver role alone may write', async () => {
    const clock = new ManualClock();
    const store = new DynamoDbStateStore({ client, tableName, clock });
    const key = `default#${randomUUID()}#alert.inform#t`;

    const claim = await store.claimDelivery({ key, holdMs: HOUR });
    const item = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `${PUSH_KEY_PREFIX}${key}` }, sk: { S: 'PUSH' } },
      }),
    );

    expect(item.Item?.expiresAt?.N).toBe(String((claim?.expiresAt ?? 0) / 1000));
    expect(store.stats().requests).toEqual({ PutItem: 1 });
  });
});

describe('FileStateStore delivery claims', () => {
  it('survive reopening the file, and only live ones are written', async () => {
    const clock = new ManualClock();
    const path = join(folder, `${randomUUID()}.json`);
    const first = await FileStateStore.open({ path, clock });
    await first.claimDelivery({ key: 'default#a#alert.open#t', holdMs: HOUR });
    await first.claimDelivery({ key: 'default#b#alert.open#t', holdMs: 1_000 });
    await first.close();
    clock.advance(2_000);

    const second = await FileStateStore.open({ path, clock });
    const replay = await second.claimDelivery({ key: 'default#a#alert.open#t', holdMs: HOUR });
    const expired = await second.claimDelivery({ key: 'default#b#alert.open#t', holdMs: 1_000 });
    clock.advance(2_000);
    await second.claimDelivery({ key: 'default#c#alert.open#t', holdMs: HOUR });
    await second.close();
    const document = JSON.parse(readFileSync(path, 'utf8')) as { deliveries: Array<{ key: string }> };

    expect(replay).toBeUndefined();
    expect(expired).toBeDefined();
    expect(document.deliveries.map((record) => record.key).sort()).toEqual([
      'default#a#alert.open#t',
      'default#c#alert.open#t',
    ]);
  });
});
