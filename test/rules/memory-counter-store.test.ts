import { describe, expect, it } from 'vitest';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { describeSuppressionContract } from '../state/suppression.contract.js';
import { describeCounterStoreContract } from './counter-store-contract.js';

describeCounterStoreContract('MemoryCounterStore', () => new MemoryCounterStore());

describe('MemoryCounterStore', () => {
  it('sweeps keys that expired more than a day before the engine clock', async () => {
    const store = new MemoryCounterStore();
    const day = 24 * 60 * 60 * 1000;
    await store.increment('old', 'a', { now: 0, expiresAt: 1_000, limit: 1 });
    await store.increment('recent', 'a', { now: day, expiresAt: day + 500, limit: 1 });

    for (let index = 0; index < 1024; index++) {
      await store.increment('live', String(index), { now: day + 2_000, expiresAt: 3 * day, limit: 2_000 });
    }

    expect(store.size).toBe(2);
    expect(await store.get('recent', day)).toBe(1);
  });
});

describeSuppressionContract('MemoryCounterStore', {
  create: () => Promise.resolve(new MemoryCounterStore()),
  reopen: (store) => Promise.resolve(store),
});
