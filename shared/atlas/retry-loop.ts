import type { Clock } from '../clock.js';
import type { AtlasError } from './errors.js';
import { backoffDelay, type RetryPolicy } from './retry-policy.js';

/** How far the loop has got, as each attempt's error needs it. */
export interface AttemptProgress {
  /** This attempt's number, 1 for the first. */
  attempt: number;
  /** Milliseconds since the call began, on the loop's clock. */
  elapsedMs: number;
}

/** What one attempt produced: a value, or a failure and whether it is worth trying again. */
export type AttemptOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      retryable: boolean;
      /** Atlas's `Retry-After`, a floor for the next wait. */
      retryAfterMs?: number;
      /** Builds the error to throw if this failure is the last, told how many attempts were made. */
      error: (progress: AttemptProgress) => AtlasError;
    };

/** A retry about to happen, for logs and counters. */
export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: AtlasError;
}

/** Options of {@link retryWithBackoff}. */
export interface RetryLoopOptions {
  policy: RetryPolicy;
  clock: Clock;
  random: () => number;
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * Runs `attempt` until it succeeds, fails for good, runs out of attempts, or the next wait would end
 * past the deadline. Waits go through the clock, so tests drive time. A wait longer than what is left
 * of the deadline ends the call at once with the last error rather than sleeping into a certain loss.
 *
 * @throws The last attempt's error, built with the number of attempts made; or the signal's reason
 *   when the caller aborts.
 *
 * @example
 * ```ts
 * const body = await retryWithBackoff((progress) => tryOnce(progress), { policy, clock, random: Math.random });
 * ```
 */
export async function retryWithBackoff<T>(
  attempt: (progress: AttemptProgress) => Promise<AttemptOutcome<T>>,
  options: RetryLoopOptions,
): Promise<T> {
  const { policy, clock, signal } = options;
  const started = clock.now();
  for (let number = 1; ; number += 1) {
    signal?.throwIfAborted();
    const outcome = await attempt({ attempt: number, elapsedMs: clock.now() - started });
    if (outcome.ok) {
      return outcome.value;
    }
    const progress = { attempt: number, elapsedMs: clock.now() - started };
    if (!outcome.retryable || number >= policy.maxAttempts) {
      throw outcome.error(progress);
    }
    const delayMs = backoffDelay({
      attempt: number,
      policy,
      random: options.random,
      ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
    });
    if (progress.elapsedMs + delayMs > policy.deadlineMs) {
      throw outcome.error(progress);
    }
    options.onRetry?.({ attempt: number, delayMs, error: outcome.error(progress) });
    await clock.sleep(delayMs, signal);
  }
}
