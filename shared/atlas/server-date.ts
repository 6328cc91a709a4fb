/**
 * The `Date` header of an HTTP answer (RFC 9110 section 5.6.7): the server's clock, to the second.
 *
 * Recipients must read all three formats HTTP has used: the IMF-fixdate every current server sends
 * (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
 * asctime (`Sun Nov  6 08:49:37 1994`) forms. Anything else (a number, an ISO date, a time zone other
 * than GMT, 31 February, a leap second, a year outside 2000–2199) is not a date this client trusts.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SHORT_DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^${SHORT_DAYS}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${SHORT_DAYS} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Longer values are not dates: the longest valid form is 37 characters. */
const MAX_LENGTH = 64;
const EARLIEST_YEAR = 2000;
const LATEST_YEAR = 2199;

interface DateParts {
  year: number;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

/**
 * Reads a `Date` header value, or gives `undefined` when it is absent or not a valid HTTP date.
 * Never throws: the value comes from the network.
 *
 * @example
 * ```ts
 * parseServerDate('Tue, 24 Nov 2026 03:00:07 GMT'); // 2026-11-24T03:00:07.000Z
 * parseServerDate('yesterday'); // undefined
 * ```
 */
export function parseServerDate(value: string | undefined): Date | undefined {
  if (value === undefined || value.length > MAX_LENGTH) return undefined;
  const text = value.trim();
  const parts = imfFixdate(text) ?? rfc850(text) ?? asctime(text);
  return parts === undefined ? undefined : toDate(parts);
}

function imfFixdate(text: string): DateParts | undefined {
  const match = IMF_FIXDATE.exec(text);
  if (match === null) return undefined;
  const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
  return { year: Number(year), month, day, hour, minute, second };
}

function rfc850(text: string): DateParts | undefined {
  const match = RFC_850.exec(text);
  if (match === null) return undefined;
  const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
  // A two-digit year below 70 is read as 20yy, any other as 19yy (then refused by the year range).
  const short = Number(year);
  return { year: short < 70 ? 2000 + short : 1900 + short, month, day, hour, minute, second };
}

function asctime(text: string): DateParts | undefined {
  const match = ASCTIME.exec(text);
  if (match === null) return undefined;
  const [, month = '', day = '', hour = '', minute = '', second = '', year = ''] = match;
  return { year: Number(year), month, day: day.trim(), hour, minute, second };
}

function toDate(parts: DateParts): Date | undefined {
  const month = MONTHS.indexOf(parts.month);
  const day = Number(parts.day);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
  if (parts.year < EARLIEST_YEAR || parts.year > LATEST_YEAR) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || day < 1) return undefined;
  const ms = Date.UTC(parts.year, month, day, hour, minute, second);
  const date = new Date(ms);
  // Date.UTC rolls 31 February over into March: a day the month does not have is refused.
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return date;
}
