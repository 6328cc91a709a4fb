import type { CounterIncrementOptions } from '../rules/counter-store.js';
import { DAY_MS, ttlSeconds } from './expiry.js';

/** How long each kind of record outlives its use. Both stores take the same settings. */
export interface StateRetention {
  /** How long a SENT alert record is kept, so any re-read of its event finds it. Default 30 days. */
  alertRetentionMs?: number;
  /** How long an inventory snapshot is kept after it was written. Default 90 days. */
  inventoryRetentionMs?: number;
  /**
   * How long a counter outlives its window on the wall clock. The window is on the engine's clock,
   * which runs ahead of the wall clock during a backfill; the grace covers ticks spread over time.
   * Default 1 day.
   */
  counterGraceMs?: number;
}

export const DEFAULT_ALERT_RETENTION_MS = 30 * DAY_MS;
export const DEFAULT_INVENTORY_RETENTION_MS = 90 * DAY_MS;
export const DEFAULT_COUNTER_GRACE_MS = DAY_MS;

/** {@link StateRetention} with every default filled in. */
export type ResolvedRetention = Required<StateRetention>;

/**
 * Fills in the defaults of {@link StateRetention}.
 *
 * @throws RangeError when a setting is negative or not a finite number.
 *
 * @example
 * ```ts
 * resolveRetention({}).alertRetentionMs; // 2_592_000_000
 * ```
 */
export function resolveRetention(retention: StateRetention): ResolvedRetention {
  const resolved = {
    alertRetentionMs: retention.alertRetentionMs ?? DEFAULT_ALERT_RETENTION_MS,
    inventoryRetentionMs: retention.inventoryRetentionMs ?? DEFAULT_INVENTORY_RETENTION_MS,
    counterGraceMs: retention.counterGraceMs ?? DEFAULT_COUNTER_GRACE_MS,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `state retention ${name} must be a non-negative number of milliseconds, got ${value}`,
      );
    }
  }
  return resolved;
}

/**
 * The wall-clock TTL (epoch seconds) of a counter created now: it lives as long on the wall clock as
 * its window lasts on the engine's clock, plus the grace, and never less than until the window's end
 * itself (the engine's clock may run ahead of the wall clock).
 *
 * @example
 * ```ts
 * counterTtlSeconds({ wallNow: 0, counter: { now: 0, expiresAt: 60_000, limit: 5 }, graceMs: 0 }); // 60
 * ```
 */
export function counterTtlSeconds(options: {
  wallNow: number;
  counter: CounterIncrementOptions;
  graceMs: number;
}): number {
  const { wallNow, counter, graceMs } = options;
  const windowMs = Math.max(0, counter.expiresAt - counter.now);
  return ttlSeconds(Math.max(wallNow + windowMs, counter.expiresAt) + graceMs);
}
