/** Alerts published for a source in one clock hour. */
export interface AlertHour {
  /** Start of the hour, in milliseconds since the epoch. */
  readonly hour: number;
  readonly count: number;
}

const HOUR_MS = 3_600_000;
/** Buckets kept: the current hour and the 24 before it. */
const HOURS_KEPT = 25;

/**
 * Adds `count` alerts at `now` to a source's hourly counts, dropping hours older than a day. At most
 * 25 buckets whatever the traffic, so the source item stays small.
 *
 * @example
 * ```ts
 * addAlertHours([], Date.parse('2026-01-01T10:30:00Z'), 2); // [{ hour: Date.parse('2026-01-01T10:00:00Z'), count: 2 }]
 * ```
 */
export function addAlertHours(hours: readonly AlertHour[], now: number, count: number): AlertHour[] {
  const current = Math.floor(now / HOUR_MS) * HOUR_MS;
  const oldest = current - (HOURS_KEPT - 1) * HOUR_MS;
  const kept = hours.filter((entry) => entry.hour >= oldest && entry.hour !== current);
  const existing = hours.find((entry) => entry.hour === current)?.count ?? 0;
  return [...kept, { hour: current, count: existing + count }].sort((a, b) => a.hour - b.hour);
}

/**
 * Alerts in the hours that overlap the last 24 hours before `now`: the count `status` shows as
 * "alerts sent in the last day" (up to an hour more, as counts are kept by the hour).
 *
 * @example
 * ```ts
 * alertsInLastDay([{ hour: 0, count: 3 }], 3_600_000); // 3
 * ```
 */
export function alertsInLastDay(hours: readonly AlertHour[], now: number): number {
  const from = now - 24 * HOUR_MS - HOUR_MS;
  return hours.reduce((sum, entry) => (entry.hour > from && entry.hour <= now ? sum + entry.count : sum), 0);
}

/**
 * Reads stored hourly counts (`[[hour, count], ...]` as JSON text), dropping anything malformed:
 * a damaged count must never fail a tick.
 *
 * @example
 * ```ts
 * parseAlertHours('[[0,2]]'); // [{ hour: 0, count: 2 }]
 * parseAlertHours('garbage'); // []
 * ```
 */
export function parseAlertHours(text: string | undefined): AlertHour[] {
  if (text === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) =>
    Array.isArray(entry) &&
    entry.length === 2 &&
    Number.isSafeInteger(entry[0]) &&
    Number.isSafeInteger(entry[1]) &&
    (entry[1] as number) >= 0
      ? [{ hour: entry[0] as number, count: entry[1] as number }]
      : [],
  );
}

/**
 * Writes hourly counts as JSON text, the form {@link parseAlertHours} reads.
 *
 * @example
 * ```ts
 * formatAlertHours([{ hour: 0, count: 2 }]); // '[[0,2]]'
 * ```
 */
export function formatAlertHours(hours: readonly AlertHour[]): string {
  return JSON.stringify(hours.map((entry) => [entry.hour, entry.count]));
}
