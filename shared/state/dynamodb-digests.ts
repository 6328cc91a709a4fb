import { randomUUID } from 'node:crypto';
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.js';
import {
  type AppendDigestEntriesOptions,
  boundDigestEntry,
  type ClaimDigestOptions,
  type DigestClaim,
  type DigestClaimResult,
  type DigestEntries,
  type DigestEntry,
  type DigestPeriodOptions,
  readStoredDigestEntries,
} from './digest-store.js';
import {
  type Item,
  numberValue,
  readNumber,
  readString,
  readStringSet,
  stringValue,
} from './dynamodb-attributes.js';
import { type ItemKey, stateKeys } from './dynamodb-keys.js';
import { conditionFailure, type DynamoDbRequester, TRANSACTION_ITEMS } from './dynamodb-requester.js';
import { StateStoreRequestError } from './errors.js';
import { isExpired, nowSeconds, ttlSeconds } from './expiry.js';

/** What the DynamoDB store's digest operations need from it. */
export interface DigestContext {
  requester: DynamoDbRequester;
  clock: Clock;
  /** How long pending entries and a SENT claim are kept. */
  alertRetentionMs: number;
}

/** Attempts at a transaction DynamoDB keeps cancelling for a conflict rather than its condition. */
const ATTEMPTS = 8;

/** Entries per transaction: the rest of its items are the claim's condition check and the period index. */
const ENTRIES_PER_TRANSACTION = TRANSACTION_ITEMS - 2;

function keyOf(key: ItemKey): Item {
  return { pk: stringValue(key.pk), sk: stringValue(key.sk) };
}

/**
 * Appends entries in transactions of up to {@link ENTRIES_PER_TRANSACTION}: each checks that the
 * period's claim is absent (or expired), adds the period to the route's index, and puts the entries.
 * A transaction cancelled by the claim's condition returns its entries and the rest.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached, or keeps cancelling for conflicts.
 */
export async function appendDigestItems(
  context: DigestContext,
  options: AppendDigestEntriesOptions,
): Promise<DigestEntry[]> {
  const { requester, clock, alertRetentionMs } = context;
  const { route, period } = options;
  for (let at = 0; at < options.entries.length; at += ENTRIES_PER_TRANSACTION) {
    const chunk = options.entries.slice(at, at + ENTRIES_PER_TRANSACTION);
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > ATTEMPTS) throw keptCancelling(requester.tableName, route, period);
      const now = clock.now();
      const expiresAt = numberValue(ttlSeconds(now + alertRetentionMs));
      const items: TransactWriteItem[] = [
        {
          ConditionCheck: {
            TableName: requester.tableName,
            Key: keyOf(stateKeys.digestClaim(route, period)),
            ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :nowSeconds',
            ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':nowSeconds': numberValue(nowSeconds(now)) },
          },
        },
        {
          Update: {
            TableName: requester.tableName,
            Key: keyOf(stateKeys.digestPeriods(route)),
            UpdateExpression: 'ADD #periods :period',
            ExpressionAttributeNames: { '#periods': 'periods' },
            ExpressionAttributeValues: { ':period': { SS: [period] } },
          },
        },
        ...chunk.map(
          (entry): TransactWriteItem => ({
            Put: {
              TableName: requester.tableName,
              Item: {
                ...keyOf(stateKeys.digestEntry(route, period, entry.fingerprint)),
                entry: stringValue(JSON.stringify(boundDigestEntry(entry))),
                expiresAt,
              },
            },
          }),
        ),
      ];
      const reasons = await requester.transactWriteItems(items);
      if (reasons === undefined) break;
      if (reasons[0]?.code === 'ConditionalCheckFailed') return options.entries.slice(at);
      await clock.sleep(Math.min(1_000, 25 * 2 ** (attempt - 1)));
    }
  }
  return [];
}

/** The route's periods with pending entries, from its index item (one `GetItem`). */
export async function listDigestItemPeriods(context: DigestContext, route: string): Promise<string[]> {
  const output = await context.requester.getItem({
    Key: keyOf(stateKeys.digestPeriods(route)),
    ConsistentRead: true,
  });
  return output.Item === undefined ? [] : (readStringSet(output.Item, 'periods') ?? []).sort();
}

/**
 * Claims a digest with a conditional `PutItem` (absent, or expired), or takes over a claim past its
 * expiry conditioned on its token; a SENT record or a live claim answers without a write.
 */
