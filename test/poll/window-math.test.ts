import { describe, expect, it } from 'vitest';
import {
  commitPoint,
  firstWalkStart,
  nextWindow,
  planWalk,
  secondFloor,
  seenFloor,
  shrinkWindow,
  spanAfterRead,
} from '../../shared/poll/window-math.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const at = (iso: string): number => Date.parse(iso);
const timing = { overlapMs: 15 * MINUTE, lagMs: 30 * SECOND, initialLookbackMs: HOUR };

describe('planWalk', () => {
  it('reads from the watermark minus the overlap to now minus the lag', () => {
    // Prepare
    const watermark = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, watermark, now: at('2025-06-01T12:05:00.750Z') });

    // Assess
    expect(plan).toEqual({
      from: at('2025-06-01T11:45:00Z'),
      end: at('2025-06-01T12:04:30Z'),
      commitEnd: at('2025-06-01T12:04:30Z'),
      evaluateFrom: at('2025-06-01T11:45:00Z'),
      previousWatermark: watermark,
      upToDate: false,
    });
  });

  it('reads to now for a walk a push woke, its commits still ending at now minus the lag', () => {
    // Prepare
    const watermark = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, watermark, now: at('2025-06-01T12:05:00.750Z'), readToNow: true });

    // Assess
    expect(plan).toEqual({
      from: at('2025-06-01T11:45:00Z'),
      end: at('2025-06-01T12:05:00Z'),
      commitEnd: at('2025-06-01T12:04:30Z'),
      evaluateFrom: at('2025-06-01T11:45:00Z'),
      previousWatermark: watermark,
      upToDate: false,
    });
  });

  it("records as seen the overlap before a new source's first commit when a push woke it", () => {
    // Act
    const plan = planWalk({
      ...timing,
      watermark: undefined,
      now: at('2025-06-01T12:05:00Z'),
      initialLookbackMs: 0,
      readToNow: true,
    });

    // Assess
    expect(plan).toMatchObject({
      from: at('2025-06-01T11:49:30Z'),
      end: at('2025-06-01T12:05:00Z'),
      commitEnd: at('2025-06-01T12:04:30Z'),
      evaluateFrom: at('2025-06-01T12:05:00Z'),
    });
  });

  it('ends every walk on a whole second', () => {
    // Act
    const plan = planWalk({ ...timing, watermark: undefined, now: at('2025-06-01T12:00:31.999Z') });

    // Assess
    expect(plan.end).toBe(at('2025-06-01T12:00:01Z'));
  });

  it('starts a new source at now minus the initial lookback and evaluates from there', () => {
    // Prepare
    const now = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, watermark: undefined, now });

    // Assess
    expect(plan.from).toBe(at('2025-06-01T11:00:00Z'));
    expect(plan.evaluateFrom).toBe(at('2025-06-01T11:00:00Z'));
    expect(plan.previousWatermark).toBeUndefined();
  });

  it('reads a whole overlap for a new source whose lookback is shorter, evaluating only the lookback', () => {
    // Prepare
    const now = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, initialLookbackMs: 5 * MINUTE, watermark: undefined, now });

    // Assess
    expect(plan.from).toBe(at('2025-06-01T11:44:30Z'));
    expect(plan.evaluateFrom).toBe(at('2025-06-01T11:55:00Z'));
  });

  it('evaluates nothing already written on the first run when the lookback is 0', () => {
    // Prepare
    const now = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, initialLookbackMs: 0, watermark: undefined, now });

    // Assess
    expect(plan.evaluateFrom).toBeGreaterThan(plan.end);
    expect(plan.from).toBe(plan.end - timing.overlapMs);
  });

  it('starts a backfill at since, before the cursor, and evaluates everything it reads', () => {
    // Prepare
    const since = at('2025-05-01T00:00:00Z');

    // Act
    const plan = planWalk({
      ...timing,
      watermark: at('2025-06-01T12:00:00Z'),
      now: at('2025-06-01T12:05:00Z'),
      since,
    });

    // Assess
    expect(plan.from).toBe(since);
    expect(plan.evaluateFrom).toBe(since);
    expect(plan.upToDate).toBe(false);
  });

  it('starts a new source at since when a backfill names one', () => {
    // Prepare
    const since = at('2025-05-01T00:00:00Z');

    // Act
    const plan = planWalk({ ...timing, watermark: undefined, now: at('2025-06-01T12:00:00Z'), since });

    // Assess
    expect(plan.from).toBe(since);
    expect(plan.evaluateFrom).toBe(since);
  });

  it('reports a source up to date when now minus the lag is not past its watermark', () => {
    // Prepare
    const watermark = at('2025-06-01T12:00:00Z');

    // Act
    const plan = planWalk({ ...timing, watermark, now: watermark + 30 * SECOND + 500 });

    // Assess
    expect(plan.upToDate).toBe(true);
  });

  it('rejects a negative overlap', () => {
    // Act
    const act = () => planWalk({ ...timing, overlapMs: -1, watermark: undefined, now: 0 });

    // Assess
    expect(act).toThrow(/overlapMs must be >= 0/);
  });
});

