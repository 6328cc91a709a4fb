import { describe, expect, it } from 'vitest';
import type { CounterStore } from '../../shared/rules/counter-store.js';

/**
 * The behaviour every `CounterStore` must have, as a reusable suite: the in-memory store runs it here,
 * and any persistent implementation runs the same suite against its own backend.
 *
 * @example
 * ```ts
 * describeCounterStoreContract('DynamoCounterStore', () => createStoreAgainstDynamoDbLocal());
 * ```
 */
export function describeCounterStoreContract(
  name: string,
  create: () => CounterStore | Promise<CounterStore>,
): void {
  describe(`${name} (CounterStore contract)`, () => {
    const live = { now: 1_000, expiresAt: 61_000, limit: 3 };

    it('counts distinct members, not calls', async () => {
      const store = await create();

      const counts = [
        await store.increment('k', 'a', live),
        await store.increment('k', 'b', live),
        await store.increment('k', 'a', live),
      ];

      expect(counts).toEqual([1, 2, 2]);
      expect(await store.get('k', live.now)).toBe(2);
    });

    it('keeps keys apart', async () => {
      const store = await create();

      await store.increment('k1', 'a', live);
      await store.increment('k2', 'a', live);
      await store.increment('k2', 'b', live);

      expect([await store.get('k1', live.now), await store.get('k2', live.now)]).toEqual([1, 2]);
    });

    it('stores nothing past the limit and answers limit + 1 for a new member', async () => {
      const store = await create();
      for (const member of ['a', 'b', 'c']) await store.increment('k', member, live);

      const overflow = await store.increment('k', 'd', live);
      const known = await store.increment('k', 'b', live);

      expect([overflow, known]).toEqual([4, 3]);
      expect(await store.get('k', live.now)).toBe(3);
    });

    it('treats a key at or past its expiry as empty, and starts it again with the new expiry', async () => {
      const store = await create();
      await store.increment('k', 'a', live);
      await store.increment('k', 'b', live);

      const atExpiry = await store.get('k', live.expiresAt);
      const restarted = await store.increment('k', 'a', { now: 70_000, expiresAt: 130_000, limit: 3 });

      expect([atExpiry, restarted]).toEqual([0, 1]);
      expect(await store.get('k', 129_999)).toBe(1);
      expect(await store.get('k', 130_000)).toBe(0);
    });

    it('keeps the expiry a live key was created with', async () => {
      const store = await create();
      await store.increment('k', 'a', live);

      await store.increment('k', 'b', { now: 2_000, expiresAt: 999_000, limit: 3 });

      expect(await store.get('k', live.expiresAt - 1)).toBe(2);
      expect(await store.get('k', live.expiresAt)).toBe(0);
    });

    it('answers a batch as calls one after another would, each key in order', async () => {
      const store = await create();
      const next = { now: live.expiresAt, expiresAt: live.expiresAt + 60_000, limit: 3 };

      const counts = await store.incrementMany([
        { key: 'k1', member: 'a', ...live },
        { key: 'k2', member: 'a', ...live },
        { key: 'k1', member: 'b', ...live },
        { key: 'k1', member: 'a', ...live },
        { key: 'k1', member: 'c', ...live },
        { key: 'k1', member: 'd', ...live },
        { key: 'k1', member: 'd', ...next },
      ]);

      expect(counts).toEqual([1, 1, 2, 2, 3, 4, 1]);
      expect([await store.get('k1', next.now), await store.get('k2', live.now)]).toEqual([1, 1]);
    });

    it('counts a batch read again nothing twice', async () => {
      const store = await create();
      const batch = ['a', 'b', 'a'].map((member) => ({ key: 'k', member, ...live }));

      const counts = [await store.incrementMany(batch), await store.incrementMany(batch)];

      expect(counts).toEqual([
        [1, 2, 2],
        [2, 2, 2],
      ]);
      expect(await store.get('k', live.now)).toBe(2);
    });

    it('answers 0 for a key it never saw', async () => {
      const store = await create();

      expect(await store.get('never', live.now)).toBe(0);
    });
  });
}