export async function claimDigestItem(
  context: DigestContext,
  options: ClaimDigestOptions,
): Promise<DigestClaimResult> {
  const { requester, clock, alertRetentionMs } = context;
  const key = keyOf(stateKeys.digestClaim(options.route, options.period));
  let takeOverToken: string | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const now = clock.now();
    const claim: DigestClaim = {
      route: options.route,
      period: options.period,
      token: randomUUID(),
      expiresAt: now + options.claimMs,
    };
    try {
      await requester.putItem({
        Item: {
          ...key,
          status: stringValue('IN_PROGRESS'),
          claimToken: stringValue(claim.token),
          claimExpiresAt: numberValue(claim.expiresAt),
          expiresAt: numberValue(ttlSeconds(claim.expiresAt + alertRetentionMs)),
        },
        ...(takeOverToken === undefined
          ? {
              ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :nowSeconds',
              ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
              ExpressionAttributeValues: { ':nowSeconds': numberValue(nowSeconds(now)) },
            }
          : {
              ConditionExpression: '#status = :inProgress AND #claimToken = :oldToken',
              ExpressionAttributeNames: { '#status': 'status', '#claimToken': 'claimToken' },
              ExpressionAttributeValues: {
                ':inProgress': stringValue('IN_PROGRESS'),
                ':oldToken': stringValue(takeOverToken),
              },
            }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { outcome: 'claimed', claim, tookOver: takeOverToken !== undefined };
    } catch (error) {
      const failure = conditionFailure(error);
      if (failure === undefined) throw error;
      const existing = failure.item ?? (await requester.getItem({ Key: key, ConsistentRead: true })).Item;
      takeOverToken = undefined;
      if (existing === undefined || isExpired(readNumber(existing, 'expiresAt'), now)) continue;
      if (readString(existing, 'status') === 'SENT') {
        return { outcome: 'sent', sentAt: readNumber(existing, 'sentAt') ?? 0 };
      }
      const claimExpiresAt = readNumber(existing, 'claimExpiresAt') ?? now;
      if (claimExpiresAt > now) return { outcome: 'in-progress', claimExpiresAt };
      takeOverToken = readString(existing, 'claimToken');
    }
  }
  throw keptCancelling(requester.tableName, options.route, options.period);
}

/**
 * The entry items of a digest, a page at a time, by a `Query` of its partition: whole items, or only
 * their keys with `keysOnly`.
 */
async function* digestEntryPages(
  requester: DynamoDbRequester,
  pk: string,
  options: { keysOnly: boolean },
): AsyncGenerator<Item[]> {
  let startKey: Item | undefined;
  do {
    const output = await requester.query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': stringValue(pk),
        ':prefix': stringValue(stateKeys.digestEntryPrefix),
      },
      ...(options.keysOnly ? { ProjectionExpression: 'pk, sk' } : { ConsistentRead: true }),
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
    });
    yield output.Items ?? [];
    startKey = output.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/**
 * The entries of a digest (all pages), oldest first; an item that is not an entry this program wrote
 * is left out and said in `unreadable`.
 */
export async function readDigestItems(
  context: DigestContext,
  options: DigestPeriodOptions,
): Promise<DigestEntries> {
  const { requester, clock } = context;
  const now = clock.now();
  const pk = stateKeys.digestClaim(options.route, options.period).pk;
  const stored: Array<{ value: unknown; where: string }> = [];
  for await (const items of digestEntryPages(requester, pk, { keysOnly: false })) {
    for (const item of items) {
      const where = `${pk} ${typeof item.sk?.S === 'string' ? item.sk.S : ''}`;
      try {
        if (isExpired(readNumber(item, 'expiresAt'), now)) continue;
        stored.push({ value: JSON.parse(readString(item, 'entry') ?? ''), where });
      } catch {
        // Not JSON, or an attribute of the wrong type: not an entry, said as the schema would say it.
        stored.push({ value: undefined, where });
      }
    }
  }
  return readStoredDigestEntries(stored);
}

/**
 * Records the digest as SENT (an unconditional put: whoever published may record it), takes the
 * period off the route's index, then deletes its entries in transactions of deletes. Entries left by
 * a failure after the record expire with their TTL; a SENT digest is never read again.
 */
export async function markDigestItemSent(context: DigestContext, claim: DigestClaim): Promise<void> {
  const { requester, clock, alertRetentionMs } = context;
  const now = clock.now();
  await requester.putItem({
    Item: {
      ...keyOf(stateKeys.digestClaim(claim.route, claim.period)),
      status: stringValue('SENT'),
      sentAt: numberValue(now),
      expiresAt: numberValue(ttlSeconds(now + alertRetentionMs)),
    },
  });
  await requester.updateItem({
    Key: keyOf(stateKeys.digestPeriods(claim.route)),
    UpdateExpression: 'DELETE #periods :period',
    ExpressionAttributeNames: { '#periods': 'periods' },
    ExpressionAttributeValues: { ':period': { SS: [claim.period] } },
  });
  const pk = stateKeys.digestClaim(claim.route, claim.period).pk;
  for await (const keys of digestEntryPages(requester, pk, { keysOnly: true })) {
    for (let at = 0; at < keys.length; at += TRANSACTION_ITEMS) {
      await requester.transactWriteItems(
        keys.slice(at, at + TRANSACTION_ITEMS).map((key) => ({
          Delete: {
            TableName: requester.tableName,
            Key: keyOf({ pk: readString(key, 'pk') ?? pk, sk: readString(key, 'sk') ?? '' }),
          },
        })),
      );
    }
  }
}

/** Deletes the claim if it is still the caller's and IN_PROGRESS; the entries stay. */
export async function releaseDigestItem(context: DigestContext, claim: DigestClaim): Promise<void> {
  try {
    await context.requester.deleteItem({
      Key: keyOf(stateKeys.digestClaim(claim.route, claim.period)),
      ConditionExpression: '#status = :inProgress AND #claimToken = :token',
      ExpressionAttributeNames: { '#status': 'status', '#claimToken': 'claimToken' },
      ExpressionAttributeValues: {
        ':inProgress': stringValue('IN_PROGRESS'),
        ':token': stringValue(claim.token),
      },
    });
  } catch (error) {
    if (conditionFailure(error) === undefined) throw error;
  }
}

function keptCancelling(tableName: string, route: string, period: string): StateStoreRequestError {
  return new StateStoreRequestError(
    `DynamoDB kept cancelling the writes of the digest of route ${route} for ${period} on state table ` +
      `${tableName} (conflicts or throttling): the digest is tried again next tick`,
    { operation: 'TransactWriteItems', tableName },
  );
}
