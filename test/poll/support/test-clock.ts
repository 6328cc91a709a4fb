import type { Clock } from '../../../shared/clock.js';

interface Sleeper {
  due: number;
  resolve: () => void;
}

/**
 * A clock that moves only when a test moves it. `sleep` waits until the test advances the clock past
 * its end (or its signal aborts), as a timer would: the tick's deadline timer runs on it.
 */
export class TestClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2025, 5, 2, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves the clock forward and wakes the sleepers whose time has come. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.due <= this.#now);
    this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.due > this.#now);
    for (const sleeper of due) sleeper.resolve();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = { due: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /**
   * A clock on the same time whose `sleep` returns at once: the Atlas client's, so retries after a
   * 429 or a 5xx take no real time and do not move the tick's clock.
   */
  instant(): Clock {
    return {
      now: () => this.#now,
      sleep: (_ms, signal) => (signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()),
    };
  }
}
