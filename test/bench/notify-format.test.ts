import { describe, expect, it } from 'vitest';
import { runNotifyFormatBenchmark } from '../../bench/notify-format.js';

/** The formatting benchmark at a tiny size: every alert it formats gives a valid entry. Times are never asserted. */
describe('the alert formatting benchmark at a tiny size', () => {
  it('formats every alert into an entry the validator accepts, in each timed run', async () => {
    // Act
    const result = await runNotifyFormatBenchmark({ alerts: 60, runs: 1 });

    // Assess
    expect(result).toMatchObject({ alerts: 60, prepared: 60, runs: 1 });
    expect(result.meanMessageBytes).toBeGreaterThan(1_000);
  }, 120_000);
});
