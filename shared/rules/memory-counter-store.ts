import {
  type CounterIncrement,
  type CounterIncrementOptions,
  type CounterStore,
  ROLL_UP_RETENTION_MS,
  type SuppressionIncrement,
} from './counter-store.js';
import {
  applySuppressions,
  hasPendingRollUp,
  type RollUp,
  type RollUpState,
  rollUpOf,
  type SuppressionAnswer,
} from './suppression-roll-up.js';

interface CounterSet {
  expiresAt: number;
  members: Set<string>;
  /** A suppression key's roll-ups (see `suppressMany`). */
  rollUp?: RollUpState;
}

const sameMember = (member: string): string => member;

/** The fewest increments between two sweeps of expired keys. */
const SWEEP_EVERY = 1024;

/**
 * How long past its expiry a key survives a sweep. Callers that interleave sources whose event clocks
 * differ (a backfill next to a live project) pass different `now` values; a key that is expired for
 * one of them may still be live for another, so a sweep only drops keys well behind the caller.
 */
const SWEEP_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * A `CounterStore` held in memory: for the CLI, the inline rule tests and a single long-lived process.
 * Expired keys are swept now and then, on the engine's clock (a day behind it), so memory follows
 * the live windows rather than the number of events ever seen.
 *
 * @example
 * ```ts
 * const counters = new MemoryCounterStore();
 * await counters.increment('rule|group|0', 'event-1', { now: 0, expiresAt: 600_000, limit: 5 }); // 1
 * ```
 */
export class MemoryCounterStore implements CounterStore {
  readonly #sets = new Map<string, CounterSet>();
  #incrementsSinceSweep = 0;

  /** Number of keys held, live or not yet swept: for tests and diagnostics. */
  get size(): number {
    return this.#sets.size;
  }

  increment(key: string, member: string, options: CounterIncrementOptions): Promise<number> {
    return Promise.resolve(this.incrementNow(key, member, options));
  }

  incrementMany(increments: readonly CounterIncrement[]): Promise<number[]> {
    return Promise.resolve(
      increments.map((increment) => this.incrementNow(increment.key, increment.member, increment)),
    );
  }

  suppressMany(steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]> {
    const answers: SuppressionAnswer[] = new Array(steps.length);
    // By key, the places of its steps: the steps themselves go to `applySuppressions` as they are.
    const byKey = new Map<string, number[]>();
    for (let index = 0; index < steps.length; index++) {
      const key = (steps[index] as SuppressionIncrement).key;
      const places = byKey.get(key);
      if (places === undefined) byKey.set(key, [index]);
      else places.push(index);
    }
    for (const [key, places] of byKey) {
      this.#incrementsSinceSweep += places.length;
      const set = this.#sets.get(key);
      const occurrence = set === undefined ? undefined : set.members.values().next().value;
      const update = applySuppressions(
        set === undefined || occurrence === undefined
          ? undefined
          : { occurrence, periodEnd: set.expiresAt, state: set.rollUp ?? {} },
        places.map((index) => steps[index] as SuppressionIncrement),
        // Kept in memory only: members need no shorter names, and no write can fail.
        { idOf: sameMember, inPlace: true },
      );
      for (let at = 0; at < places.length; at++) {
        answers[places[at] as number] = update.answers[at] as SuppressionAnswer;
      }
      const period = update.period;
      if (update.changed && period !== undefined) {
        if (set?.members.has(period.occurrence)) {
          set.expiresAt = period.periodEnd;
          set.rollUp = period.state;
        } else {
          this.#sets.set(key, {
            expiresAt: period.periodEnd,
            members: new Set([period.occurrence]),
            rollUp: period.state,
          });
        }
      }
    }
    const last = steps[steps.length - 1];
    if (last !== undefined && this.#incrementsSinceSweep >= Math.max(SWEEP_EVERY, this.#sets.size)) {
      this.sweep(last.now);
    }
    return Promise.resolve(answers);
  }

  /**
   * The suppression keys holding suppressed occurrences no alert has told of yet (the group has not
   * alerted since): what a digest lists, and what a count of every occurrence adds to the roll-ups
   * the alerts carried. Keys whose period ended more than {@link ROLL_UP_RETENTION_MS} before the
   * last sweep are gone.
   */
  untoldRollUps(): Array<{ key: string } & RollUp> {
    const untold: Array<{ key: string } & RollUp> = [];
    for (const [key, set] of this.#sets) {
      const rollUp = rollUpOf(set.rollUp?.suppressed);
      if (rollUp !== undefined) untold.push({ key, ...rollUp });
    }
    return untold;
  }

  get(key: string, now: number): Promise<number> {
    const set = this.#sets.get(key);
    return Promise.resolve(set === undefined || set.expiresAt <= now ? 0 : set.members.size);
  }

  private incrementNow(
    key: string,
    member: string,
    { now, expiresAt, limit }: CounterIncrementOptions,
  ): number {
    // Sweeping as often as there are keys keeps its cost constant per increment.
    if (++this.#incrementsSinceSweep >= Math.max(SWEEP_EVERY, this.#sets.size)) this.sweep(now);
    let set = this.#sets.get(key);
    if (set === undefined || set.expiresAt <= now) {
      set = { expiresAt, members: new Set() };
      this.#sets.set(key, set);
    }
    if (set.members.has(member)) return set.members.size;
    if (set.members.size >= limit) return limit + 1;
    set.members.add(member);
    return set.members.size;
  }

  private sweep(now: number): void {
    this.#incrementsSinceSweep = 0;
    for (const [key, set] of this.#sets) {
      if (set.expiresAt > now - SWEEP_GRACE_MS) continue;
      // Suppressed occurrences no alert told of yet stay for the group's next alert.
      const pending =
        set.rollUp !== undefined &&
        hasPendingRollUp({ occurrence: '', periodEnd: set.expiresAt, state: set.rollUp });
      if (!pending || set.expiresAt <= now - ROLL_UP_RETENTION_MS) this.#sets.delete(key);
    }
  }
}
