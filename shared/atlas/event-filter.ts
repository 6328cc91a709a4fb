import { AtlasRequestError } from './errors.js';

/** Filters of the project and org event lists. */
export interface AtlasEventFilter {
  /** Only these event types, sent as repeated `eventType` keys. */
  eventTypes?: readonly string[];
  /** Events created at or after this instant (inclusive). A string must be ISO-8601 with a zone or `Z`. */
  minDate?: Date | string;
  /** Events created at or before this instant (inclusive). */
  maxDate?: Date | string;
  /** Ask for each event's `raw` document. */
  includeRaw?: boolean;
  /** 1 to 500. Default 500: the fewest requests. */
  itemsPerPage?: number;
  signal?: AbortSignal;
}

/** Options of the other list operations. */
export interface AtlasListOptions {
  /** 1 to 500. Default 500. */
  itemsPerPage?: number;
  signal?: AbortSignal;
}

export const MAX_ITEMS_PER_PAGE = 500;

const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_]{1,100}$/;

/**
 * The query of an event list: `eventType` repeated, `minDate`/`maxDate` as ISO-8601 UTC, `includeRaw`,
 * `itemsPerPage`. Everything is checked before a request is sent.
 *
 * @throws AtlasRequestError for an event type that is not a name, a date that cannot be read or has no
 *   time zone, `minDate` after `maxDate`, or `itemsPerPage` outside 1..500.
 *
 * @example
 * ```ts
 * eventListQuery({ eventTypes: ['API_KEY_CREATED', 'JOINED_GROUP'], minDate: '2024-05-01T00:00:00Z' })
 *   .toString();
 * // 'itemsPerPage=500&eventType=API_KEY_CREATED&eventType=JOINED_GROUP&minDate=2024-05-01T00%3A00%3A00Z'
 * ```
 */
export function eventListQuery(filter: AtlasEventFilter): URLSearchParams {
  const query = listQuery(filter);
  for (const eventType of filter.eventTypes ?? []) {
    if (typeof eventType !== 'string' || !EVENT_TYPE_PATTERN.test(eventType)) {
      throw new AtlasRequestError(
        `event type ${JSON.stringify(String(eventType).slice(0, 100))} is not an event type name: use names such as API_KEY_CREATED`,
      );
    }
    query.append('eventType', eventType);
  }
  const minDate = filter.minDate === undefined ? undefined : toInstant('minDate', filter.minDate);
  const maxDate = filter.maxDate === undefined ? undefined : toInstant('maxDate', filter.maxDate);
  if (minDate !== undefined && maxDate !== undefined && minDate > maxDate) {
    throw new AtlasRequestError(
      `minDate ${formatAtlasDate(minDate)} is after maxDate ${formatAtlasDate(maxDate)}: swap them`,
    );
  }
  if (minDate !== undefined) {
    query.set('minDate', formatAtlasDate(minDate));
  }
  if (maxDate !== undefined) {
    query.set('maxDate', formatAtlasDate(maxDate));
  }
  if (filter.includeRaw) {
    query.set('includeRaw', 'true');
  }
  return query;
}

/**
 * The query every list sends: `itemsPerPage`, checked.
 *
 * @throws AtlasRequestError when `itemsPerPage` is not an integer from 1 to 500.
 *
 * @example
 * ```ts
 * listQuery({ itemsPerPage: 100 }).toString(); // 'itemsPerPage=100'
 * ```
 */
export function listQuery(options: AtlasListOptions): URLSearchParams {
  const itemsPerPage = options.itemsPerPage ?? MAX_ITEMS_PER_PAGE;
  if (!Number.isInteger(itemsPerPage) || itemsPerPage < 1 || itemsPerPage > MAX_ITEMS_PER_PAGE) {
    throw new AtlasRequestError(
      `itemsPerPage ${itemsPerPage} is out of range: Atlas takes an integer from 1 to ${MAX_ITEMS_PER_PAGE}`,
    );
  }
  return new URLSearchParams({ itemsPerPage: String(itemsPerPage) });
}

/**
 * An instant as Atlas takes it: ISO-8601 UTC, with milliseconds only when there are some.
 *
 * @example
 * ```ts
 * formatAtlasDate(Date.parse('2024-05-01T02:00:00+02:00')); // '2024-05-01T00:00:00Z'
 * ```
 */
export function formatAtlasDate(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('.000Z', 'Z');
}

/**
 * Reads a date given as a `Date` or a string into epoch milliseconds. A string is a calendar date
 * (`2024-05-01`, midnight UTC) or a date-time with `Z` or an offset: a date-time without a zone would
 * be read in the machine's zone, which differs between a laptop and Lambda.
 *
 * @throws AtlasRequestError when the value cannot be read or has no time zone.
 *
 * @example
 * ```ts
 * toInstant('minDate', '2024-05-01T00:00:00Z'); // 1714521600000
 * ```
 */
export function toInstant(name: string, value: Date | string): number {
  if (value instanceof Date) {
    const time = value.getTime();
    if (Number.isNaN(time)) {
      throw new AtlasRequestError(`${name} is an invalid Date`);
    }
    return time;
  }
  const text = String(value).trim();
  const isDate = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const isDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const time = Date.parse(text);
  if ((!isDate && !isDateTime) || Number.isNaN(time)) {
    throw new AtlasRequestError(
      `${name} ${JSON.stringify(text.slice(0, 40))} is not an ISO-8601 date with a time zone: use 2024-05-01 or 2024-05-01T12:00:00Z`,
    );
  }
  return time;
}
