/** The key of the dispatcher's input that carries the schedule's time (the stack's schedule sets it). */
export const SCHEDULED_TIME_KEY = 'scheduledTime';

/** Options of {@link tickIdentity}. */
export interface TickIdentityOptions {
  /** The invocation's input: EventBridge Scheduler's `{"scheduledTime": "2026-11-24T03:05:00Z"}`, or anything. */
  event: unknown;
  /** When the dispatcher started, in milliseconds since the epoch. */
  startedAt: number;
  /** The schedule's period. */
  periodSeconds: number;
}

/** Which tick an invocation dispatches. */
export interface TickIdentity {
  /** The start of the tick's period, in milliseconds since the epoch: the same for every invocation of one tick. */
  tickAt: number;
  /** `schedule`: from the scheduled time in the input; `start`: from the dispatcher's own start. */
  from: 'schedule' | 'start';
}

/**
 * The tick an invocation belongs to: the scheduled time EventBridge Scheduler puts into the input
 * (`<aws.scheduler.scheduled-time>`, the same in every delivery of one scheduled run, a retry or a
 * duplicate included), or the invocation's start when the input carries none (a manual invoke),
 * rounded down to the schedule period. So two invocations of one tick name the same tick, and their
 * messages the same deduplication ids; consecutive scheduled runs are one period apart and never share
 * one.
 *
 * @example
 * ```ts
 * tickIdentity({ event: { scheduledTime: '2026-11-24T03:08:17Z' }, startedAt: Date.now(), periodSeconds: 300 });
 * // { tickAt: Date.parse('2026-11-24T03:05:00Z'), from: 'schedule' }
 * ```
 */
export function tickIdentity(options: TickIdentityOptions): TickIdentity {
  const periodMs = Math.max(1, Math.round(options.periodSeconds)) * 1_000;
  const scheduled = scheduledTime(options.event);
  const time = scheduled ?? options.startedAt;
  return {
    tickAt: Math.floor(time / periodMs) * periodMs,
    from: scheduled === undefined ? 'start' : 'schedule',
  };
}

function scheduledTime(event: unknown): number | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const value = (event as Record<string, unknown>)[SCHEDULED_TIME_KEY];
  // An ISO-8601 time with a zone, as Scheduler writes it; anything else is not a schedule's time.
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
  ) {
    return undefined;
  }
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
