import { parseEventTime } from './event-time.js';

/** Day names as rule files write them. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const HOURS_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

/** The hours a team works, as an `outside_hours` condition names them. */
export interface WorkingHoursSpec {
  /** `HH:MM`, local time, inclusive. */
  start: string;
  /** `HH:MM`, local time, exclusive; `24:00` is the end of the day. Before `start` spans midnight. */
  end: string;
  /** An IANA time zone, such as `Europe/Paris` or `UTC`. */
  time_zone: string;
  /** The working days; Monday to Friday when absent. */
  days?: readonly Weekday[] | undefined;
}

/**
 * Minutes after midnight for `HH:MM`, or `undefined` when the text is not a time of day.
 *
 * @example
 * ```ts
 * parseTimeOfDay('08:30'); // 510
 * ```
 */
export function parseTimeOfDay(text: string): number | undefined {
  if (!HOURS_PATTERN.test(text)) return undefined;
  const [hours, minutes] = text.split(':');
  return Number(hours) * 60 + Number(minutes);
}

/**
 * Whether `zone` is an IANA time zone this runtime knows.
 *
 * @example
 * ```ts
 * isKnownTimeZone('Europe/Paris'); // true
 * isKnownTimeZone('Mars/Olympus'); // false
 * ```
 */
export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const WEEKDAY_BY_SHORT_NAME: Readonly<Record<string, Weekday>> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/**
 * Compiles an `outside_hours` condition into a test of event times: it holds when the time, read in
 * the given zone, falls on a day that is not a working day or outside the working hours of a working
 * day. Values that are not event times (see `parseEventTime`) never hold. The spec must be valid
 * (`parseTimeOfDay` and `isKnownTimeZone` accept it); it throws a `RangeError` otherwise.
 *
 * @example
 * ```ts
 * const outside = compileOutsideHours({ start: '08:00', end: '19:00', time_zone: 'Europe/Paris' });
 * outside('2024-03-16T10:00:00Z'); // true: a Saturday
 * ```
 */
export function compileOutsideHours(spec: WorkingHoursSpec): (value: unknown) => boolean {
  const start = parseTimeOfDay(spec.start);
  const end = parseTimeOfDay(spec.end);
  if (start === undefined || end === undefined)
    throw new RangeError(`invalid working hours ${spec.start}-${spec.end}`);
  const days = new Set<Weekday>(spec.days ?? ['mon', 'tue', 'wed', 'thu', 'fri']);
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: spec.time_zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const spansMidnight = end < start;
  return (value) => {
    const time = parseEventTime(value);
    if (time === undefined) return false;
    let weekday: Weekday | undefined;
    let minutes = 0;
    for (const part of format.formatToParts(time)) {
      if (part.type === 'weekday') weekday = WEEKDAY_BY_SHORT_NAME[part.value];
      else if (part.type === 'hour') minutes += Number(part.value) * 60;
      else if (part.type === 'minute') minutes += Number(part.value);
    }
    if (weekday === undefined || !days.has(weekday)) return true;
    const working = spansMidnight ? minutes >= start || minutes < end : minutes >= start && minutes < end;
    return !working;
  };
}
