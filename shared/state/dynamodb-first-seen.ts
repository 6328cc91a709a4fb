import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { FirstSeenRecord, SeenValue } from '../rules/first-seen-store.js';
import { type Item, numberValue, readNumber, readString, stringValue } from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { stateKeys } from './dynamodb-keys.js';
import { type DynamoDbRequester, TRANSACTION_ITEMS } from './dynamodb-requester.js';
import { StateConflictError } from './errors.js';
import { firstSeenTtlSeconds, isExpired } from './expiry.js';

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
 * @throws StateStoreRequestError when DynamoDB cannot be reached.
 * @throws StateConflictError when DynamoDB cancelled a transaction (a concurrent transaction on the
 *   same items): the batch is evaluated again.
 * @example
 * ```ts
 * await writeFirstSeenItems(context, new Map([[key, { values: {}, expiresAt: 0, startedAt: 0 }]]));
 * ```
 */
export async function writeFirstSeenItems(
  context: FirstSeenTableContext,
  records: ReadonlyMap<string, FirstSeenRecord>,
): Promise<void> {
  const { requester, clock } = context;
  const wallNow = clock.now();
  const writes = [...records].map(([key, record]): TransactWriteItem => {
    const itemKey = stateKeys.firstSeen(key);
    const keyItem = { pk: stringValue(itemKey.pk), sk: stringValue(itemKey.sk) };
    if (Object.keys(record.values).length === 0 && record.startedAt === undefined) {
      return { Delete: { TableName: requester.tableName, Key: keyItem } };
    }
    const ttl = firstSeenTtlSeconds(record.expiresAt, wallNow);
    const item: Item = {
      ...keyItem,
      seen: stringValue(
        JSON.stringify(
          Object.entries(record.values).map(([value, seen]) => [value, seen.first, seen.last, seen.by]),
        ),
      ),
      windowExpiresAt: numberValue(Math.min(record.expiresAt, Number.MAX_SAFE_INTEGER)),
    };
    if (record.startedAt !== undefined) item.startedAt = numberValue(record.startedAt);
    if (ttl !== undefined) item.expiresAt = numberValue(ttl);
    return { Put: { TableName: requester.tableName, Item: item } };
  });
  for (let at = 0; at < writes.length; at += TRANSACTION_ITEMS) {
    const reasons = await requester.transactWriteItems(writes.slice(at, at + TRANSACTION_ITEMS));
    if (reasons !== undefined) {
      const codes = [...new Set(reasons.map((reason) => reason.code).filter((code) => code !== 'None'))];
      throw new StateConflictError(
        `DynamoDB cancelled the write of ${Math.min(TRANSACTION_ITEMS, writes.length - at)} first-seen items of ` +
          `state table ${requester.tableName} (${codes.join(', ') || 'no reason given'}): the events are evaluated again on the next tick`,
      );
    }
  }
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
