import { randomUUID } from 'node:crypto';
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.js';
import { type Item, numberValue, readNumber, readString, stringValue } from './dynamodb-attributes.js';
import { stateKeys } from './dynamodb-keys.js';
import { type DynamoDbRequester, TRANSACTION_ITEMS } from './dynamodb-requester.js';
import { StateStoreRequestError } from './errors.js';
import { isExpired, nowSeconds, ttlSeconds } from './expiry.js';
import type { AlertClaim, AlertClaimResult } from './state-store.js';

/** Attempts at a transaction whose items keep being cancelled for reasons other than their condition. */
const TRANSACTION_ATTEMPTS = 8;

/** What claiming and marking alerts in batches needs from the store. */
export interface AlertBatchContext {
  requester: DynamoDbRequester;
  clock: Clock;
  /** How long a SENT record (and a claim past its expiry) is kept. */
  alertRetentionMs: number;
}

const CLAIM_NAMES = { '#expiresAt': 'expiresAt', '#status': 'status', '#claimToken': 'claimToken' };

/**
 * Claims up to {@link TRANSACTION_ITEMS} alerts (distinct fingerprints) in as few `TransactWriteItems`
 * as their records allow, and returns one result per fingerprint, in order. Each item is a conditional
 * `Put` of an IN_PROGRESS record: absent, or expired, records are claimed in the first transaction.
 * When the transaction is cancelled, `CancellationReasons` (with the record of each item whose
 * condition failed) say which: a SENT record is `sent`, a live claim `in-progress`, a claim past its
 * expiry is taken over in a later transaction conditioned on its old token (so `tookOver` is exact),
 * and the other items are sent again without them. Items cancelled only because another item failed,
 * or by a conflict with another transaction, are sent again after a growing pause.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached, or keeps cancelling the same items.
 */
export async function claimAlertBatch(
  context: AlertBatchContext,
  options: { fingerprints: readonly string[]; claimMs: number },
): Promise<AlertClaimResult[]> {
  const { requester, clock } = context;
  const now = clock.now();
  const results: Array<AlertClaimResult | undefined> = options.fingerprints.map(() => undefined);
  type Pending = { index: number; fingerprint: string; takeOverToken: string | undefined };
  let pending: Pending[] = options.fingerprints.map((fingerprint, index) => ({
    index,
    fingerprint,
    takeOverToken: undefined,
  }));
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > TRANSACTION_ATTEMPTS) throw keptCancelling(requester.tableName, pending.length);
    const claims = pending.map(({ fingerprint }) => ({
      fingerprint,
      token: randomUUID(),
      expiresAt: now + options.claimMs,
    }));
    const items: TransactWriteItem[] = pending.map((entry, at) => {
      const claim = claims[at] as AlertClaim;
      return {
        Put: {
          TableName: requester.tableName,
          Item: {
            ...keyItem(entry.fingerprint),
            status: stringValue('IN_PROGRESS'),
            claimToken: stringValue(claim.token),
            claimExpiresAt: numberValue(claim.expiresAt),
            expiresAt: numberValue(ttlSeconds(claim.expiresAt + context.alertRetentionMs)),
          },
          ...(entry.takeOverToken === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :nowSeconds',
                ExpressionAttributeNames: { '#expiresAt': CLAIM_NAMES['#expiresAt'] },
                ExpressionAttributeValues: { ':nowSeconds': numberValue(nowSeconds(now)) },
              }
            : {
                ConditionExpression: '#status = :inProgress AND #claimToken = :oldToken',
                ExpressionAttributeNames: {
                  '#status': CLAIM_NAMES['#status'],
                  '#claimToken': CLAIM_NAMES['#claimToken'],
                },
                ExpressionAttributeValues: {
                  ':inProgress': stringValue('IN_PROGRESS'),
                  ':oldToken': stringValue(entry.takeOverToken),
                },
              }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      };
    });
    const reasons = await requester.transactWriteItems(items);
    if (reasons === undefined) {
      pending.forEach((entry, at) => {
        results[entry.index] = {
          outcome: 'claimed',
          claim: claims[at] as AlertClaim,
          tookOver: entry.takeOverToken !== undefined,
        };
      });
      return finished(results);
    }
    const again: Pending[] = [];
    let conditionFailed = false;
    for (const [at, entry] of pending.entries()) {
      const reason = reasons[at];
      if (reason?.code !== 'ConditionalCheckFailed') {
        again.push(entry);
        continue;
      }
      conditionFailed = true;
      // DynamoDB returns the record with the reason; read it when an engine does not.
      const existing = reason.item ?? (await readRecord(requester, entry.fingerprint));
      const outcome = existing === undefined ? undefined : outcomeOf(existing, now);
      if (outcome === undefined) {
        // The record changed between the two conditions (or was not returned): ask again from scratch.
        again.push({ ...entry, takeOverToken: undefined });
      } else if (outcome.kind === 'take-over') {
        again.push({ ...entry, takeOverToken: outcome.token });
      } else {
        results[entry.index] = outcome.result;
      }
    }
    // Only items cancelled by a conflict or throttling: give the other writer a moment.
    if (!conditionFailed) await clock.sleep(pauseMs(attempt));
    pending = again;
  }
  return finished(results);
}

