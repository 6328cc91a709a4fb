import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../shared/bounded-concurrency.js';

describe('mapWithConcurrency', () => {
  it('runs at most the limit at once and keeps the order of the items', async () => {
    // Prepare
    let running = 0;
    let most = 0;
    const task = async (item: number): Promise<number> => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, (5 - item) * 2));
      running -= 1;
      return item * 10;
    };

    // Act
    const results = await mapWithConcurrency([1, 2, 3, 4, 5], 2, task);

    // Assess
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });

  it('rejects a limit below one', async () => {
    // Act
    const run = mapWithConcurrency([1], 0, async (item) => item);

    // Assess
    await expect(run).rejects.toThrow(RangeError);
  });
});