describe('planWalk of a source without a cursor, late in its tick', () => {
  it('starts the initial lookback before the tick began, and ends at now minus the lag', () => {
    // Act
    const plan = planWalk({
      ...timing,
      watermark: undefined,
      startedAt: at('2025-06-01T12:00:00Z'),
      now: at('2025-06-01T12:12:00Z'),
    });

    // Assess
    expect(plan.evaluateFrom).toBe(at('2025-06-01T11:00:00Z'));
    expect(plan.from).toBe(at('2025-06-01T11:00:00Z'));
    expect(plan.end).toBe(at('2025-06-01T12:11:30Z'));
  });

  it('ignores the tick start for a source with a cursor, and a tick start after now', () => {
    // Act
    const withCursor = planWalk({
      ...timing,
      watermark: at('2025-06-01T12:00:00Z'),
      startedAt: at('2025-06-01T11:00:00Z'),
      now: at('2025-06-01T12:05:00Z'),
    });
    const future = planWalk({
      ...timing,
      watermark: undefined,
      startedAt: at('2025-06-01T13:00:00Z'),
      now: at('2025-06-01T12:00:00Z'),
    });

    // Assess
    expect(withCursor.evaluateFrom).toBe(at('2025-06-01T11:45:00Z'));
    expect(future.evaluateFrom).toBe(at('2025-06-01T11:00:00Z'));
  });

  it('refuses a tick start that is not a time', () => {
    // Act
    const plan = () => planWalk({ ...timing, watermark: undefined, startedAt: Number.NaN, now: 0 });

    // Assess
    expect(plan).toThrow(new RangeError('startedAt is not a time: NaN'));
  });
});

describe('firstWalkStart', () => {
  it('is where the first walk of the tick that began at `now` evaluates from', () => {
    // Act
    const start = firstWalkStart({ ...timing, now: at('2025-06-01T12:00:00.250Z') });

    // Assess
    expect(start).toBe(at('2025-06-01T11:00:00.250Z'));
  });

  it('is the backfill start when one is given', () => {
    // Act
    const start = firstWalkStart({
      ...timing,
      now: at('2025-06-01T12:00:00Z'),
      since: at('2025-05-01T00:00:00Z'),
    });

    // Assess
    expect(start).toBe(at('2025-05-01T00:00:00Z'));
  });

  it('is the walk end when the lookback is shorter than the lag', () => {
    // Act
    const start = firstWalkStart({ ...timing, initialLookbackMs: 0, now: at('2025-06-01T12:00:00Z') });

    // Assess
    expect(start).toBe(at('2025-06-01T11:59:30Z'));
  });
});

describe('nextWindow', () => {
  it('cuts a long walk at the longest window', () => {
    // Act
    const window = nextWindow({ from: 0, end: 30 * HOUR, maxWindowMs: 6 * HOUR });

    // Assess
    expect(window).toEqual({ from: 0, to: 6 * HOUR });
  });

  it('stops at the end of the walk', () => {
    // Act
    const window = nextWindow({ from: 5 * HOUR, end: 6 * HOUR + 30 * SECOND, maxWindowMs: 6 * HOUR });

    // Assess
    expect(window).toEqual({ from: 5 * HOUR, to: 6 * HOUR + 30 * SECOND });
  });

  it('covers a walk with windows that share their boundaries, leaving no instant out', () => {
    // Prepare
    const end = 20 * HOUR + 17 * SECOND;
    const windows = [];

    // Act
    for (let from = 0; ; ) {
      const window = nextWindow({ from, end, maxWindowMs: 6 * HOUR });
      windows.push(window);
      if (window.to === end) break;
      from = window.to;
    }

    // Assess
    expect(windows.map((window) => [window.from / HOUR, window.to / HOUR])).toEqual([
      [0, 6],
      [6, 12],
      [12, 18],
      [18, end / HOUR],
    ]);
  });

  it('rejects a window shorter than a second', () => {
    // Act
    const act = () => nextWindow({ from: 0, end: HOUR, maxWindowMs: 999 });

    // Assess
    expect(act).toThrow(RangeError);
  });
});

