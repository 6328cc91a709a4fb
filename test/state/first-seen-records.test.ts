import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FirstSeenRecord } from '../../shared/rules/first-seen-store.js';
import { createStateTable, DynamoDbStateStore, FileStateStore } from '../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { ManualClock } from './manual-clock.js';

const DAY = 24 * 60 * 60 * 1000;

/** 150 groups of two values each, and a learning start: more than one request of each kind. */
function records(now: number): Map<string, FirstSeenRecord> {
  const written = new Map<string, FirstSeenRecord>();
  for (let index = 0; index < 150; index += 1) {
    written.set(`first-seen|rule|group|user${index}`, {
      values: {
        '198.51.100.0/24': { first: now - DAY, last: now, by: 'aaaaaaaaaaaaaaaa' },
        [`#${'h'.repeat(43)}`]: { first: now, last: now, by: 'bbbbbbbbbbbbbbbb' },
      },
      expiresAt: now + 30 * DAY,
    });
  }
  written.set('first-seen|rule|learning', { values: {}, expiresAt: Number.MAX_SAFE_INTEGER, startedAt: now });
  return written;
}

let client: DynamoDBClient;
let directory: string;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  directory = await mkdtemp(join(tmpdir(), 'first-seen-records-'));
});

afterAll(async () => {
  client.destroy();
  await rm(directory, { recursive: true, force: true });
});

describe('DynamoDbStateStore first-seen records', () => {
  it('reads back what it wrote, in two BatchGetItem and two TransactWriteItems for 151 records, and deletes emptied ones', async () => {
    // Prepare
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const tableName = `first-seen-${Math.random().toString(36).slice(2)}`;
    await createStateTable({ client, tableName, timeToLive: false });
    const store = new DynamoDbStateStore({ client, tableName, clock });
    const written = records(clock.now());

    // Act
    await store.writeFirstSeen(written);
    const read = await store.readFirstSeen([...written.keys(), 'first-seen|rule|group|nobody']);
    const requests = store.stats().requests;
    await store.writeFirstSeen(new Map([['first-seen|rule|group|user0', { values: {}, expiresAt: 0 }]]));
    const afterDelete = await store.readFirstSeen([
      'first-seen|rule|group|user0',
      'first-seen|rule|learning',
    ]);

    // Assess
    expect(read).toEqual(written);
    expect(requests).toEqual({ TransactWriteItems: 2, BatchGetItem: 2 });
    expect([...afterDelete.keys()]).toEqual(['first-seen|rule|learning']);
  });

  it('writes again one by one the records of a transaction DynamoDB refuses, so that only the record it refuses fails', async () => {
    // Prepare
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const tableName = `first-seen-${Math.random().toString(36).slice(2)}`;
    await createStateTable({ client, tableName, timeToLive: false });
    const store = new DynamoDbStateStore({ client, tableName, clock });
    const written = records(clock.now());
    // A finite number past DynamoDB's range (about 1e126): nothing but DynamoDB refuses it.
    written.set('first-seen|other|learning', {
      values: {},
      expiresAt: Number.MAX_SAFE_INTEGER,
      startedAt: 1e200,
    });

    // Act
    const failed = await store.writeFirstSeen(written);
    const read = await store.readFirstSeen([...written.keys()]);

    // Assess
    expect([...failed.keys()]).toEqual(['first-seen|other|learning']);
    expect(failed.get('first-seen|other|learning')?.message).toContain('Number overflow');
    written.delete('first-seen|other|learning');
    expect(read).toEqual(written);
  });

  it('treats a record past its TTL as absent, and keeps the learning start', async () => {
    // Prepare
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const tableName = `first-seen-${Math.random().toString(36).slice(2)}`;
    await createStateTable({ client, tableName, timeToLive: false });
    const store = new DynamoDbStateStore({ client, tableName, clock });
    await store.writeFirstSeen(records(clock.now()));

    // Act
    clock.advance(31 * DAY);
    const read = await store.readFirstSeen(['first-seen|rule|group|user1', 'first-seen|rule|learning']);

    // Assess
    expect([...read.keys()]).toEqual(['first-seen|rule|learning']);
  });
});

describe('FileStateStore first-seen records', () => {
  it('keeps them across a reopen of the file, and drops expired ones', async () => {
    // Prepare
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const path = join(directory, 'state.json');
    const written = records(clock.now());
    const first = await FileStateStore.open({ path, clock });
    await first.writeFirstSeen(written);
    await first.close();

    // Act
    const reopened = await FileStateStore.open({ path, clock });
    const read = await reopened.readFirstSeen([...written.keys()]);
    clock.advance(31 * DAY);
    const later = await reopened.readFirstSeen(['first-seen|rule|group|user1', 'first-seen|rule|learning']);
    await reopened.close();

    // Assess
    expect(read).toEqual(written);
    expect([...later.keys()]).toEqual(['first-seen|rule|learning']);
  });
});
