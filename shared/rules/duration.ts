const DURATION_PATTERN = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The longest window or suppression period a rule may ask for. */
export const MAX_DURATION_MS = 366 * DAY;

/**
 * Parses a rule duration (`30s`, `10m`, `1h`, `1h30m`, `7d`: days, hours, minutes, seconds, in that
 * order) into milliseconds. Returns `undefined` for anything else, for zero and for more than 366 days.
 *
 * @example
 * ```ts
 * parseDuration('1h30m'); // 5_400_000
 * parseDuration('90'); // undefined: a unit is required
 * ```
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (match === null || text === '') return undefined;
  const [, days, hours, minutes, seconds] = match;
  const ms =
    Number(days ?? 0) * DAY +
    Number(hours ?? 0) * HOUR +
    Number(minutes ?? 0) * MINUTE +
    Number(seconds ?? 0) * SECOND;
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}
