import { type AlertHour, alertsInLastDay } from './alert-hours.js';
import type { SourceError, SourceReport } from './state-store.js';

/** The longest last-error message a store keeps: enough for the tick's one-line messages. */
export const MAX_ERROR_MESSAGE_CHARS = 1_000;

/**
 * The most UTF-8 bytes of a cached organization or project name a store keeps: the names are cleaned
 * to 128 characters before they are cached, and the stores bound what they write whatever the caller.
 */
export const MAX_NAME_BYTES = 512;

/** A source's record as either store holds it, flattened. */
export interface StoredSourceFields {
  source: string;
  /** Absent for the connection `default`. */
  connection?: string | undefined;
  watermark: number | undefined;
  polledAt: number | undefined;
  leaseOwner: string | undefined;
  leaseExpiresAt: number | undefined;
  lastErrorAt: number | undefined;
  lastErrorCode: string | undefined;
  lastErrorMessage: string | undefined;
  alertHours: readonly AlertHour[];
  /** The store's clock: a lease past its expiry is not shown, alerts are counted back from it. */
  now: number;
}

/**
 * What `status` shows of a stored source: the lease only while it is live, the last error only when
 * all its parts are there, alerts summed over the last day.
 *
 * @example
 * ```ts
 * sourceReport({ source: 'org:5f4e3d2c1b0a998877665544', watermark: 1, polledAt: 2, leaseOwner: undefined,
 *   leaseExpiresAt: undefined, lastErrorAt: undefined, lastErrorCode: undefined, lastErrorMessage: undefined,
 *   alertHours: [], now: 3 }).alertsLastDay; // 0
 * ```
 */
export function sourceReport(fields: StoredSourceFields): SourceReport {
  const { leaseOwner, leaseExpiresAt, lastErrorAt, lastErrorCode, lastErrorMessage } = fields;
  const lastError = recordedError(lastErrorAt, lastErrorCode, lastErrorMessage);
  return {
    source: fields.source,
    ...(fields.connection === undefined ? {} : { connection: fields.connection }),
    ...(fields.watermark === undefined ? {} : { watermark: fields.watermark }),
    ...(fields.polledAt === undefined ? {} : { polledAt: fields.polledAt }),
    ...(leaseOwner !== undefined && leaseExpiresAt !== undefined && leaseExpiresAt > fields.now
      ? { lease: { owner: leaseOwner, expiresAt: leaseExpiresAt } }
      : {}),
    ...(lastError === undefined ? {} : { lastError }),
    alertsLastDay: alertsInLastDay(fields.alertHours, fields.now),
  };
}

/**
 * A source's last error from its stored parts, only when all of them are there.
 *
 * @example
 * ```ts
 * recordedError(1_700_000_000_000, 'RATE_LIMITED', 'Atlas answered 429'); // { at: 1700000000000, code: 'RATE_LIMITED', ... }
 * recordedError(undefined, 'RATE_LIMITED', 'Atlas answered 429'); // undefined
 * ```
 */
export function recordedError(
  at: number | undefined,
  code: string | undefined,
  message: string | undefined,
): SourceError | undefined {
  return at === undefined || code === undefined || message === undefined ? undefined : { at, code, message };
}
