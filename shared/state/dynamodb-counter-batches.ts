import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { CounterIncrement } from '../rules/counter-store.js';
import {
  applyCounterIncrements,
  type CounterUpdate,
  counterMember,
  type IndexedIncrement,
  incrementsByKey,
  type StoredCounter,
} from './counter-increments.js';
import { type Item, numberValue, readNumber, readString, readStringSet } from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { stateKeys } from './dynamodb-keys.js';
import { conditionFailure, type DynamoDbRequester } from './dynamodb-requester.js';
import { StateConflictError } from './errors.js';
import type { FullCounters } from './full-counters.js';

/** Conditional counter writes in flight at once. */
const WRITE_CONCURRENCY = 8;

/**
 * Rounds of writes for a batch whose keys keep changing under other writers. A lost race costs no
 * read (the failed condition returns the item), only the write again.
 */
const COUNTER_ATTEMPTS = 8;

/** What incrementing counters in batches needs from the store. */
export interface CounterBatchContext {
  requester: DynamoDbRequester;
  clock: Clock;
  /** How long a counter outlives its window on the wall clock. */
  counterGraceMs: number;
  /** Sets this store has seen full: their increments cost no request. */
  fullCounters: FullCounters;
}

/**
 * What a write must find for the counter to be as it was read: no item, the same `revision` (every
 * write of this store adds one), or, for an item written before revisions, the same number of members.
 */
type ReadGuard =
  | { kind: 'absent' }
  | { kind: 'revision'; revision: number }
  | { kind: 'unversioned'; size: number | undefined };

/** A counter as read, with what its conditional write is guarded by. */
interface ReadCounter {
  counter: StoredCounter | undefined;
  guard: ReadGuard;
}

/** A key whose answers wait on a read or a write. */
interface PendingKey {
  key: string;
  entries: IndexedIncrement[];
  read: ReadCounter;
}

/**
 * Applies counter increments with as few requests as their keys allow, and returns one answer per
 * increment, in order (see `CounterStore.incrementMany`):
 *
 * 1. A key whose increments all land on a set known full and live (see `FullCounters`) is answered
 *    without a request.
 * 2. The other keys are read with strongly consistent `BatchGetItem` (100 keys a request).
 * 3. Each key's increments are applied in memory, in order (`applyCounterIncrements`), and a key whose
 *    set changed gets one conditional `UpdateItem`: `ADD` of the new members, or `SET` of a set that
 *    starts again, guarded by the revision read. A key with nothing new is not written.
 * 4. A write that loses a race with another writer gets the item as it now is with the failed
 *    condition: its increments are applied again to that, and written again.
 *
 * Answers are returned only once every write went through, so an answer always reflects a set as
 * stored. Keys are independent: when a write fails for good, the keys already written keep their
 * members, and the same increments applied again count nothing twice.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached.
 * @throws StateConflictError when a key keeps changing under other writers for 8 rounds.
 */
export async function incrementCounterBatch(
  context: CounterBatchContext,
  increments: readonly CounterIncrement[],
): Promise<number[]> {
  const { requester, clock, fullCounters } = context;
  const answers: number[] = new Array(increments.length).fill(0);
  const wallNow = clock.now();
  const stored = increments.map((increment) => ({ ...increment, member: counterMember(increment.member) }));
  const toRead: Array<{ key: string; entries: IndexedIncrement[] }> = [];
  for (const [key, entries] of incrementsByKey(stored)) {
    const known = entries.map((entry) => fullCounters.answer(key, entry.member, entry, wallNow));
    if (known.some((answer) => answer === undefined)) {
      toRead.push({ key, entries });
      continue;
    }
    entries.forEach((entry, at) => {
      answers[entry.index] = known[at] ?? 0;
    });
  }
  if (toRead.length === 0) return answers;

  const byPk = new Map(toRead.map((pending) => [stateKeys.counter(pending.key).pk, pending]));
  const items = await batchGetAll(requester, clock, {
    keys: toRead.map((pending) => itemKeyOf(pending.key)),
    consistent: true,
    what: 'counters',
  });
  const found = new Map(items.map((item) => [readString(item, 'pk') ?? '', item]));
  let pending: PendingKey[] = [...byPk].map(([pk, { key, entries }]) => ({
    key,
    entries,
    read: readCounter(found.get(pk)),
  }));

  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > COUNTER_ATTEMPTS) throw keptChanging('counter', pending, COUNTER_ATTEMPTS);
    const lost = await mapWithConcurrency(pending, WRITE_CONCURRENCY, async (entry) => {
      const update = applyCounterIncrements(entry.read.counter, entry.entries, {
        wallNow,
        graceMs: context.counterGraceMs,
      });
      if (update.write !== 'none') {
        const now = await writeCounter(requester, entry, update);
        if (now !== undefined) return { ...entry, read: now };
      }
      entry.entries.forEach((increment, at) => {
        answers[increment.index] = update.answers[at] ?? 0;
      });
      const last = entry.entries[entry.entries.length - 1];
      if (update.counter !== undefined && last !== undefined) {
        fullCounters.remember(entry.key, update.counter, last.limit);
      }
      return undefined;
    });
    pending = lost.filter((entry): entry is PendingKey => entry !== undefined);
  }
  return answers;
}

