import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import {
  encodeSeenValues,
  type FirstSeenRecord,
  type FirstSeenWriteFailures,
  firstSeenRecordProblem,
  type SeenValue,
} from '../rules/first-seen-store.js';
import { type Item, numberValue, readNumber, readString, stringValue } from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { stateKeys } from './dynamodb-keys.js';
import { type DynamoDbRequester, refusedByDynamoDb, TRANSACTION_ITEMS } from './dynamodb-requester.js';
import { StateItemRefusedError } from './errors.js';
import { firstSeenTtlSeconds, isExpired } from './expiry.js';

/** Items written one at a time at once, when a transaction that carried them was refused. */
const SINGLE_WRITE_CONCURRENCY = 8;

/** What the first-seen reads and writes need of the store. */
export interface FirstSeenTableContext {
  readonly requester: DynamoDbRequester;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Reads first-seen records: strongly consistent `BatchGetItem`s of 100 keys (a batch of events
 * rarely needs more than one), keys DynamoDB leaves unprocessed asked for again after a growing
 * pause. An item past its TTL is absent; an item this program cannot read is logged
 * and read as absent, so the values it held are learnt again.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached or keeps leaving keys unprocessed.
 * @example
 * ```ts
 * const records = await readFirstSeenItems(context, ['first-seen|rule|group|abc']);
 * ```
 */
export async function readFirstSeenItems(
  context: FirstSeenTableContext,
  keys: readonly string[],
): Promise<Map<string, FirstSeenRecord>> {
  const { requester, clock } = context;
  const byPk = new Map<string, string>();
  for (const key of keys) byPk.set(stateKeys.firstSeen(key).pk, key);
  const items = await batchGetAll(requester, clock, {
    keys: [...byPk.keys()].map((pk): Item => ({ pk: stringValue(pk), sk: stringValue('FIRSTSEEN') })),
    projection: {
      expression: '#pk, #seen, #windowExpiresAt, #startedAt, #expiresAt',
      names: {
        '#pk': 'pk',
        '#seen': 'seen',
        '#windowExpiresAt': 'windowExpiresAt',
        '#startedAt': 'startedAt',
        '#expiresAt': 'expiresAt',
      },
    },
    consistent: true,
    what: 'first-seen items',
  });
  const found = new Map<string, FirstSeenRecord>();
  const wallNow = clock.now();
  for (const item of items) {
    const key = byPk.get(readString(item, 'pk') ?? '');
    if (key === undefined) continue;
    const record = recordOf(context, key, item, wallNow);
    if (record !== undefined) found.set(key, record);
  }
  return found;
}

/**
 * Writes first-seen records: `TransactWriteItems` of up to 100 plain puts (a record with no value
 * and no learning start is deleted instead), each record one item with its values as compact JSON.
 * Transactions need no IAM action beyond `PutItem` and `DeleteItem`, and carry 100 items a request
 * where `BatchWriteItem` carries 25.
 *
 * One record never costs the others: a record no store can hold (`firstSeenRecordProblem`), or
 * whose item would pass DynamoDB's 400 KB, is not sent; a transaction DynamoDB refuses
 * (`ValidationException`) or cancels (a concurrent write to one of its items) is written again item
 * by item, and an item DynamoDB refuses then fails alone. Those records are returned, with why.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached: which records were written is then
 *   unknown, and the batch is evaluated again.
 * @example
 * ```ts
 * const failed = await writeFirstSeenItems(context, new Map([[key, { values: {}, expiresAt: 0, startedAt: 0 }]]));
 * ```
 */
export async function writeFirstSeenItems(
  context: FirstSeenTableContext,
  records: ReadonlyMap<string, FirstSeenRecord>,
): Promise<FirstSeenWriteFailures> {
  const { requester, clock } = context;
  const wallNow = clock.now();
  const failures = new Map<string, Error>();
  const writes: Array<{ key: string; write: TransactWriteItem }> = [];
  for (const [key, record] of records) {
    try {
      writes.push({ key, write: firstSeenWrite(requester, key, record, wallNow) });
    } catch (error) {
      if (!(error instanceof StateItemRefusedError)) throw error;
      failures.set(key, error);
    }
  }
  for (let at = 0; at < writes.length; at += TRANSACTION_ITEMS) {
    const batch = writes.slice(at, at + TRANSACTION_ITEMS);
    try {
      const reasons = await requester.transactWriteItems(batch.map(({ write }) => write));
      if (reasons === undefined) continue;
    } catch (error) {
      if (!refusedByDynamoDb(error)) throw error;
    }
    await mapWithConcurrency(batch, SINGLE_WRITE_CONCURRENCY, async ({ key, write }) => {
      try {
        if (write.Put !== undefined) await requester.putItem({ Item: write.Put.Item });
        else if (write.Delete !== undefined) await requester.deleteItem({ Key: write.Delete.Key });
      } catch (error) {
        if (!refusedByDynamoDb(error)) throw error;
        failures.set(key, error as Error);
      }
    });
  }
  return failures;
}

/**
 * The write of one record: a put of its item, or a delete for a record with nothing to keep.
 *
 * @throws StateItemRefusedError when no store can hold the record, or its item is larger than
 *   DynamoDB takes.
 */
function firstSeenWrite(
  requester: DynamoDbRequester,
  key: string,
  record: FirstSeenRecord,
  wallNow: number,
): TransactWriteItem {
  const itemKey = stateKeys.firstSeen(key);
  const keyItem = { pk: stringValue(itemKey.pk), sk: stringValue(itemKey.sk) };
  if (Object.keys(record.values).length === 0 && record.startedAt === undefined) {
    return { Delete: { TableName: requester.tableName, Key: keyItem } };
  }
  const seen = encodeSeenValues(record.values);
  const problem = firstSeenRecordProblem(record, seen);
  if (problem !== undefined) {
    throw new StateItemRefusedError(
      `first-seen item ${itemKey.pk} of table ${requester.tableName} would hold ${problem}: it was not written`,
      { pk: itemKey.pk },
    );
  }
  const ttl = firstSeenTtlSeconds(record.expiresAt, wallNow);
  const item: Item = {
    ...keyItem,
    seen: stringValue(seen),
    windowExpiresAt: numberValue(Math.min(record.expiresAt, Number.MAX_SAFE_INTEGER)),
  };
  if (record.startedAt !== undefined) item.startedAt = numberValue(record.startedAt);
  if (ttl !== undefined) item.expiresAt = numberValue(ttl);
  requester.assertFits(item);
  return { Put: { TableName: requester.tableName, Item: item } };
}

function recordOf(
  context: FirstSeenTableContext,
  key: string,
  item: Item,
  wallNow: number,
): FirstSeenRecord | undefined {
  try {
    if (isExpired(readNumber(item, 'expiresAt'), wallNow)) return undefined;
    const expiresAt = readNumber(item, 'windowExpiresAt') ?? 0;
    const startedAt = readNumber(item, 'startedAt');
    const values = parseValues(readString(item, 'seen') ?? '[]');
    if (values === undefined) throw new Error('its seen values are not a list of [value, first, last, by]');
    return startedAt === undefined ? { values, expiresAt } : { values, expiresAt, startedAt };
  } catch (error) {
    context.logger.warn('A first-seen item of the state table cannot be read: its values are learnt again', {
      key,
      reason: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

function parseValues(text: string): Record<string, SeenValue> | undefined {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) return undefined;
  const values: Record<string, SeenValue> = {};
  for (const entry of parsed) {
    if (!Array.isArray(entry) || entry.length !== 4) return undefined;
    const [value, first, last, by] = entry as unknown[];
    if (
      typeof value !== 'string' ||
      typeof first !== 'number' ||
      typeof last !== 'number' ||
      typeof by !== 'string'
    ) {
      return undefined;
    }
    values[value] = { first, last, by };
  }
  return values;
}
