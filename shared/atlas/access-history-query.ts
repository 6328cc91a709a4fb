import { AtlasRequestError } from './errors.js';

/** The most lines one access-history answer holds, and what `nLogs` defaults to. */
export const MAX_ACCESS_LOG_LINES = 20_000;

/** The earliest `start` and `end` Atlas takes (`minimum: 1.1991456e+12` in the OpenAPI document). */
export const MIN_ACCESS_HISTORY_MS = 1_199_145_600_000;

/** A cluster name as the OpenAPI document's `clusterName` pattern allows it. */
export const CLUSTER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,63}$/;

/** Options of `readAccessHistory`. */
export interface AtlasAccessHistoryOptions {
  /** Earliest attempt to return, inclusive: milliseconds since the epoch, or a Date. Give `end` too. */
  start?: number | Date;
  /** Latest attempt to return, inclusive. Give `start` too. */
  end?: number | Date;
  /** The most lines to return, newest first: 0 to 20,000. Default (and Atlas's): 20,000. */
  nLogs?: number;
  /** true: successful attempts only; false: failed attempts only. Default: both. */
  authResult?: boolean;
  /** Only the attempts from this address. */
  ipAddress?: string;
  signal?: AbortSignal;
}

function epochMs(name: 'start' | 'end', value: number | Date): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (!Number.isSafeInteger(ms) || ms < MIN_ACCESS_HISTORY_MS) {
    throw new AtlasRequestError(
      `${name} ${String(ms)} is out of range: Atlas takes whole milliseconds since the epoch from ${MIN_ACCESS_HISTORY_MS} (2008-01-01)`,
    );
  }
  return ms;
}

/**
 * Checks a cluster name before it goes into a path and encodes it.
 *
 * @throws AtlasRequestError when the name is not one Atlas allows (letters, digits and hyphens, not
 *   starting with a hyphen, at most 64 characters).
 *
 * @example
 * ```ts
 * clusterPathName('payments-main'); // 'payments-main'
 * clusterPathName('../orgs'); // throws AtlasRequestError
 * ```
 */
export function clusterPathName(name: string): string {
  if (typeof name !== 'string' || !CLUSTER_NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 40)) : typeof name;
    throw new AtlasRequestError(
      `clusterName ${shown} is not an Atlas cluster name: letters, digits and hyphens, starting with a letter or digit`,
    );
  }
  return encodeURIComponent(name);
}

/**
 * The query of an access-history read, checked: `start` and `end` together, `start` not after `end`,
 * `nLogs` always sent (so the answer's size never depends on Atlas's default).
 *
 * @throws AtlasRequestError for one of `start`/`end` without the other, either before 2008 or not whole
 *   milliseconds, `start` after `end`, or `nLogs` outside 0 to 20,000.
 *
 * @example
 * ```ts
 * accessHistoryQuery({ start: 1714521600000, end: 1714525200000, nLogs: 500 }).toString();
 * // 'start=1714521600000&end=1714525200000&nLogs=500'
 * ```
 */
export function accessHistoryQuery(options: AtlasAccessHistoryOptions): {
  query: URLSearchParams;
  nLogs: number;
} {
  const query = new URLSearchParams();
  if ((options.start === undefined) !== (options.end === undefined)) {
    throw new AtlasRequestError('start and end go together: give both, or neither for the last seven days');
  }
  if (options.start !== undefined && options.end !== undefined) {
    const start = epochMs('start', options.start);
    const end = epochMs('end', options.end);
    if (start > end) {
      throw new AtlasRequestError(`start ${start} is after end ${end}: swap them`);
    }
    query.set('start', String(start));
    query.set('end', String(end));
  }
  const nLogs = options.nLogs ?? MAX_ACCESS_LOG_LINES;
  if (!Number.isInteger(nLogs) || nLogs < 0 || nLogs > MAX_ACCESS_LOG_LINES) {
    throw new AtlasRequestError(
      `nLogs ${nLogs} is out of range: Atlas takes an integer from 0 to ${MAX_ACCESS_LOG_LINES}`,
    );
  }
  query.set('nLogs', String(nLogs));
  if (options.authResult !== undefined) query.set('authResult', String(options.authResult));
  if (options.ipAddress !== undefined) query.set('ipAddress', options.ipAddress);
  return { query, nLogs };
}
