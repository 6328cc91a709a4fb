import type { StoredCounter } from './counter-increments.js';
import { isExpired } from './expiry.js';

/** Full counter sets remembered at most; the oldest is forgotten first. */
const DEFAULT_MAX_ENTRIES = 10_000;

interface FullCounter {
  members: ReadonlySet<string>;
  /** On the rule engine's clock, in milliseconds. */
  windowExpiresAt: number;
  /** Epoch seconds, on the wall clock. */
  expiresAt: number | undefined;
}

/**
 * The counter sets a store has seen full, so that an increment that cannot change one costs no
 * request. A set with `limit` members or more takes no new member until its window ends (by the
 * engine's clock) or it expires (by the wall clock): until then the answer to any increment is known,
 * the set's size for a member it holds and `limit + 1` for any other, exactly what the conditional
 * update would answer. Threshold rules past their threshold are the common case: in a backlog most
 * increments land on windows already full.
 *
 * @example
 * ```ts
 * const full = new FullCounters();
 * const known = full.answer(key, member, { now, limit }, clock.now());
 * if (known !== undefined) return known;
 * ```
 */
export class FullCounters {
  readonly #entries = new Map<string, FullCounter>();
  readonly #maxEntries: number;

  constructor(maxEntries = DEFAULT_MAX_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  /**
   * What an increment of `member` (as stored) on the counter `key` answers, when the set is known full
   * and live at the engine's `now` and the wall clock's `wallNow`; `undefined` when a request must ask.
   */
  answer(
    key: string,
    member: string,
    options: { now: number; limit: number },
    wallNow: number,
  ): number | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.windowExpiresAt <= options.now || isExpired(entry.expiresAt, wallNow)) {
      this.#entries.delete(key);
      return undefined;
    }
    if (entry.members.size < options.limit) return undefined;
    return entry.members.has(member) ? entry.members.size : options.limit + 1;
  }

  /** Remembers the counter as stored, if its set holds `limit` members or more. */
  remember(key: string, counter: StoredCounter, limit: number): void {
    if (counter.members.size < limit) return;
    this.#entries.delete(key);
    this.#entries.set(key, {
      members: counter.members,
      windowExpiresAt: counter.windowExpiresAt,
      expiresAt: counter.expiresAt,
    });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}
