import type { SuppressionAnswer, SuppressionStep } from './suppression-roll-up.js';

/**
 * The state that threshold and suppression rules keep between events: named sets of members (event
 * ids) with an expiry. Counting distinct members, not calls, makes evaluation idempotent: when the
 * poller reads an event again after a cut-short tick, it does not count twice.
 *
 * `now` and `expiresAt` are on the rule engine's clock (the events' `created` times), which can lie in
 * the past during a backfill; implementations that persist keys keep them at least until `expiresAt`
 * on the wall clock too.
 *
 * The rule engine ships an in-memory implementation; the state store implements it in DynamoDB and in
 * the state file.
 */
export interface CounterStore {
  /**
   * Adds `member` to the set at `key` and returns how many distinct members the set then holds.
   * A key past its expiry (`expiresAt <= now`) counts as empty and starts again with the new expiry;
   * a live key keeps the expiry it was created with. A set holds at most `limit` members: adding a
   * new member to a full set stores nothing and returns `limit + 1`; adding one it already holds
   * returns the set's size.
   */
  increment(key: string, member: string, options: CounterIncrementOptions): Promise<number>;
  /**
   * {@link increment} for many members at once: answers each increment, in order, exactly as calls to
   * `increment` one after another would. Keys are independent, so a store applies the increments of
   * one key together (DynamoDB: one read and at most one conditional write per key, none for a key
   * whose answers are already known, such as a set already full). An increment that cannot change
   * its set (a member it holds, a full set) writes nothing.
   *
   * Not atomic across keys: when it throws, some keys may hold their new members and others not.
   * Calling again with the same increments counts nothing twice and gives the same answers.
   */
  incrementMany(increments: readonly CounterIncrement[]): Promise<number[]>;
  /**
   * Decides occurrences of suppressed rules' groups, in order, and counts the suppressed ones, as
   * `applySuppressions` says: a key holds one period (its alerting occurrence and end) and the roll-up
   * of the occurrences suppressed in it, which the next period's occurrence carries when it alerts.
   * A store keeps a key with suppressed occurrences no alert has told of for {@link ROLL_UP_RETENTION_MS}
   * past its period, so they are told of when the group alerts again. Keys are independent (one read
   * and at most one write each); calling again with the same occurrences counts nothing twice and
   * gives the same answers.
   *
   * A suppression key is a set of one member, the period's occurrence, with the period's end as its
   * expiry, as `increment` with limit 1 keeps it (so `get` reads it, and a key written by a version
   * without roll-ups is read as a period without them), plus its roll-ups.
   */
  suppressMany(steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]>;
  /** The number of distinct members at `key`, or 0 if it is absent or expired at `now`. */
  get(key: string, now: number): Promise<number>;
}

/** One occurrence of {@link CounterStore.suppressMany}. */
export interface SuppressionIncrement extends SuppressionStep {
  key: string;
}

/**
 * How long past its period a suppression key with untold suppressed occurrences is kept (30 days): the
 * group's next alert within that time tells of them.
 */
export const ROLL_UP_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface CounterIncrementOptions {
  /** Engine-clock time, in milliseconds since the epoch. */
  now: number;
  /** When a key created by this call expires, in milliseconds since the epoch. */
  expiresAt: number;
  /** Most members the set keeps. */
  limit: number;
}

/** One increment of {@link CounterStore.incrementMany}. */
export interface CounterIncrement extends CounterIncrementOptions {
  key: string;
  member: string;
}
