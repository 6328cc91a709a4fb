import { ApiProblem, problems } from './api-problem.js';

/** The largest page the API serves. */
export const MAX_ITEMS_PER_PAGE = 500;
/** The page size when a request names none. */
export const DEFAULT_ITEMS_PER_PAGE = 100;

export interface PageParams {
  pageNum: number;
  itemsPerPage: number;
  /** v2 `includeCount`: when false, `totalCount` is left out. */
  includeCount: boolean;
}

export interface EventFilters {
  minMs: number | undefined;
  maxMs: number | undefined;
  eventTypes: ReadonlySet<string> | undefined;
  excludedEventTypes: ReadonlySet<string> | undefined;
  clusterNames: ReadonlySet<string> | undefined;
}

/**
 * An ISO-8601 date, or date and time, as the API's `format: date-time` allows: seconds optional, 1 to 9
 * fractional digits (milliseconds, the microseconds of Python's `isoformat()`, the nanoseconds of Go's
 * `RFC3339Nano`), `Z`, an offset or no zone. Group 1: the fraction; group 2: the zone.
 */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads a boolean query parameter (`true` / `false`, any case).
 *
 * @example
 * ```ts
 * parseBooleanParam(new URLSearchParams('pretty=TRUE'), 'pretty', false); // true
 * ```
 */
export function parseBooleanParam(
  query: URLSearchParams,
  name: string,
  fallback: boolean,
): boolean | ApiProblem {
  const value = query.get(name);
  if (value === null) return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return problems.invalidAttribute(name, `must be true or false, got ${JSON.stringify(value)}`);
}