describe('shrinkWindow', () => {
  it('keeps a window that holds no more events than the bound', () => {
    // Act
    const shrunk = shrinkWindow({ window: { from: 0, to: HOUR }, events: 20_000, maxEvents: 20_000 });

    // Assess
    expect(shrunk).toBeUndefined();
  });

  it('sizes a crowded window for four fifths of the bound from the same start', () => {
    // Act
    const shrunk = shrinkWindow({ window: { from: 0, to: HOUR }, events: 50_000, maxEvents: 20_000 });

    // Assess
    expect(shrunk).toEqual({ from: 0, to: 1_152_000 });
  });

  it('at least halves a window just over the bound', () => {
    // Act
    const shrunk = shrinkWindow({ window: { from: 0, to: HOUR }, events: 20_001, maxEvents: 20_000 });

    // Assess
    expect(shrunk).toEqual({ from: 0, to: HOUR / 2 });
  });

  it('never cuts below one second', () => {
    // Act
    const twoSeconds = shrinkWindow({ window: { from: 0, to: 2 * SECOND }, events: 1e6, maxEvents: 10 });
    const oneSecond = shrinkWindow({ window: { from: 0, to: SECOND }, events: 1e6, maxEvents: 10 });

    // Assess
    expect(twoSeconds).toEqual({ from: 0, to: SECOND });
    expect(oneSecond).toBeUndefined();
  });
});

describe('spanAfterRead', () => {
  const bound = { maxEvents: 1_750, maxWindowMs: 6 * HOUR };

  it('lengthens the next window in proportion to fill four fifths of the bound', () => {
    // Act
    const span = spanAfterRead({ window: { from: 0, to: 490 * SECOND }, held: 830, ...bound });

    // Assess
    expect(span).toBe(826 * SECOND);
  });

  it('at most doubles it, however quiet the window was', () => {
    // Act
    const few = spanAfterRead({ window: { from: 0, to: 10 * MINUTE }, held: 3, ...bound });
    const none = spanAfterRead({ window: { from: 0, to: 10 * MINUTE }, held: 0, ...bound });

    // Assess
    expect(few).toBe(20 * MINUTE);
    expect(none).toBe(20 * MINUTE);
  });

  it('keeps the span of a window that held four fifths of the bound or more', () => {
    // Act
    const full = spanAfterRead({ window: { from: 0, to: 10 * MINUTE }, held: 1_400, ...bound });
    const over = spanAfterRead({ window: { from: 0, to: 10 * MINUTE }, held: 1_750, ...bound });

    // Assess
    expect(full).toBe(10 * MINUTE);
    expect(over).toBe(10 * MINUTE);
  });

  it('stays within one second and the longest window, on whole seconds', () => {
    // Act
    const longest = spanAfterRead({ window: { from: 0, to: 4 * HOUR }, held: 10, ...bound });
    const instant = spanAfterRead({ window: { from: 5 * SECOND, to: 5 * SECOND }, held: 1_750, ...bound });
    const odd = spanAfterRead({ window: { from: 0, to: 1_500 }, held: 1_000, ...bound });

    // Assess
    expect(longest).toBe(6 * HOUR);
    expect(instant).toBe(SECOND);
    expect(odd).toBe(2 * SECOND);
  });
});

describe('commitPoint', () => {
  it('commits at the end of a window past the previous watermark', () => {
    // Act
    const point = commitPoint({ windowEnd: 9 * SECOND, previousWatermark: 5 * SECOND });

    // Assess
    expect(point).toBe(9 * SECOND);
  });

  it('commits nothing for a backfill window that ends before the previous watermark', () => {
    // Act
    const point = commitPoint({ windowEnd: 2 * SECOND, previousWatermark: 5 * SECOND });

    // Assess
    expect(point).toBeUndefined();
  });

  it('commits a new source at the end of its window', () => {
    // Act
    const point = commitPoint({ windowEnd: 2 * SECOND, previousWatermark: undefined });

    // Assess
    expect(point).toBe(2 * SECOND);
  });

  it('commits no further than the commit end of a walk that reads to now', () => {
    // Act
    const capped = commitPoint({
      windowEnd: 9 * SECOND,
      previousWatermark: 5 * SECOND,
      commitEnd: 7 * SECOND,
    });
    const first = commitPoint({ windowEnd: 9 * SECOND, previousWatermark: undefined, commitEnd: 7 * SECOND });

    // Assess
    expect(capped).toBe(7 * SECOND);
    expect(first).toBe(7 * SECOND);
  });

  it('keeps the previous watermark when the commit end lies before it', () => {
    // Act
    const point = commitPoint({
      windowEnd: 9 * SECOND,
      previousWatermark: 5 * SECOND,
      commitEnd: 3 * SECOND,
    });

    // Assess
    expect(point).toBe(5 * SECOND);
  });
});

describe('seenFloor', () => {
  it('keeps ids from the watermark minus the overlap', () => {
    // Act
    const floor = seenFloor({ watermark: HOUR, overlapMs: 15 * MINUTE });

    // Assess
    expect(floor).toBe(45 * MINUTE);
  });
});

describe('secondFloor', () => {
  it('rounds down to a whole second', () => {
    // Act
    const rounded = [secondFloor(1_999), secondFloor(2_000), secondFloor(-1)];

    // Assess
    expect(rounded).toEqual([1_000, 2_000, -1_000]);
  });
});
