import { ROLL_UP_RETENTION_MS, type SuppressionIncrement } from '../rules/counter-store.js';
import {
  applySuppressions,
  hasPendingRollUp,
  type RollUpStateJson,
  rollUpStateFromJson,
  rollUpStateToJson,
  type SuppressionAnswer,
  type SuppressionStep,
} from '../rules/suppression-roll-up.js';
import { counterMember } from './counter-increments.js';
import { isExpired } from './expiry.js';
import { counterTtlSeconds } from './retention.js';

/** A suppression key as a persistent store keeps it: a counter set of one member, and its roll-ups. */
export interface StoredSuppression {
  readonly members: ReadonlySet<string>;
  /** When the period ends, on the rule engine's clock. */
  readonly windowExpiresAt: number;
  /** Epoch seconds on the wall clock; `undefined` for never. */
  readonly expiresAt: number | undefined;
  /** The roll-ups as JSON (see `RollUpStateJson`); absent in a key written before roll-ups. */
  readonly rollUp?: unknown;
}

/** What applying a key's occurrences gives, and what the store must write. */
export interface StoredSuppressionUpdate {
  answers: SuppressionAnswer[];
  /** The key to write, or `undefined` when nothing changed. */
  write:
    | {
        members: Set<string>;
        windowExpiresAt: number;
        expiresAt: number;
        rollUp: RollUpStateJson | undefined;
      }
    | undefined;
}

/**
 * Applies one suppression key's occurrences (members as the store keeps them) to the key as stored,
 * with `applySuppressions`, and says what to write: a key past its TTL on the wall clock is absent; a
 * key written lives as a counter does (its period plus the grace), and while it holds suppressed
 * occurrences no alert told of, {@link ROLL_UP_RETENTION_MS} longer. Pure: both persistent stores use it.
 *
 * @example
 * ```ts
 * const update = applyStoredSuppressions(undefined, [{ member: 'event:a', now: 0, expiresAt: 60_000 }], {
 *   wallNow: 0,
 *   graceMs: 0,
 * });
 * update.answers; // [{ alerts: true }]
 * ```
 */
export function applyStoredSuppressions(
  stored: StoredSuppression | undefined,
  steps: readonly SuppressionStep[],
  options: { wallNow: number; graceMs: number },
): StoredSuppressionUpdate {
  const { wallNow, graceMs } = options;
  const occurrence = stored?.members.values().next().value;
  const live = stored !== undefined && occurrence !== undefined && !isExpired(stored.expiresAt, wallNow);
  const update = applySuppressions(
    live
      ? { occurrence, periodEnd: stored.windowExpiresAt, state: rollUpStateFromJson(stored.rollUp) }
      : undefined,
    steps,
  );
  const period = update.period;
  if (!update.changed || period === undefined) return { answers: update.answers, write: undefined };
  const last = steps[steps.length - 1] as SuppressionStep;
  const pending = hasPendingRollUp(period);
  let expiresAt = counterTtlSeconds({
    wallNow,
    counter: { now: Math.min(last.now, period.periodEnd), expiresAt: period.periodEnd, limit: 1 },
    graceMs: graceMs + (pending ? ROLL_UP_RETENTION_MS : 0),
  });
  if (live && stored.expiresAt !== undefined && stored.expiresAt > expiresAt) expiresAt = stored.expiresAt;
  return {
    answers: update.answers,
    write: {
      members: new Set([period.occurrence]),
      windowExpiresAt: period.periodEnd,
      expiresAt,
      rollUp: rollUpStateToJson(period.state),
    },
  };
}

/** An occurrence of one key, its member as the store keeps it, with its place in the caller's list. */
export interface IndexedSuppressionStep extends SuppressionStep {
  readonly index: number;
}

/**
 * The occurrences grouped by key, each key's in the caller's order, members as the stores keep them
 * (`counterMember`).
 *
 * @example
 * ```ts
 * suppressionsByKey([{ key: 'k', member: 'event:a', now: 0, expiresAt: 1 }]).get('k')?.[0]?.index; // 0
 * ```
 */
export function suppressionsByKey(
  steps: readonly SuppressionIncrement[],
): Map<string, IndexedSuppressionStep[]> {
  const byKey = new Map<string, IndexedSuppressionStep[]>();
  steps.forEach(({ key, member, now, expiresAt }, index) => {
    let entries = byKey.get(key);
    if (entries === undefined) {
      entries = [];
      byKey.set(key, entries);
    }
    entries.push({ index, member: counterMember(member), now, expiresAt });
  });
  return byKey;
}
