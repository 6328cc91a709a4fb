import { type Clock, systemClock } from '../shared/clock.js';

/**
 * The system clock moved forward on demand: the demo runs its second tick "five minutes later"
 * without waiting five minutes. Everything of the demo (simulator, store, ticks, messages) shares it,
 * so event times, windows, leases and the times messages give all agree; waits still take real time.
 *
 * @example
 * ```ts
 * const clock = new AdvancingClock();
 * clock.advance(5 * 60_000);
 * ```
 */
export class AdvancingClock implements Clock {
  #offsetMs = 0;

  now(): number {
    return systemClock.now() + this.#offsetMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the clock only moves forward, got ${ms} ms`);
    this.#offsetMs += ms;
  }
}
