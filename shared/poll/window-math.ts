/**
 * Where a source's walk starts and ends, and how it is cut into windows: pure functions over times
 * in milliseconds since the epoch.
 *
 * The watermark is the end of the last window read to its end and committed: every event with
 * `created` at or before it that Atlas listed during that walk was processed. The cursor's seen ids
 * are the ids of the events read with `created` in `[watermark − overlap, watermark]`: exactly the
 * part of the next walk that is read again, so the next walk drops them and evaluates the rest.
 * Window bounds are whole seconds (Atlas writes `created` to the second), both ends inclusive.
 */

const SECOND_MS = 1_000;

/** A time span of a walk, both ends inclusive, in milliseconds since the epoch. */
export interface EventWindow {
  from: number;
  to: number;
}

/** Where one source's walk goes this tick. */
export interface WalkPlan {
  /** Start of the first window (inclusive). */
  from: number;
  /**
   * End of the last window (inclusive), fixed for the whole tick: `now − lag`, or `now` for a walk
   * that reads to now (a poll a push woke).
   */
  end: number;
  /**
   * The latest instant a commit may put the watermark at: `now − lag`. Below `end` when the walk reads
   * to now: what it read past this is read again by a later walk, which drops what it processed
   * (the cursor's seen ids, the alert claims) and reads what Atlas listed late.
   */
  commitEnd: number;
  /**
   * Events created before this are recorded as seen but not evaluated: on a first run, the part of
   * the overlap that lies before the initial lookback.
   */
  evaluateFrom: number;
  /** The watermark before the walk, when the source has a cursor. A commit never goes below it. */
  previousWatermark: number | undefined;
  /** Nothing past the watermark to read: the tick only releases the source. */
  upToDate: boolean;
}

/** Options of {@link planWalk}. */
export interface PlanWalkOptions {
  /** The source's watermark, when it has a cursor. */
  watermark: number | undefined;
  now: number;
  overlapMs: number;
  lagMs: number;
  /** How far back a source without a cursor starts; 0 starts from now. */
  initialLookbackMs: number;
  /** Backfill: read from here even when the cursor is later. */
  since?: number | undefined;
  /**
   * When the tick began (default `now`): a source without a cursor starts `initialLookback` before
   * it, however long the tick ran before this source's turn came.
   */
  startedAt?: number | undefined;
  /**
   * Read up to `now` instead of `now − lag` (a poll a push woke: the pushed event is seconds old),
   * while commits still stop at `now − lag` (see {@link WalkPlan.commitEnd}). Default false.
   */
  readToNow?: boolean | undefined;
}

/**
 * Plans one source's walk: `[watermark − overlap, now − lag]` for a source with a cursor; for a new
 * source, from `now − initialLookback` (or `since`), reaching back to `end − overlap` so that the
 * events the next tick reads again are recorded as seen even when they are older than the lookback
 * (they are then not evaluated). A backfill (`since`) starts the walk at `since` if that is earlier.
 * With `readToNow` the walk ends at `now`, and its commits stop at `now − lag`.
 *
 * @throws RangeError when a duration is negative or a time is not finite.
 *
 * @example
 * ```ts
 * planWalk({ watermark: Date.parse('2025-06-01T12:00:00Z'), now: Date.parse('2025-06-01T12:05:00Z'),
 *   overlapMs: 900_000, lagMs: 30_000, initialLookbackMs: 3_600_000 });
 * // { from: 11:45:00, end: 12:04:30, commitEnd: 12:04:30, evaluateFrom: 11:45:00, previousWatermark: 12:00:00,
 * //   upToDate: false }
 * ```
 */
