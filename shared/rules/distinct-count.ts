import type { AtlasEvent } from '../atlas/types.js';
import type { CompileContext } from './conditions.js';
import { compileDuration } from './duration.js';
import { compileFieldPath, groupReaders, parseFieldPath } from './field-path.js';
import { addressOrValue } from './first-seen.js';
import type { DistinctCountSpec } from './schema.js';

/** A rule's `distinct_count`, compiled. */
export interface CompiledDistinctCount {
  /** How many distinct values of one group in one window alert; also the most a window keeps. */
  readonly count: number;
  /** The length of the tumbling windows, aligned to multiples of it (as a threshold's). */
  readonly windowMs: number;
  /**
   * The value the rule counts for this event, as it compares values: an IP address in its one
   * spelling, other text as is (long text as a hash); `undefined` when the field or a `group_by`
   * field is missing, null or empty, and the event then counts toward nothing.
   */
  readonly valueOf: (event: AtlasEvent) => string | undefined;
}

/**
 * Compiles a rule's `distinct_count`. Problems go to `context.problems` with paths relative to the
 * rule; `undefined` when there are any.
 *
 * @example
 * ```ts
 * const compiled = compileDistinctCount({ field: 'username', count: 10, window: '10m' }, ['remoteAddress'], context);
 * compiled?.valueOf({ remoteAddress: '203.0.113.7', username: 'alice' }); // 'alice'
 * ```
 */
export function compileDistinctCount(
  spec: DistinctCountSpec,
  groupBy: readonly string[],
  context: CompileContext,
): CompiledDistinctCount | undefined {
  const parsed = parseFieldPath(spec.field);
  if (!parsed.ok) {
    context.problems.push({
      code: 'INVALID_FIELD_PATH',
      path: ['distinct_count', 'field'],
      message: parsed.message,
    });
  }
  const windowMs = compileDuration(spec.window, ['distinct_count', 'window'], context, '30s, 10m, 1h or 1d');
  if (!parsed.ok || windowMs === undefined) return undefined;
  const field = compileFieldPath(parsed.path);
  const groups = groupReaders(groupBy);
  return {
    count: spec.count,
    windowMs,
    valueOf: (event) => {
      for (const group of groups) if (isMissing(group.first(event))) return undefined;
      const raw = field.first(event);
      return isMissing(raw) ? undefined : addressOrValue(raw);
    },
  };
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** One event's value counted toward its group's window, with the counter store's answer. */
export interface DistinctSighting {
  /** The window's counter key: one rule, one group, one window. */
  readonly key: string;
  /** When the window ends (exclusive), on the engine's clock. */
  readonly windowEnd: number;
  readonly count: number;
  /** How many distinct values the store holds for the window with this one (`count + 1`: full before it). */
  readonly answer: number;
  readonly value: string;
  readonly eventId: string;
  readonly time: number;
  readonly event: AtlasEvent;
}

/** Whether a sighting alerts, and with which events. */
export type DistinctJudgement =
  | { readonly alerts: false }
  | {
      readonly alerts: true;
      /** One event per distinct value this engine saw in the window, oldest first, the trigger among them. */
      readonly events: readonly AtlasEvent[];
    };

interface DistinctWindow {
  readonly windowEnd: number;
  /** The first event this engine saw of each value the store counted, by (time, id); at most `count`. */
  readonly entries: { time: number; id: string; event: AtlasEvent }[];
  /** The values of `entries`. */
  readonly values: Set<string>;
  /** The event that alerted for the window, once one has. */
  trigger: string | undefined;
}

/** Past this many remembered windows, those that have ended are dropped. */
const PRUNE_AT = 1024;

/**
 * What one rule engine remembers of distinct-count windows, to judge the counter store's answers.
 *
 * The store keeps a window's values as a set of at most `count` members, so an answer of `count`
 * means either "this value completed the set" or "this value is one the full set holds": the event
 * that repeats a user name in a window already full would alert again. The first event of a window
 * to be answered `count` is its trigger, and the window alerts for it alone (once again when it is
 * read again, with the same fingerprint, so an alert whose delivery failed is raised on the re-read).
 * An engine that starts with the window already full in the store (a new process after a cut-short
 * tick) takes the first event answered `count` as the trigger: it raises the window's alert once more,
 * with the window's fingerprint, which the alert claims settle. An answer above `count` (a new value
 * for a full set) never alerts. Memory stays bounded: `count` events a window, and windows that have
 * ended are dropped once more than 1,024 are held.
 *
 * @example
 * ```ts
 * const windows = new DistinctWindows();
 * const judgement = windows.judge({ key, windowEnd, count: 3, answer: 3, value: 'carol', eventId: 'e3', time, event });
 * judgement.alerts; // true: the third distinct value of the window
 * ```
 */
export class DistinctWindows {
  readonly #windows = new Map<string, DistinctWindow>();

  /** Windows held: for tests and diagnostics. */
  get size(): number {
    return this.#windows.size;
  }

  /** Remembers the sighting's event for its window, and says whether it alerts. */
  judge(sighting: DistinctSighting): DistinctJudgement {
    const { key, count, answer, eventId } = sighting;
    let window = this.#windows.get(key);
    if (window === undefined) {
      window = { windowEnd: sighting.windowEnd, entries: [], values: new Set(), trigger: undefined };
      this.#windows.set(key, window);
    }
    remember(window, sighting);
    if (answer !== count) return { alerts: false };
    window.trigger ??= eventId;
    if (window.trigger !== eventId) return { alerts: false };
    return { alerts: true, events: window.entries.map((entry) => entry.event) };
  }

  /** Drops the windows that ended at or before `time`, once more than 1,024 are held. */
  forgetEnded(time: number): void {
    if (this.#windows.size <= PRUNE_AT) return;
    for (const [key, window] of this.#windows) if (window.windowEnd <= time) this.#windows.delete(key);
  }
}

/**
 * Keeps the sighting's event as its value's first, in (time, id) order, unless the store did not count
 * the value (its set was full) or the window holds `count` values already.
 */
function remember(window: DistinctWindow, sighting: DistinctSighting): void {
  const { entries, values } = window;
  if (sighting.answer > sighting.count || entries.length >= sighting.count) return;
  if (values.has(sighting.value)) return;
  values.add(sighting.value);
  const entry = { time: sighting.time, id: sighting.eventId, event: sighting.event };
  const at = entries.findIndex(
    (known) => known.time > entry.time || (known.time === entry.time && known.id > entry.id),
  );
  if (at === -1) entries.push(entry);
  else entries.splice(at, 0, entry);
}
