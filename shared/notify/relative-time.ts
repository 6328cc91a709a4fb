/**
 * Times as people read them in an alert: UTC to the second, and how long ago.
 */

/**
 * A time in milliseconds since the epoch as `2024-05-01 12:34:56 UTC`.
 *
 * @example
 * ```ts
 * formatUtc(Date.UTC(2024, 4, 1, 12, 34, 56)); // '2024-05-01 12:34:56 UTC'
 * ```
 */
export function formatUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: ReadonlyArray<readonly [name: string, seconds: number]> = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/**
 * How long before `now` a time was: `just now` under 10 seconds, otherwise the largest whole unit,
 * `1 minute ago`, `3 hours ago`, `12 days ago`. A time after `now` (clocks disagree) reads `in 2 minutes`.
 *
 * @example
 * ```ts
 * formatAgo(now - 90_000, now); // '1 minute ago'
 * ```
 */
export function formatAgo(thenMs: number, nowMs: number): string {
  const seconds = Math.round((nowMs - thenMs) / 1000);
  const magnitude = Math.abs(seconds);
  if (magnitude < 10) return 'just now';
  const [name, size] = UNITS.find(([, unitSeconds]) => magnitude >= unitSeconds) ?? ['second', 1];
  const count = Math.floor(magnitude / size);
  const phrase = `${count} ${name}${count === 1 ? '' : 's'}`;
  return seconds >= 0 ? `${phrase} ago` : `in ${phrase}`;
}

/**
 * The time of an ISO-8601 `created` value in milliseconds, or `undefined` when it is missing or not a
 * date.
 *
 * @example
 * ```ts
 * parseEventTime('2024-05-01T12:34:56Z'); // 1714566896000
 * ```
 */
export function parseEventTime(created: unknown): number | undefined {
  if (typeof created !== 'string' || created.length > 64) return undefined;
  const ms = Date.parse(created);
  return Number.isFinite(ms) ? ms : undefined;
}
