import type { Clock } from '../../shared/clock.js';

/** A clock that moves only when a test moves it; `sleep` moves it. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start = Date.UTC(2025, 5, 1, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#now += ms;
    return Promise.resolve();
  }
}