/**
 * Records the claimed alerts as SENT, up to {@link TRANSACTION_ITEMS} in one `TransactWriteItems` of
 * unconditional puts (whoever published may record it; see {@link sentRecord}), sent again after a
 * growing pause while DynamoDB cancels it for a conflict.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached, or keeps cancelling; none is recorded.
 */
export async function markAlertBatch(
  context: AlertBatchContext,
  options: { claims: readonly AlertClaim[] },
): Promise<void> {
  const { requester, clock } = context;
  if (options.claims.length === 0) return;
  for (let attempt = 1; ; attempt += 1) {
    if (attempt > TRANSACTION_ATTEMPTS) throw keptCancelling(requester.tableName, options.claims.length);
    const now = clock.now();
    const items: TransactWriteItem[] = options.claims.map((claim) => ({
      Put: {
        TableName: requester.tableName,
        Item: sentRecord(claim.fingerprint, now, context.alertRetentionMs),
      },
    }));
    const reasons = await requester.transactWriteItems(items);
    if (reasons === undefined) return;
    await clock.sleep(pauseMs(attempt));
  }
}

type ClaimOutcome = { kind: 'done'; result: AlertClaimResult } | { kind: 'take-over'; token: string };

/** What a record that failed the claim's condition means, or `undefined` if it should have passed. */
function outcomeOf(existing: Item, now: number): ClaimOutcome | undefined {
  if (isExpired(readNumber(existing, 'expiresAt'), now)) return undefined;
  const status = readString(existing, 'status');
  if (status === 'SENT') {
    return { kind: 'done', result: { outcome: 'sent', sentAt: readNumber(existing, 'sentAt') ?? 0 } };
  }
  const claimExpiresAt = readNumber(existing, 'claimExpiresAt') ?? now;
  if (claimExpiresAt > now) {
    return { kind: 'done', result: { outcome: 'in-progress', claimExpiresAt } };
  }
  const token = readString(existing, 'claimToken');
  return token === undefined ? undefined : { kind: 'take-over', token };
}

async function readRecord(requester: DynamoDbRequester, fingerprint: string): Promise<Item | undefined> {
  const output = await requester.getItem({ Key: keyItem(fingerprint), ConsistentRead: true });
  return output.Item;
}

/**
 * The record of an alert sent, written whole (`PutItem`) alone or in a batch: no condition, so whoever
 * published may record it even after its claim was taken over, and the claim's token and expiry go
 * with the record they replace. `sentAt` is the time of the last sender's record: two senders exist
 * only in the publish/mark window, and it is there to show when, not to decide anything. A put costs
 * DynamoDB what an update does (write units by item size) and carries no expression to parse.
 */
export function sentRecord(fingerprint: string, now: number, alertRetentionMs: number): Item {
  return {
    ...keyItem(fingerprint),
    status: stringValue('SENT'),
    sentAt: numberValue(now),
    expiresAt: numberValue(ttlSeconds(now + alertRetentionMs)),
  };
}

function keyItem(fingerprint: string): Item {
  const key = stateKeys.alert(fingerprint);
  return { pk: stringValue(key.pk), sk: stringValue(key.sk) };
}

function finished(results: Array<AlertClaimResult | undefined>): AlertClaimResult[] {
  return results.map((result) => {
    if (result === undefined) throw new Error('an alert claim was left without a result');
    return result;
  });
}

/** The pause before attempt `attempt + 1`: 25 ms doubling, at most 1 s. */
function pauseMs(attempt: number): number {
  return Math.min(1_000, 25 * 2 ** (attempt - 1));
}

function keptCancelling(tableName: string, items: number): StateStoreRequestError {
  return new StateStoreRequestError(
    `DynamoDB cancelled the transaction of ${items} alert records on state table ${tableName} ` +
      `${TRANSACTION_ATTEMPTS} times in a row (conflicts or throttling): the alerts are raised again next tick`,
    { operation: 'TransactWriteItems', tableName },
  );
}
