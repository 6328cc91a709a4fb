import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CounterStore, SuppressionIncrement } from '../../shared/rules/counter-store.js';
import { ROLL_UP_IDS } from '../../shared/rules/suppression-roll-up.js';
import { ManualClock } from './manual-clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What the suite needs of a store: made on a wall clock the test moves, and made again on the same state. */
export interface SuppressionContractOptions {
  create: (options: { clock: ManualClock }) => Promise<CounterStore>;
  /**
   * The same state, as another process or a later tick sees it (a new store object); the store itself
   * for a store held in memory.
   */
  reopen: (store: CounterStore, options: { clock: ManualClock }) => Promise<CounterStore>;
}

/**
 * What every `CounterStore`'s `suppressMany` does, as a reusable suite: the in-memory store, the state
 * file and DynamoDB Local run it. Times are engine times near the wall clock's.
 */
export function describeSuppressionContract(name: string, options: SuppressionContractOptions): void {
  describe(`${name}: suppressions and their roll-ups`, () => {
    const start = Date.UTC(2025, 5, 1, 12, 0, 0);
    const step = (key: string, member: string, offset: number): SuppressionIncrement => ({
      key,
      member: `event:${member}`,
      now: start + offset,
      expiresAt: start + offset + HOUR,
    });
    const newKey = () => `suppress|rule|${randomUUID()}`;

    it('alerts for the first occurrence of a period, and the next period carries the suppressed ones', async () => {
      // Prepare
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();

      // Act
      const answers = await store.suppressMany([
        step(key, 'a', 0),
        step(key, 'b', 2 * MINUTE),
        step(key, 'c', 30 * MINUTE),
        step(key, 'd', 59 * MINUTE),
        step(key, 'e', 61 * MINUTE),
        step(key, 'f', 62 * MINUTE),
      ]);

      // Assess
      expect(answers).toEqual([
        { alerts: true },
        { alerts: false },
        { alerts: false },
        { alerts: false },
        { alerts: true, rollUp: { suppressed: 3, first: start + 2 * MINUTE, last: start + 59 * MINUTE } },
        { alerts: false },
      ]);
      expect(await store.get(key, start + 62 * MINUTE)).toBe(1);
    });

    it('counts occurrences across batches and store objects, and a batch read again nothing twice', async () => {
      // Prepare: three ticks, the second cut short and run again on a store object of its own.
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      await store.suppressMany([step(key, 'a', 0), step(key, 'b', MINUTE)]);
      const retried = [step(key, 'c', 10 * MINUTE), step(key, 'b', MINUTE), step(key, 'd', 20 * MINUTE)];
      const firstTry = await store.suppressMany(retried);
      clock.advance(5 * MINUTE);
      const other = await options.reopen(store, { clock });

      // Act
      const secondTry = await other.suppressMany(retried);
      const next = await other.suppressMany([step(key, 'e', 70 * MINUTE)]);

      // Assess
      expect(secondTry).toEqual(firstTry);
      expect(next).toEqual([
        { alerts: true, rollUp: { suppressed: 3, first: start + MINUTE, last: start + 20 * MINUTE } },
      ]);
    });

    it('answers a batch that started a new period the same when it is read again', async () => {
      // Prepare: a batch over more than a period, as a backlog reads it, applied twice.
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      const batch = [
        step(key, 'a', 0),
        step(key, 'b', MINUTE),
        step(key, 'c', 61 * MINUTE),
        step(key, 'd', 62 * MINUTE),
        step(key, 'e', 63 * MINUTE),
      ];

      // Act
      const first = await store.suppressMany(batch);
      const other = await options.reopen(store, { clock });
      const again = await other.suppressMany(batch);
      const later = await other.suppressMany([step(key, 'f', 130 * MINUTE)]);

      // Assess: a, read again after c started a period, alerts again with what it carried (the
      // poller's record of that alert decides), and b is not counted into c's period.
      expect(again).toEqual(first);
      expect(first.map((answer) => answer.alerts)).toEqual([true, false, true, false, false]);
      expect(first[2]?.rollUp).toEqual({ suppressed: 1, first: start + MINUTE, last: start + MINUTE });
      expect(later).toEqual([
        { alerts: true, rollUp: { suppressed: 2, first: start + 62 * MINUTE, last: start + 63 * MINUTE } },
      ]);
    });

    it('counts a late occurrence of an earlier period in the period it arrives in', async () => {
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      await store.suppressMany([step(key, 'a', 0), step(key, 'c', 61 * MINUTE)]);

      const late = await store.suppressMany([step(key, 'b', 30 * MINUTE)]);
      const next = await store.suppressMany([step(key, 'd', 130 * MINUTE)]);

      expect(late).toEqual([{ alerts: false }]);
      expect(next).toEqual([
        { alerts: true, rollUp: { suppressed: 1, first: start + 30 * MINUTE, last: start + 30 * MINUTE } },
      ]);
    });

    it('keeps untold suppressed occurrences past the counter grace, for the group next alert days later', async () => {
      // Prepare
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      const quiet = newKey();
      await store.suppressMany([step(key, 'a', 0), step(key, 'b', MINUTE), step(quiet, 'q', 0)]);
      clock.advance(10 * DAY);

      // Act
      const store2 = await options.reopen(store, { clock });
      const answers = await store2.suppressMany([step(key, 'c', 10 * DAY), step(quiet, 'r', 10 * DAY)]);

      // Assess
      expect(answers).toEqual([
        { alerts: true, rollUp: { suppressed: 1, first: start + MINUTE, last: start + MINUTE } },
        { alerts: true },
      ]);
    });

    it(`counts past ${ROLL_UP_IDS} occurrences, and a batch read again past them nothing twice`, async () => {
      // Prepare
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      const many = Array.from({ length: ROLL_UP_IDS + 200 }, (_, at) => step(key, `m${at}`, 1 + at));
      await store.suppressMany([step(key, 'a', 0), ...many.slice(0, 700)]);
      await store.suppressMany(many.slice(600));

      // Act
      await store.suppressMany(many.slice(900));
      const [next] = await store.suppressMany([step(key, 'z', HOUR)]);

      // Assess
      expect(next).toEqual({
        alerts: true,
        rollUp: { suppressed: ROLL_UP_IDS + 200, first: start + 1, last: start + ROLL_UP_IDS + 200 },
      });
    });

    it('reads a key that increment wrote as a period without roll-ups', async () => {
      const clock = new ManualClock(start);
      const store = await options.create({ clock });
      const key = newKey();
      await store.increment(key, 'event:a', { now: start, expiresAt: start + HOUR, limit: 1 });

      const answers = await store.suppressMany([
        step(key, 'a', 0),
        step(key, 'b', MINUTE),
        step(key, 'c', HOUR),
      ]);

      expect(answers).toEqual([
        { alerts: true },
        { alerts: false },
        { alerts: true, rollUp: { suppressed: 1, first: start + MINUTE, last: start + MINUTE } },
      ]);
    });
  });
}
