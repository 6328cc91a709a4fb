/**
 * Atlas writes `created` as ISO-8601 UTC (`2024-03-18T14:40:03Z`). Exports and SIEM fixtures also carry
 * `2024-04-03 11:13:04.000000000` (a space, nanoseconds, no zone). Both are read here, and a time
 * with no zone is taken as UTC: `Date.parse` would read it in the host's zone, so the same event
 * would fall into different windows on different machines.
 */
const EVENT_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * The time of an event field in milliseconds since the epoch, or `undefined` when it is not a date
 * and time this module reads (see above). Fractions below a millisecond are dropped.
 *
 * @example
 * ```ts
 * parseEventTime('2024-03-18T14:40:03Z'); // 1710772803000
 * parseEventTime('2024-04-03 11:13:04.000000000'); // read as UTC
 * parseEventTime('yesterday'); // undefined
 * ```
 */
export function parseEventTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const match = EVENT_TIME_PATTERN.exec(value);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? 0);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 31 February over into March: reject dates that do not exist.
  if (new Date(local).getUTCDate() !== day) return undefined;
  return local - zoneOffsetMs(zone);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4) || 0);
  return sign * (hours * 60 + minutes) * 60_000;
}
