import { createHash } from 'node:crypto';
import type { CounterIncrement, CounterIncrementOptions } from '../rules/counter-store.js';
import { isExpired } from './expiry.js';
import { utf8Bytes } from './item-size.js';
import { counterTtlSeconds } from './retention.js';

/**
 * The most UTF-8 bytes of a counter member kept as it is: a set of `limit` members (a threshold's
 * count, at most 5,000) then fits in one DynamoDB item whatever the events hold.
 */
const MAX_MEMBER_BYTES = 64;

/**
 * A counter member as both stores keep it: itself when it is 1 to 64 UTF-8 bytes and does not start
 * with `#`, else `#` and its SHA-256. Keeps sets small whatever the members, and stores the empty
 * string, which a DynamoDB set cannot hold.
 *
 * @example
 * ```ts
 * counterMember('5f4e3d2c1b0a998877665544'); // '5f4e3d2c1b0a998877665544'
 * counterMember('').startsWith('#'); // true
 * ```
 */
export function counterMember(member: string): string {
  if (member !== '' && !member.startsWith('#') && utf8Bytes(member) <= MAX_MEMBER_BYTES) return member;
  return `#${createHash('sha256').update(member).digest('base64url')}`;
}

/** A counter set as a store keeps it. */
export interface StoredCounter {
  readonly members: ReadonlySet<string>;
  /** When the set's window ends, on the rule engine's clock, in milliseconds since the epoch. */
  readonly windowExpiresAt: number;
  /** When the set is absent on the wall clock, in epoch seconds (its TTL); `undefined` for never. */
  readonly expiresAt: number | undefined;
}

/** One increment of a key, its member as the store keeps it. */
export interface KeyIncrement extends CounterIncrementOptions {
  readonly member: string;
}

/** What applying a key's increments to its stored set gives, and what the store must write. */
export interface CounterUpdate {
  /** One answer per increment, in order: what `CounterStore.increment` would have returned. */
  readonly answers: number[];
  /** The set after the increments; `undefined` when it was absent and stays so. */
  readonly counter: StoredCounter | undefined;
  /**
   * `none`: the set is unchanged, nothing to write. `add`: the stored set, still live, takes
   * {@link added}. `replace`: the set started again (it was absent or expired): write all of it.
   */
  readonly write: 'none' | 'add' | 'replace';
  /** Members new to the stored set, for `add`. */
  readonly added: readonly string[];
}

/**
 * Applies one key's increments, in order, to the set as stored, with the semantics of
 * `CounterStore.increment` for each (a set past its window on the engine's clock or past its TTL on
 * the wall clock starts again; a full set takes nothing), and says what to write: at most one write
 * per key, whatever the number of increments. Pure: both persistent stores use it, so they answer
 * alike.
 *
 * @example
 * ```ts
 * const update = applyCounterIncrements(undefined, [
 *   { member: 'a', now: 0, expiresAt: 60_000, limit: 2 },
 *   { member: 'b', now: 1, expiresAt: 60_000, limit: 2 },
 *   { member: 'c', now: 2, expiresAt: 60_000, limit: 2 },
 * ], { wallNow: 0, graceMs: 0 });
 * update.answers; // [1, 2, 3]
 * update.write; // 'replace'
 * ```
 */
export function applyCounterIncrements(
  stored: StoredCounter | undefined,
  increments: readonly KeyIncrement[],
  options: { wallNow: number; graceMs: number },
): CounterUpdate {
  const { wallNow, graceMs } = options;
  // A copy: the stored set stays as it was until the store has written the update.
  let members = stored === undefined ? undefined : new Set(stored.members);
  let windowExpiresAt = stored?.windowExpiresAt ?? 0;
  let expiresAt = stored?.expiresAt;
  let replaced = false;
  const added = new Set<string>();
  const answers = increments.map(({ member, ...increment }) => {
    const live = members !== undefined && windowExpiresAt > increment.now && !isExpired(expiresAt, wallNow);
    if (members === undefined || !live) {
      if (increment.limit < 1) return increment.limit + 1;
      members = new Set([member]);
      windowExpiresAt = increment.expiresAt;
      expiresAt = counterTtlSeconds({ wallNow, counter: increment, graceMs });
      replaced = true;
      added.clear();
      return 1;
    }
    if (members.has(member)) return members.size;
    if (members.size >= increment.limit) return increment.limit + 1;
    members.add(member);
    added.add(member);
    return members.size;
  });
  const changed = replaced || added.size > 0;
  return {
    answers,
    counter: members === undefined ? undefined : { members, windowExpiresAt, expiresAt },
    write: replaced ? 'replace' : changed ? 'add' : 'none',
    added: [...added],
  };
}

/** An increment of one key, with its place in the caller's list. */
export interface IndexedIncrement extends KeyIncrement {
  /** Where its answer goes in the caller's list. */
  readonly index: number;
}

/**
 * The increments grouped by key, each key's in the caller's order, keys in order of first use.
 *
 * @example
 * ```ts
 * const byKey = incrementsByKey([{ key: 'k', member: 'a', now: 0, expiresAt: 1, limit: 1 }]);
 * byKey.get('k')?.[0]?.index; // 0
 * ```
 */
export function incrementsByKey(increments: readonly CounterIncrement[]): Map<string, IndexedIncrement[]> {
  const byKey = new Map<string, IndexedIncrement[]>();
  increments.forEach(({ key, member, now, expiresAt, limit }, index) => {
    let entries = byKey.get(key);
    if (entries === undefined) {
      entries = [];
      byKey.set(key, entries);
    }
    entries.push({ index, member, now, expiresAt, limit });
  });
  return byKey;
}
