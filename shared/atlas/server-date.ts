/** `Sun, 06 Nov 1994 08:49:37 GMT`: the one form RFC 7231 (section 7.1.1.1) lets a server send. */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * Reads an HTTP `Date` header in RFC 7231's IMF-fixdate form. Anything else (the obsolete RFC 850 and
 * asctime forms, a day that does not exist, a weekday that does not match the date, an empty or
 * missing header) gives `undefined`, so a caller falls back to its own clock rather than trusting
 * garbage. Never throws.
 *
 * @example
 * ```ts
 * parseServerDate('Sun, 06 Nov 1994 08:49:37 GMT')?.toISOString(); // '1994-11-06T08:49:37.000Z'
 * parseServerDate('yesterday'); // undefined
 * ```
 */
export function parseServerDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const match = IMF_FIXDATE.exec(value.trim());
  if (match === null) return undefined;
  const [, weekday, day, month, year, hour, minute, second] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const ms = Date.UTC(
    Number(year),
    MONTHS.indexOf(month),
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  const date = new Date(ms);
  // Date.UTC rolls 31 Feb over into March and 24:00 into the next day: a real date round-trips.
  if (
    Number.isNaN(ms) ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(hour) ||
    date.getUTCMinutes() !== Number(minute) ||
    date.getUTCSeconds() !== Number(second) ||
    WEEKDAYS[date.getUTCDay()] !== weekday
  ) {
    return undefined;
  }
  return date;
}