function parseIntegerParam(
  query: URLSearchParams,
  name: string,
  options: { fallback: number; min: number; max: number },
): number | ApiProblem {
  const value = query.get(name);
  if (value === null) return options.fallback;
  const number = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(number) || number < options.min || number > options.max) {
    return problems.invalidAttribute(
      name,
      `must be an integer from ${options.min} to ${options.max}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/**
 * Reads `pageNum` (from 1), `itemsPerPage` (1 to 500, default 100) and `includeCount`.
 *
 * @example
 * ```ts
 * parsePageParams(new URLSearchParams('itemsPerPage=501')); // an ApiProblem, 400 INVALID_ATTRIBUTE
 * ```
 */
export function parsePageParams(query: URLSearchParams): PageParams | ApiProblem {
  const pageNum = parseIntegerParam(query, 'pageNum', { fallback: 1, min: 1, max: 1_000_000_000 });
  if (pageNum instanceof ApiProblem) return pageNum;
  const itemsPerPage = parseIntegerParam(query, 'itemsPerPage', {
    fallback: DEFAULT_ITEMS_PER_PAGE,
    min: 1,
    max: MAX_ITEMS_PER_PAGE,
  });
  if (itemsPerPage instanceof ApiProblem) return itemsPerPage;
  const includeCount = parseBooleanParam(query, 'includeCount', true);
  if (includeCount instanceof ApiProblem) return includeCount;
  return { pageNum, itemsPerPage, includeCount };
}

/** Whether the `YYYY-MM-DD` that starts `value` is a real day (`Date.parse` rolls 02-30 over to March). */
function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A date parameter in milliseconds. Event times are whole milliseconds, so a bound finer than that is
 * moved to the millisecond that keeps the same events inside: `minDate` up, `maxDate` down.
 */
function parseDateParam(
  query: URLSearchParams,
  name: 'minDate' | 'maxDate',
): number | undefined | ApiProblem {
  const value = query.get(name);
  if (value === null) return undefined;
  const match = ISO_DATE.exec(value);
  // A time without a zone is UTC, as the API documents its dates. Date.parse drops digits past the
  // millisecond.
  const ms =
    match && isCalendarDate(value)
      ? Date.parse(value.length > 10 && match[2] === undefined ? `${value}Z` : value)
      : Number.NaN;
  if (Number.isNaN(ms)) {
    return problems.invalidAttribute(
      name,
      `must be an ISO-8601 date or date and time in UTC, such as 2026-01-31T09:15:00Z, got ${JSON.stringify(value)}`,
    );
  }
  const finerThanMs = /[1-9]/.test(match?.[1]?.slice(3) ?? '');
  return name === 'minDate' && finerThanMs ? ms + 1 : ms;
}

function setParam(query: URLSearchParams, name: string): ReadonlySet<string> | undefined {
  const values = query.getAll(name).filter((value) => value !== '');
  return values.length === 0 ? undefined : new Set(values);
}

/**
 * Reads the event filters: inclusive `minDate` / `maxDate`, repeated `eventType`, and for project
 * events repeated `excludedEventType` and `clusterNames` (org events take neither, so they are
 * ignored there).
 *
 * @example
 * ```ts
 * parseEventFilters(new URLSearchParams('eventType=A&eventType=B'), { projectFilters: true });
 * ```
 */
export function parseEventFilters(
  query: URLSearchParams,
  options: { projectFilters: boolean },
): EventFilters | ApiProblem {
  const minMs = parseDateParam(query, 'minDate');
  if (minMs instanceof ApiProblem) return minMs;
  const maxMs = parseDateParam(query, 'maxDate');
  if (maxMs instanceof ApiProblem) return maxMs;
  return {
    minMs,
    maxMs,
    eventTypes: setParam(query, 'eventType'),
    excludedEventTypes: options.projectFilters ? setParam(query, 'excludedEventType') : undefined,
    clusterNames: options.projectFilters ? setParam(query, 'clusterNames') : undefined,
  };
}

/** The earliest `start` and `end` the API takes (`minimum: 1.1991456e+12`: 2008-01-01). */
export const MIN_ACCESS_HISTORY_MS = 1_199_145_600_000;

/** An IPv4 or IPv6 address as the OpenAPI document's `ipAddress` pattern takes it. */
const ACCESS_HISTORY_IP =
  /^((25[0-5]|(2[0-4]|1\d|[1-9]|)\d)(\.(?!$)|$)){4}$|^([0-9a-f]{1,4}:){7}[0-9a-f]{1,4}$/;

export interface AccessHistoryParams {
  /** Both or neither: `start` and `end` come together. */
  window: { startMs: number; endMs: number } | undefined;
  nLogs: number;
  authResult: boolean | undefined;
  ipAddress: string | undefined;
}

function parseEpochMs(query: URLSearchParams, name: 'start' | 'end'): number | undefined | ApiProblem {
  const value = query.get(name);
  if (value === null) return undefined;
  const ms = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < MIN_ACCESS_HISTORY_MS) {
    return problems.invalidAttribute(
      name,
      `must be milliseconds since the epoch, ${MIN_ACCESS_HISTORY_MS} or later, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

/**
 * Reads the query of a database access history request: `start` and `end` (epoch milliseconds, both
 * or neither, `start` not after `end`), `nLogs` (0 to 20,000, default 20,000), `authResult` (true: the
 * successes only; false: the failures only) and `ipAddress` (one IPv4 or IPv6 address).
 *
 * @example
 * ```ts
 * parseAccessHistoryParams(new URLSearchParams('nLogs=20001'), 20_000); // an ApiProblem, 400 INVALID_ATTRIBUTE
 * ```
 */
export function parseAccessHistoryParams(
  query: URLSearchParams,
  maxLines: number,
): AccessHistoryParams | ApiProblem {
  const startMs = parseEpochMs(query, 'start');
  if (startMs instanceof ApiProblem) return startMs;
  const endMs = parseEpochMs(query, 'end');
  if (endMs instanceof ApiProblem) return endMs;
  if ((startMs === undefined) !== (endMs === undefined)) {
    const missing = startMs === undefined ? 'start' : 'end';
    return problems.invalidAttribute(missing, `is required with ${missing === 'start' ? 'end' : 'start'}`);
  }
  if (startMs !== undefined && endMs !== undefined && startMs > endMs) {
    return problems.invalidAttribute('start', `must not be after end (${startMs} > ${endMs})`);
  }
  const nLogs = parseIntegerParam(query, 'nLogs', { fallback: maxLines, min: 0, max: maxLines });
  if (nLogs instanceof ApiProblem) return nLogs;
  const authResultValue = query.get('authResult');
  const authResult = authResultValue === null ? undefined : parseBooleanParam(query, 'authResult', false);
  if (authResult instanceof ApiProblem) return authResult;
  const ipAddress = query.get('ipAddress') ?? undefined;
  if (ipAddress !== undefined && !ACCESS_HISTORY_IP.test(ipAddress)) {
    return problems.invalidAttribute(
      'ipAddress',
      `must be one IPv4 or IPv6 address, got ${JSON.stringify(ipAddress)}`,
    );
  }
  return {
    window: startMs === undefined || endMs === undefined ? undefined : { startMs, endMs },
    nLogs,
    authResult,
    ipAddress,
  };
}
