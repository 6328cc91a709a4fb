import type { AlertRollUp } from './alert.js';

/**
 * What an alert's roll-up says in words, for the email and the Slack message alike: how many
 * occurrences like it were not sent one by one, and when (UTC; hours and minutes when they fall on the
 * alert's day, with the date otherwise). The caller labels it (`Repeats`).
 *
 * @example
 * ```ts
 * const day = Date.UTC(2026, 10, 24);
 * describeRollUp({ suppressed: 14, first: day + 9 * 3_600_000 + 120_000, last: day + 10 * 3_600_000 - 120_000 }, day + 11 * 3_600_000);
 * // 'and 14 more like it between 09:02 and 09:58 UTC were not sent one by one'
 * ```
 */
export function describeRollUp(rollUp: AlertRollUp, raisedAt: number): string {
  const { suppressed, first, last } = rollUp;
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
  const sameDay = day(first) === day(raisedAt) && day(last) === day(raisedAt);
  const at = (ms: number): string => {
    const iso = new Date(ms).toISOString();
    return sameDay ? iso.slice(11, 16) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  };
  if (suppressed === 1) return `and 1 more like it at ${at(first)} UTC was not sent on its own`;
  const span = at(first) === at(last) ? `at ${at(first)}` : `between ${at(first)} and ${at(last)}`;
  return `and ${suppressed} more like it ${span} UTC were not sent one by one`;
}
