import type { Clock } from '../../../shared/clock.js';

/** A clock that moves only when the test says so; sleeps resolve as time passes them. */
export class ManualClock implements Clock {
  private current: number;
  private readonly sleepers: Array<{ until: number; resolve: () => void }> = [];

  constructor(start = Date.parse('2026-03-01T12:00:00Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.current + ms, resolve });
    });
  }

  /** How many sleeps are waiting. */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }

  advance(ms: number): void {
    this.current += ms;
    for (let i = this.sleepers.length - 1; i >= 0; i--) {
      const sleeper = this.sleepers[i];
      if (sleeper !== undefined && sleeper.until <= this.current) {
        this.sleepers.splice(i, 1);
        sleeper.resolve();
      }
    }
  }
}
