import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';
import { TickDeadlineError } from './errors.js';
import type { CutShortReason } from './tick-types.js';

/** Options of {@link TickBudget}. */
export interface TickBudgetOptions {
  clock: Clock;
  /** When the tick must be over, in milliseconds since the epoch; none: no time limit. */
  deadline?: number | undefined;
  /** No new work starts once less than this remains. */
  marginMs: number;
  /** The caller's abort signal. */
  signal?: AbortSignal | undefined;
}

/**
 * The time a tick has left, and the signal its Atlas calls and publishes run under. New work (a
 * source, a window, a page, an inventory) starts only while more than the margin remains and the
 * caller has not aborted; calls still in flight when only half the margin remains are aborted with a
 * {@link TickDeadlineError}, so the other half is left for recording what was published and freeing
 * the leases. The deadline timer runs on the injected clock; {@link dispose} stops it.
 *
 * @example
 * ```ts
 * const budget = new TickBudget({ clock, deadline, marginMs: 20_000, signal });
 * try {
 *   if (budget.stopReason() === undefined) await atlas.listOrgEvents(orgId, { signal: budget.signal }).toArray();
 * } finally {
 *   budget.dispose();
 * }
 * ```
 */
export class TickBudget {
  readonly #clock: Clock;
  readonly #deadline: number | undefined;
  readonly #marginMs: number;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #controller = new AbortController();
  readonly #timer = new AbortController();

  constructor(options: TickBudgetOptions) {
    this.#clock = options.clock;
    this.#deadline = options.deadline;
    this.#marginMs = options.marginMs;
    this.#callerSignal = options.signal;
    // Every Atlas call and publish in flight listens on it, each removing its listener when it
    // settles: with `concurrency` sources at once, each reading pages, inventory and names, more than
    // Node's default of 10 is the tick working, not a leak to warn of in the function's log.
    setMaxListeners(0, this.#controller.signal);
    const caller = options.signal;
    if (caller !== undefined) {
      if (caller.aborted) this.#controller.abort(caller.reason);
      else caller.addEventListener('abort', () => this.#controller.abort(caller.reason), { once: true });
    }
    if (this.#deadline !== undefined) this.#armDeadline(this.#deadline - this.#marginMs / 2);
  }

  /** Aborts when the caller aborts or half the margin remains: pass it to Atlas calls and publishes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The deadline, if the tick has one. */
  get deadline(): number | undefined {
    return this.#deadline;
  }

  /** Milliseconds left before the deadline (infinite without one). */
  remainingMs(): number {
    return this.#deadline === undefined ? Number.POSITIVE_INFINITY : this.#deadline - this.#clock.now();
  }

  /** Why no new work may start now, or `undefined` when it may. */
  stopReason(): CutShortReason | undefined {
    if (this.#callerSignal?.aborted) return 'aborted';
    if (this.#controller.signal.aborted || this.remainingMs() < this.#marginMs) return 'deadline';
    return undefined;
  }

  /** Whether `error` is this budget's abort (the deadline or the caller's signal) rather than a failure. */
  isAbort(error: unknown): boolean {
    const signal = this.#controller.signal;
    return signal.aborted && (error === signal.reason || error instanceof TickDeadlineError);
  }

  /** Stops the deadline timer. The signal stays as it is. */
  dispose(): void {
    this.#timer.abort();
  }

  #armDeadline(abortAt: number): void {
    const delay = Math.max(0, abortAt - this.#clock.now());
    this.#clock.sleep(delay, this.#timer.signal).then(
      () => {
        this.#controller.abort(
          new TickDeadlineError(
            `the tick reached its deadline margin (${Math.round(this.#marginMs / 2)} ms before ${new Date(
              this.#deadline ?? 0,
            ).toISOString()}): Atlas calls in flight were aborted; their sources are read again next tick`,
          ),
        );
      },
      () => {},
    );
  }
}
