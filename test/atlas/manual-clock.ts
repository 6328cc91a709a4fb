import type { Clock } from '../../shared/clock.js';

/**
 * A clock that only moves when slept on or advanced: `sleep` records the wait, moves time forward and
 * resolves at once, so retry tests assert the waits without spending them.
 */
export class ManualClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;

  constructor(start = Date.parse('2024-05-01T12:00:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.#now += ms;
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}
