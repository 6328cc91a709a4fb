import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { SuppressionIncrement } from '../rules/counter-store.js';
import type { SuppressionAnswer } from '../rules/suppression-roll-up.js';
import { type Item, numberValue, readNumber, readString, readStringSet } from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { stateKeys } from './dynamodb-keys.js';
import { conditionFailure, type DynamoDbRequester } from './dynamodb-requester.js';
import { StateConflictError } from './errors.js';
import {
  applyStoredSuppressions,
  type IndexedSuppressionStep,
  type StoredSuppression,
  type StoredSuppressionUpdate,
  suppressionsByKey,
} from './suppression-records.js';

/** Conditional writes in flight at once. */
const WRITE_CONCURRENCY = 8;

/** Rounds of writes for keys that keep changing under other writers (a lost race costs no read). */
const SUPPRESSION_ATTEMPTS = 8;

/** What deciding suppressions in batches needs from the store. */
export interface SuppressionBatchContext {
  requester: DynamoDbRequester;
  clock: Clock;
  /** How long a key outlives its period on the wall clock (see `StateRetention.counterGraceMs`). */
  counterGraceMs: number;
}

/** A key as read: the suppression it holds and the revision its write is guarded by. */
interface ReadSuppression {
  stored: StoredSuppression | undefined;
  /** `undefined` for no item; `null` for an item written before revisions. */
  revision: number | undefined | null;
}

interface PendingKey {
  key: string;
  entries: IndexedSuppressionStep[];
  read: ReadSuppression;
}

/**
 * Decides suppressed rules' occurrences with one strongly consistent read per key (`BatchGetItem`, 100
 * keys a request) and at most one conditional `UpdateItem` per key whose period or roll-up changed,
 * guarded by the revision read; a write that loses a race applies the key's occurrences again to the
 * item the failed condition returns. The key is the counter item `increment` keeps (one member, the
 * period's occurrence), with its roll-ups as a JSON string in `rollUp`. Answers come back once every
 * write went through (see `CounterStore.suppressMany`).
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached.
 * @throws StateConflictError when a key keeps changing under other writers for 8 rounds.
 */
export async function suppressBatch(
  context: SuppressionBatchContext,
  steps: readonly SuppressionIncrement[],
): Promise<SuppressionAnswer[]> {
  const { requester, clock } = context;
  const answers: SuppressionAnswer[] = new Array(steps.length);
  if (steps.length === 0) return answers;
  const wallNow = clock.now();
  const byKey = suppressionsByKey(steps);
  const items = await batchGetAll(requester, clock, {
    keys: [...byKey.keys()].map(itemKeyOf),
    consistent: true,
    what: 'suppressions',
  });
  const found = new Map(items.map((item) => [readString(item, 'pk') ?? '', item]));
  let pending: PendingKey[] = [...byKey].map(([key, entries]) => ({
    key,
    entries,
    read: readSuppression(found.get(stateKeys.counter(key).pk)),
  }));
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > SUPPRESSION_ATTEMPTS) throw keptChanging(pending);
    const lost = await mapWithConcurrency(pending, WRITE_CONCURRENCY, async (entry) => {
      const update = applyStoredSuppressions(entry.read.stored, entry.entries, {
        wallNow,
        graceMs: context.counterGraceMs,
      });
      if (update.write !== undefined) {
        const now = await writeSuppression(requester, entry, update.write);
        if (now !== undefined) return { ...entry, read: now };
      }
      entry.entries.forEach((step, at) => {
        answers[step.index] = update.answers[at] as SuppressionAnswer;
      });
      return undefined;
    });
    pending = lost.filter((entry): entry is PendingKey => entry !== undefined);
  }
  return answers;
}

/** Writes a key whole, conditioned on it being as read; returns the key as it now is when it was not. */
async function writeSuppression(
  requester: DynamoDbRequester,
  entry: PendingKey,
  write: NonNullable<StoredSuppressionUpdate['write']>,
): Promise<ReadSuppression | undefined> {
  const names: Record<string, string> = {
    '#revision': 'revision',
    '#members': 'members',
    '#windowExpiresAt': 'windowExpiresAt',
    '#expiresAt': 'expiresAt',
    '#rollUp': 'rollUp',
  };
  const values: Record<string, AttributeValue> = {
    ':one': numberValue(1),
    ':members': { SS: [...write.members] },
    ':windowExpiresAt': numberValue(write.windowExpiresAt),
    ':expiresAt': numberValue(write.expiresAt),
  };
  let updateExpression =
    'SET #members = :members, #windowExpiresAt = :windowExpiresAt, #expiresAt = :expiresAt';
  if (write.rollUp === undefined) updateExpression += ' REMOVE #rollUp';
  else {
    updateExpression += ', #rollUp = :rollUp';
    values[':rollUp'] = { S: JSON.stringify(write.rollUp) };
  }
  updateExpression += ' ADD #revision :one';
  const revision = entry.read.revision;
  let condition: string;
  if (revision === undefined) condition = 'attribute_not_exists(pk)';
  else if (revision === null) condition = 'attribute_exists(pk) AND attribute_not_exists(#revision)';
  else {
    condition = '#revision = :revision';
    values[':revision'] = numberValue(revision);
  }
  try {
    await requester.updateItem({
      Key: itemKeyOf(entry.key),
      UpdateExpression: updateExpression,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return undefined;
  } catch (error) {
    const failure = conditionFailure(error);
    if (failure === undefined) throw error;
    return readSuppression(failure.item);
  }
}

/** The suppression an item holds (none for no item, or one without a whole set), and its revision. */
function readSuppression(item: Item | undefined): ReadSuppression {
  if (item === undefined) return { stored: undefined, revision: undefined };
  const revision = readNumber(item, 'revision') ?? null;
  const members = readStringSet(item, 'members');
  const windowExpiresAt = readNumber(item, 'windowExpiresAt');
  if (members === undefined || windowExpiresAt === undefined) return { stored: undefined, revision };
  const text = readString(item, 'rollUp');
  let rollUp: unknown;
  if (text !== undefined) {
    try {
      rollUp = JSON.parse(text);
    } catch {
      // A damaged roll-up costs its figures, never the suppression: the key counts from nothing.
      rollUp = undefined;
    }
  }
  return {
    stored: { members: new Set(members), windowExpiresAt, expiresAt: readNumber(item, 'expiresAt'), rollUp },
    revision,
  };
}

function itemKeyOf(key: string): Item {
  const { pk, sk } = stateKeys.counter(key);
  return { pk: { S: pk }, sk: { S: sk } };
}

function keptChanging(pending: readonly PendingKey[]): StateConflictError {
  const keys = pending.map((entry) => entry.key);
  const named = keys.slice(0, 3).join(', ') + (keys.length > 3 ? ` and ${keys.length - 3} more` : '');
  return new StateConflictError(
    `suppression key${keys.length === 1 ? '' : 's'} ${named} kept changing under concurrent writers after ` +
      `${SUPPRESSION_ATTEMPTS} attempts: the events are evaluated again on the next tick`,
  );
}