/**
 * Writes a key's update, conditioned on the counter being as read; returns `undefined` when it went
 * through, or the counter as it now is when another writer changed it first.
 */
async function writeCounter(
  requester: DynamoDbRequester,
  entry: PendingKey,
  update: CounterUpdate,
): Promise<ReadCounter | undefined> {
  const counter = update.counter;
  if (counter === undefined) return undefined;
  const names: Record<string, string> = { '#revision': 'revision', '#members': 'members' };
  const values: Record<string, AttributeValue> = { ':one': numberValue(1) };
  let updateExpression: string;
  if (update.write === 'add') {
    updateExpression = 'ADD #members :added, #revision :one';
    values[':added'] = { SS: [...update.added] };
  } else {
    updateExpression =
      'SET #members = :members, #windowExpiresAt = :windowExpiresAt, #expiresAt = :expiresAt ' +
      'ADD #revision :one';
    Object.assign(names, { '#windowExpiresAt': 'windowExpiresAt', '#expiresAt': 'expiresAt' });
    values[':members'] = { SS: [...counter.members] };
    values[':windowExpiresAt'] = numberValue(counter.windowExpiresAt);
    // Never undefined for a set that starts again: it gets a TTL.
    values[':expiresAt'] = numberValue(counter.expiresAt ?? 0);
  }
  const guard = entry.read.guard;
  let condition: string;
  if (guard.kind === 'absent') {
    condition = 'attribute_not_exists(pk)';
  } else if (guard.kind === 'revision') {
    condition = '#revision = :revision';
    values[':revision'] = numberValue(guard.revision);
  } else if (guard.size === undefined) {
    condition = 'attribute_exists(pk) AND attribute_not_exists(#revision) AND attribute_not_exists(#members)';
  } else {
    condition = 'attribute_exists(pk) AND attribute_not_exists(#revision) AND size(#members) = :size';
    values[':size'] = numberValue(guard.size);
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
    return readCounter(failure.item);
  }
}

/** The counter an item holds (none for no item, or one without a whole set), and its write guard. */
function readCounter(item: Item | undefined): ReadCounter {
  if (item === undefined) return { counter: undefined, guard: { kind: 'absent' } };
  const members = readStringSet(item, 'members');
  const windowExpiresAt = readNumber(item, 'windowExpiresAt');
  const revision = readNumber(item, 'revision');
  const guard: ReadGuard =
    revision === undefined ? { kind: 'unversioned', size: members?.length } : { kind: 'revision', revision };
  if (members === undefined || windowExpiresAt === undefined) return { counter: undefined, guard };
  return {
    counter: { members: new Set(members), windowExpiresAt, expiresAt: readNumber(item, 'expiresAt') },
    guard,
  };
}

/** The key of the item a counter (or suppression key) is kept in. */
export function itemKeyOf(key: string): Item {
  const { pk, sk } = stateKeys.counter(key);
  return { pk: { S: pk }, sk: { S: sk } };
}

/**
 * Keys another writer kept changing through every attempt: the events are evaluated again next tick.
 * `noun` names what they are (`counter`, `suppression key`).
 */
export function keptChanging(
  noun: string,
  pending: readonly { key: string }[],
  attempts: number,
): StateConflictError {
  const keys = pending.map((entry) => entry.key);
  const named = keys.slice(0, 3).join(', ') + (keys.length > 3 ? ` and ${keys.length - 3} more` : '');
  return new StateConflictError(
    `${noun}${keys.length === 1 ? '' : 's'} ${named} kept changing under concurrent writers after ` +
      `${attempts} attempts: the events are evaluated again on the next tick`,
  );
}
