/**
 * Times as people read them in an alert: UTC to the second, never "how long ago", which would be
 * frozen into an email read hours later.
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
