import type { AttributeValue, TransactWriteItem, UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { SuppressionIncrement } from '../rules/counter-store.js';
import type { SuppressionAnswer } from '../rules/suppression-roll-up.js';
import { type Item, numberValue, readNumber, readString, readStringSet } from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { itemKeyOf, keptChanging } from './dynamodb-counter-batches.js';
import { stateKeys } from './dynamodb-keys.js';
import {
  conditionFailure,
  type DynamoDbRequester,
  TRANSACTION_ITEMS,
  type WithoutTable,
} from './dynamodb-requester.js';
import {
  applyStoredSuppressions,
  type IndexedSuppressionStep,
  type StoredSuppression,
  type StoredSuppressionUpdate,
  suppressionsByKey,
} from './suppression-records.js';

/** Transactions in flight at once. */
const WRITE_CONCURRENCY = 4;

/**
 * The most bytes of roll-ups one transaction carries (DynamoDB takes 4 MB a transaction): a period's
 * roll-up is at most about 30 KB, so a transaction holds 100 keys but when their roll-ups are large.
 */
const TRANSACTION_ROLL_UP_BYTES = 3_000_000;

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
    if (attempt > SUPPRESSION_ATTEMPTS) throw keptChanging('suppression key', pending, SUPPRESSION_ATTEMPTS);
    const writing: Array<{ entry: PendingKey; update: StoredSuppressionUpdate }> = [];
    for (const entry of pending) {
      const update = applyStoredSuppressions(entry.read.stored, entry.entries, {
        wallNow,
        graceMs: context.counterGraceMs,
      });
      if (update.write === undefined) answer(answers, entry, update);
      else writing.push({ entry, update });
    }
    const lost = await mapWithConcurrency(transactions(writing), WRITE_CONCURRENCY, async (batch) => {
      const again = await writeSuppressions(requester, batch);
      batch.forEach(({ entry, update }, at) => {
        if (again[at] === undefined) answer(answers, entry, update);
      });
      return batch.flatMap(({ entry }, at) => {
        const read = again[at];
        return read === undefined ? [] : [{ ...entry, read }];
      });
    });
    pending = lost.flat();
  }
  return answers;
}

/** Puts a key's answers in their places. */
function answer(answers: SuppressionAnswer[], entry: PendingKey, update: StoredSuppressionUpdate): void {
  entry.entries.forEach((step, at) => {
    answers[step.index] = update.answers[at] as SuppressionAnswer;
  });
}

type Write = { entry: PendingKey; update: StoredSuppressionUpdate };

/** The writes cut into transactions of at most 100 keys and 3 MB of roll-ups. */
function transactions(writes: readonly Write[]): Write[][] {
  const batches: Write[][] = [];
  let batch: Write[] = [];
  let bytes = 0;
  for (const write of writes) {
    const size =
      write.update.write?.rollUp === undefined ? 0 : JSON.stringify(write.update.write.rollUp).length;
    if (
      batch.length === TRANSACTION_ITEMS ||
      (batch.length > 0 && bytes + size > TRANSACTION_ROLL_UP_BYTES)
    ) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(write);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Writes keys whole, each conditioned on it being as read: one `UpdateItem` for one key, one
 * `TransactWriteItems` for more. Returns, per key, `undefined` when it was written, or the key to
 * apply its occurrences to again: as it now is when another writer changed it, as read when another
 * key cancelled the transaction.
 */
async function writeSuppressions(
  requester: DynamoDbRequester,
  batch: readonly Write[],
): Promise<Array<ReadSuppression | undefined>> {
  const updates = batch.map(({ entry, update }) =>
    updateOf(entry, update.write as NonNullable<StoredSuppressionUpdate['write']>),
  );
  if (updates.length === 1) {
    const update = updates[0] as WithoutTable<UpdateItemCommandInput>;
    try {
      await requester.updateItem({ ...update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
      return [undefined];
    } catch (error) {
      const failure = conditionFailure(error);
      if (failure === undefined) throw error;
      return [readSuppression(failure.item)];
    }
  }
  const items: TransactWriteItem[] = updates.map(({ Key, UpdateExpression, ...update }) => ({
    Update: {
      ...update,
      Key: Key as Item,
      UpdateExpression: UpdateExpression as string,
      TableName: requester.tableName,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  }));
  const reasons = await requester.transactWriteItems(items);
  if (reasons === undefined) return batch.map(() => undefined);
  return batch.map(({ entry }, at) => {
    const reason = reasons[at];
    return reason?.code === 'ConditionalCheckFailed' ? readSuppression(reason.item) : entry.read;
  });
}

/** A key's whole write, conditioned on it being as read. */
function updateOf(
  entry: PendingKey,
  write: NonNullable<StoredSuppressionUpdate['write']>,
): WithoutTable<UpdateItemCommandInput> {
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
  return {
    Key: itemKeyOf(entry.key),
    UpdateExpression: updateExpression,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
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
