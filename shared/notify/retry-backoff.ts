import { NotifyConfigError } from './errors.js';

/** How a notifier sends again what a service did not take. */
export interface RetryOptions {
  /** Rounds of sending, the first included. Default 3 (the SDK also retries each call on its own). */
  maxAttempts?: number;
  /** Wait before the second round; doubles each round, with jitter. Default 200 ms. */
  baseDelayMs?: number;
  /** Longest wait between rounds. Default 2,000 ms. */
  maxDelayMs?: number;
}

/**
 * The rounds and waits of the SNS, EventBridge and Security Hub notifiers: settings checked once, and
 * an exponential backoff with jitter between rounds ("equal jitter": half the ceiling, plus up to half).
 *
 * @example
 * ```ts
 * const retry = new RetryBackoff({ maxAttempts: 3 }, Math.random);
 * await clock.sleep(retry.delayAfter(1), signal);
 * ```
 */
export class RetryBackoff {
  readonly maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #random: () => number;

  /** @throws {NotifyConfigError} when a setting is not a usable number. */
  constructor(options: RetryOptions = {}, random: () => number = Math.random) {
    this.maxAttempts = positiveInteger(options.maxAttempts ?? 3, 'retry.maxAttempts');
    this.#baseDelayMs = nonNegative(options.baseDelayMs ?? 200, 'retry.baseDelayMs');
    this.#maxDelayMs = nonNegative(options.maxDelayMs ?? 2_000, 'retry.maxDelayMs');
    this.#random = random;
  }

  /** The wait after round `attempt` (1 for the first), in milliseconds. */
  delayAfter(attempt: number): number {
    const ceiling = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.#random() * ceiling) / 2);
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new NotifyConfigError(`${name} is ${value}: pass a whole number of at least 1`);
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new NotifyConfigError(`${name} is ${value}: pass a number of milliseconds, 0 or more`);
  }
  return value;
}
