import { describe, expect, it } from 'vitest';
import {
  commitPoint,
  nextWindow,
  planWalk,
  secondFloor,
  seenFloor,
  shrinkWindow,
} from '../../shared/poll/window-math.js';

const NOW = Date.parse('2026-11-22T06:17:00.500Z');
const MINUTE = 60_000;
const BASE = { now: NOW, overlapMs: 15 * MINUTE, lagMs: MINUTE, initialLookbackMs: 60 * MINUTE };

describe('planWalk checks', () => {
  it.each([
    ['overlapMs', { overlapMs: -1 }, 'overlapMs must be >= 0, got -1'],
    ['lagMs', { lagMs: Number.NaN }, 'lagMs must be >= 0, got NaN'],
    [
      'initialLookbackMs',
      { initialLookbackMs: Number.POSITIVE_INFINITY },
      'initialLookbackMs must be >= 0, got Infinity',
    ],
    ['now', { now: Number.NaN }, 'now is not a time: NaN'],
    ['watermark', { watermark: Number.POSITIVE_INFINITY }, 'watermark is not a time: Infinity'],
    ['since', { since: Number.NaN }, 'since is not a time: NaN'],
  ])('refuses a bad %s, naming it', (_, change, message) => {
    // Act
    const act = () => planWalk({ watermark: undefined, ...BASE, ...change });

    // Assess
    expect(act).toThrow(new RangeError(message));
  });

  it('accepts zero overlap, lag and lookback', () => {
    // Act
    const plan = planWalk({ watermark: undefined, now: NOW, overlapMs: 0, lagMs: 0, initialLookbackMs: 0 });

    // Assess
    expect(plan).toEqual({
      from: secondFloor(NOW),
      end: secondFloor(NOW),
      commitEnd: secondFloor(NOW),
      evaluateFrom: NOW,
      previousWatermark: undefined,
      upToDate: false,
    });
  });
});

describe('planWalk up to date', () => {
  const watermark = secondFloor(NOW - MINUTE);

  it('is up to date when the end is exactly the watermark', () => {
    // Act
    const plan = planWalk({ watermark, ...BASE });

    // Assess
    expect(plan.end).toBe(watermark);
    expect(plan.upToDate).toBe(true);
  });

  it('is not up to date when the end is past the watermark', () => {
    // Act
    const plan = planWalk({ watermark: watermark - 1_000, ...BASE });

    // Assess
    expect(plan.upToDate).toBe(false);
  });

  it('stays up to date for a backfill that starts at the watermark, and not for one before it', () => {
    // Act
    const at = planWalk({ watermark, ...BASE, since: watermark });
    const before = planWalk({ watermark, ...BASE, since: watermark - 1 });

    // Assess
    expect(at.upToDate).toBe(true);
    expect(before.upToDate).toBe(false);
    expect(before.from).toBe(secondFloor(watermark - 15 * MINUTE));
  });

  it('starts a backfill before the overlap at since, rounded down', () => {
    // Act
    const plan = planWalk({ watermark, ...BASE, since: watermark - 20 * MINUTE - 500 });

    // Assess
    expect(plan.from).toBe(watermark - 20 * MINUTE - 1_000);
    expect(plan.evaluateFrom).toBe(plan.from);
  });
});

describe('nextWindow checks', () => {
  it('accepts a window of exactly one second and refuses one shorter, or none', () => {
    // Act
    const window = nextWindow({ from: 0, end: 10_000, maxWindowMs: 1_000 });
    const shorter = () => nextWindow({ from: 0, end: 10_000, maxWindowMs: 999 });
    const none = () => nextWindow({ from: 0, end: 10_000, maxWindowMs: Number.NaN });

    // Assess
    expect(window).toEqual({ from: 0, to: 1_000 });
    expect(shorter).toThrow(new RangeError('maxWindowMs must be >= 1000, got 999'));
    expect(none).toThrow(RangeError);
  });

  it('accepts a window that starts at the end and refuses one that starts after it', () => {
    // Act
    const empty = nextWindow({ from: 5_000, end: 5_000, maxWindowMs: 1_000 });
    const after = () => nextWindow({ from: 5_001, end: 5_000, maxWindowMs: 1_000 });

    // Assess
    expect(empty).toEqual({ from: 5_000, to: 5_000 });
    expect(after).toThrow(new RangeError("a window cannot start (5001) after the walk's end (5000)"));
  });

  it('ends a window on a whole second', () => {
    // Act
    const window = nextWindow({ from: 500, end: 100_000, maxWindowMs: 2_000 });

    // Assess
    expect(window).toEqual({ from: 500, to: 2_000 });
  });
});

describe('shrinkWindow bounds', () => {
  it('keeps a window of exactly one second, however crowded', () => {
    // Act
    const cut = shrinkWindow({ window: { from: 0, to: 1_000 }, events: 10_000, maxEvents: 10 });

    // Assess
    expect(cut).toBeUndefined();
  });

  it('cuts a window of just over a second to one second', () => {
    // Act
    const cut = shrinkWindow({ window: { from: 0, to: 1_001 }, events: 10_000, maxEvents: 10 });

    // Assess
    expect(cut).toEqual({ from: 0, to: 1_000 });
  });

  it('cuts to four fifths of the bound over the events, on a whole second', () => {
    // Act
    const cut = shrinkWindow({ window: { from: 0, to: 100_000 }, events: 1_000, maxEvents: 500 });
    const crowded = shrinkWindow({ window: { from: 0, to: 100_000 }, events: 4_000, maxEvents: 500 });

    // Assess
    expect(cut).toEqual({ from: 0, to: 40_000 });
    expect(crowded).toEqual({ from: 0, to: 10_000 });
  });

  it('sizes the cut from the span of a window that starts late in the epoch, not from its end', () => {
    // Prepare
    const from = Date.parse('2026-11-22T06:00:00Z');

    // Act
    const cut = shrinkWindow({ window: { from, to: from + 100_000 }, events: 4_000, maxEvents: 500 });

    // Assess
    expect(cut).toEqual({ from, to: from + 10_000 });
  });
});

describe('commitPoint and seenFloor', () => {
  it('commits a window that ends exactly at the previous watermark', () => {
    // Act
    const point = commitPoint({ windowEnd: 5_000, previousWatermark: 5_000 });

    // Assess
    expect(point).toBe(5_000);
  });

  it('keeps ids from the watermark minus the overlap', () => {
    // Act
    const floor = seenFloor({ watermark: 10_000, overlapMs: 3_000 });

    // Assess
    expect(floor).toBe(7_000);
  });

  it('rounds a time before the epoch down, not toward zero', () => {
    // Act
    const floored = secondFloor(-1);

    // Assess
    expect(floored).toBe(-1_000);
  });
});
