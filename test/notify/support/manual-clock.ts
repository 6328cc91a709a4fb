import type { Clock } from '../../../shared/clock.js';

/** A clock that never waits: `sleep` records how long it was asked to wait and resolves at once. */
export class ManualClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;
  /** Called on every sleep, before it resolves: lets a test abort while the notifier waits. */
  onSleep: (() => void) | undefined;

  constructor(now: number) {
    this.#now = now;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    this.#now += ms;
    this.onSleep?.();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return Promise.resolve();
  }
}
