import { describe, expect, it } from 'vitest';
import { type BenchSizes, runBenchmarks } from '../../bench/run.js';

/**
 * A scenario that stalls ends the run in bounded time: the digest scenario against a simulator whose
 * budget of 100 requests a minute its calls cannot fit (our client's pacer then waits about 0.6 s a
 * call, some 80 s for these calls), with a time limit of a few seconds. Only the failure and its
 * message are checked, never a time.
 */

const STALLING: BenchSizes = {
  digest: { calls: 150, rounds: 1, warmupCalls: 0, itemsPerPage: 5, rateLimitPerMinute: 100 },
  backlog: { events: 0 },
  pagedBacklog: {},
  backlogMemory: {},
  steadyState: {},
  rules: { events: 500, runs: 1, extraRules: 1 },
  coldStart: {},
  fanOut: {},
  pushLatency: {},
};

describe('runBenchmarks with a scenario that stalls', () => {
  it('stops the scenario at its time limit, says so, and runs the next one', async () => {
    const report = await runBenchmarks({
      scale: 'tiny',
      sizes: STALLING,
      only: ['digest', 'rules'],
      timeLimitsMs: { digest: 4_000 },
    });

    expect(Object.keys(report.errors)).toEqual(['digest']);
    expect(report.errors.digest).toMatch(
      /^digest did not finish within 4 s and was stopped: a scenario that stalls .* --time-limit <minutes>$/,
    );
    expect(report.results.digest).toBeUndefined();
    expect(report.results.rules).toHaveLength(3);
    expect(report.durations.digest?.limitSeconds).toBe(4);
  }, 120_000);
});