export function planWalk(options: PlanWalkOptions): WalkPlan {
  const { watermark, now, overlapMs, lagMs, initialLookbackMs, since, startedAt, readToNow } = options;
  for (const [name, value] of Object.entries({ overlapMs, lagMs, initialLookbackMs })) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be >= 0, got ${value}`);
  }
  for (const [name, value] of Object.entries({ now, watermark, since, startedAt })) {
    if (value !== undefined && !Number.isFinite(value))
      throw new RangeError(`${name} is not a time: ${value}`);
  }
  const commitEnd = secondFloor(now - lagMs);
  const end = readToNow === true ? secondFloor(now) : commitEnd;
  if (watermark === undefined) {
    const start = since ?? Math.min(startedAt ?? now, now) - initialLookbackMs;
    // The next walk reads again from the first commit's overlap: what lies there is recorded as seen.
    const from = secondFloor(Math.min(start, commitEnd - overlapMs));
    return { from, end, commitEnd, evaluateFrom: start, previousWatermark: undefined, upToDate: false };
  }
  const from = secondFloor(Math.min(watermark - overlapMs, since ?? Number.POSITIVE_INFINITY));
  return {
    from,
    end,
    commitEnd,
    evaluateFrom: from,
    previousWatermark: watermark,
    upToDate: end <= watermark && (since === undefined || since >= watermark),
  };
}

/**
 * Where a source without a cursor is pinned when its first walk commits no window, or never runs:
 * the start its first walk evaluates from (or the walk's end, when that is earlier). Committed as
 * its cursor, it keeps the next tick from starting later, at its own `now − initialLookback`, and
 * passing the events in between unread.
 *
 * @example
 * ```ts
 * firstWalkStart({ now: Date.parse('2025-06-01T12:00:00Z'), overlapMs: 900_000, lagMs: 30_000,
 *   initialLookbackMs: 3_600_000 }); // 11:00:00
 * ```
 */
export function firstWalkStart(options: Omit<PlanWalkOptions, 'watermark'>): number {
  const plan = planWalk({ ...options, watermark: undefined });
  return Math.min(plan.evaluateFrom, plan.commitEnd);
}

/** Options of {@link nextWindow}. */
export interface NextWindowOptions {
  /** Start of the window: the walk's start, then the previous window's end. */
  from: number;
  /** End of the walk. */
  end: number;
  /** Longest window. At least one second. */
  maxWindowMs: number;
}

/**
 * The next window of a walk: from `from`, at most `maxWindowMs` long, never past the walk's end.
 * A window starts where the previous one ended, so the instant on the boundary is read twice and its
 * events are dropped the second time as already seen: none can fall between two windows.
 *
 * @throws RangeError when `maxWindowMs` is under a second or `from` is after `end`.
 *
 * @example
 * ```ts
 * nextWindow({ from: 0, end: 90_000_000, maxWindowMs: 21_600_000 }); // { from: 0, to: 21_600_000 }
 * ```
 */
export function nextWindow(options: NextWindowOptions): EventWindow {
  const { from, end, maxWindowMs } = options;
  if (!(maxWindowMs >= SECOND_MS)) throw new RangeError(`maxWindowMs must be >= 1000, got ${maxWindowMs}`);
  if (from > end) throw new RangeError(`a window cannot start (${from}) after the walk's end (${end})`);
  return { from, to: Math.min(end, secondFloor(from + maxWindowMs)) };
}

/** Options of {@link shrinkWindow}. */
export interface ShrinkWindowOptions {
  window: EventWindow;
  /** Events the window holds (Atlas's `totalCount`, or those read before giving up on it). */
  events: number;
  /** Most events one window may hold. */
  maxEvents: number;
}

/**
 * The share of its bound a window is sized for: near enough to read few windows, with room for
 * events that do not spread evenly.
 */
export const WINDOW_FILL = 0.8;

/**
 * A shorter window from the same start when `window` holds more than `maxEvents`, sized for about
 * {@link WINDOW_FILL} of the bound assuming events spread evenly (and at most half the span, so a
 * skewed estimate still converges); `undefined` when it holds few enough, or is already one second
 * long and cannot be cut (Atlas dates are whole seconds).
 *
 * @example
 * ```ts
 * shrinkWindow({ window: { from: 0, to: 3_600_000 }, events: 50_000, maxEvents: 20_000 });
 * // { from: 0, to: 1_152_000 }
 * ```
 */
