import type { CompileContext } from './conditions.js';

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

/**
 * Parses a rule setting's duration, or records an INVALID_DURATION problem at `path` that shows
 * `examples` of durations that fit the setting.
 *
 * @example
 * ```ts
 * compileDuration(spec.window, ['distinct_count', 'window'], context, '30s, 10m, 1h or 1d');
 * ```
 */
export function compileDuration(
  text: string,
  path: (string | number)[],
  context: CompileContext,
  examples: string,
): number | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) {
    context.problems.push({
      code: 'INVALID_DURATION',
      path,
      message: `"${text}" is not a duration: write days, hours, minutes and seconds such as ${examples} (more than 0, at most 366d)`,
    });
  }
  return ms;
}