export function shrinkWindow(options: ShrinkWindowOptions): EventWindow | undefined {
  const { window, events, maxEvents } = options;
  if (events <= maxEvents) return undefined;
  const span = window.to - window.from;
  if (span <= SECOND_MS) return undefined;
  const share = Math.min(0.5, (WINDOW_FILL * maxEvents) / events);
  const to = Math.max(window.from + SECOND_MS, secondFloor(window.from + span * share));
  return { from: window.from, to };
}

/** Options of {@link spanAfterRead}. */
export interface SpanAfterReadOptions {
  /** The window just read to its end. */
  window: EventWindow;
  /** New events it held. */
  held: number;
  /** Most events a window may hold. */
  maxEvents: number;
  /** Longest window. */
  maxWindowMs: number;
}

/**
 * How long the next window of a walk is, from the density of the window just read: longer in
 * proportion when it held less than {@link WINDOW_FILL} of the bound (at most twice as long, so a
 * quiet stretch before a busy one costs one shorter window, not a wasted page), as long when it held
 * more. Sizing windows near the bound keeps their number, and so their pages and state writes, low.
 *
 * @example
 * ```ts
 * spanAfterRead({ window: { from: 0, to: 490_000 }, held: 830, maxEvents: 1_750, maxWindowMs: 21_600_000 });
 * // 826000: 1,400 events at the same density
 * ```
 */
export function spanAfterRead(options: SpanAfterReadOptions): number {
  const { window, held, maxEvents, maxWindowMs } = options;
  const span = Math.max(SECOND_MS, window.to - window.from);
  const target = WINDOW_FILL * maxEvents;
  const factor = held >= target ? 1 : Math.min(2, target / Math.max(1, held));
  return Math.min(maxWindowMs, Math.max(SECOND_MS, secondFloor(span * factor)));
}

/**
 * The instant a cursor may be committed at after a window: its end, but never past `commitEnd` (a
 * walk that reads to now commits no further than `now − lag`) and never back: a backfill's window
 * that still lies before the previous watermark has nothing to commit, and a window that reaches the
 * previous watermark while `commitEnd` lies before it commits there, where the cursor already is.
 *
 * @example
 * ```ts
 * commitPoint({ windowEnd: 2_000, previousWatermark: 5_000 }); // undefined
 * commitPoint({ windowEnd: 9_000, previousWatermark: 5_000 }); // 9000
 * commitPoint({ windowEnd: 9_000, previousWatermark: 5_000, commitEnd: 7_000 }); // 7000
 * ```
 */
export function commitPoint(options: {
  windowEnd: number;
  previousWatermark: number | undefined;
  /** The latest instant a commit may reach (`WalkPlan.commitEnd`). Default: no limit. */
  commitEnd?: number | undefined;
}): number | undefined {
  const { windowEnd, previousWatermark, commitEnd } = options;
  if (previousWatermark !== undefined && windowEnd < previousWatermark) return undefined;
  const point = commitEnd === undefined ? windowEnd : Math.min(windowEnd, commitEnd);
  return previousWatermark === undefined ? point : Math.max(point, previousWatermark);
}

/**
 * The oldest `created` whose ids a cursor at `watermark` keeps: the start of the overlap.
 *
 * @example
 * ```ts
 * seenFloor({ watermark: 1_000_000, overlapMs: 900_000 }); // 100000
 * ```
 */
export function seenFloor(options: { watermark: number; overlapMs: number }): number {
  return options.watermark - options.overlapMs;
}

/** `time` rounded down to a whole second. */
export function secondFloor(time: number): number {
  return Math.floor(time / SECOND_MS) * SECOND_MS;
}
