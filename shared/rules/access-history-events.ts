import { createHash } from 'node:crypto';
import { ACCESS_HISTORY_SOURCE, type AtlasAccessLogLine, type AtlasEvent } from '../atlas/types.js';
import { wellFormed } from '../text-cleaning.js';
import { canonicalAddress } from './event-address.js';

/**
 * Events of our own for the lines of a cluster's database access history: one authentication
 * attempt each, a success or a failure. They go through the same rules as Atlas events. Their fields
 * follow Atlas events where Atlas events have the same thing: the address the attempt came from is
 * `remoteAddress` (as on every Atlas event and in the first-seen and distinct-count rules), the
 * database user is `username`, the host `hostname`, the cluster `clusterName`; plus
 * `source: "access-history"`. The mongod log line itself is not carried: see {@link buildAccessHistoryEvent}.
 */
export const ACCESS_HISTORY_EVENT_TYPES = {
  succeeded: 'DB_AUTH_SUCCEEDED',
  failed: 'DB_AUTH_FAILED',
} as const;

export type AccessHistoryEventType =
  (typeof ACCESS_HISTORY_EVENT_TYPES)[keyof typeof ACCESS_HISTORY_EVENT_TYPES];

export { ACCESS_HISTORY_SOURCE };

/** The prefix of an access-history event's `id`, before 32 hexadecimal characters. */
export const ACCESS_HISTORY_ID_PREFIX = 'dba-';

/**
 * Text values longer than this are cut to it, with `…` at the end: a database user name, an
 * authentication database or a host name is far shorter, and a value this long is noise someone sent
 * to fill alerts and state.
 */
export const MAX_ACCESS_HISTORY_TEXT_LENGTH = 512;

/** One authentication attempt against a cluster, as the rules see it. */
export interface AccessHistoryEvent extends AtlasEvent {
  /** Derived from the line itself: reading the same line again gives the same id. */
  id: string;
  /** The attempt's time, ISO-8601 UTC with milliseconds. */
  created: string;
  eventTypeName: AccessHistoryEventType;
  source: typeof ACCESS_HISTORY_SOURCE;
  /** The project of the cluster. */
  groupId: string;
  /** The cluster whose access history holds the line. */
  clusterName: string;
  /** The host (mongod) that recorded the attempt. */
  hostname?: string;
  /** The database user named in the attempt: whatever the client sent, an existing user or not. */
  username?: string;
  /** The database the user authenticated against (`admin`, `$external`...). */
  authSource?: string;
  /**
   * The address the attempt came from: one spelling per address (IPv6 compressed, lower case;
   * IPv4-mapped IPv6 as IPv4), or the text as Atlas sent it when it is not an address.
   */
  remoteAddress?: string;
  /** Why a failure failed, as Atlas wrote it; absent on successes and when Atlas gave none. */
  failureReason?: string;
}

/** Where a line was read. */
export interface AccessHistoryEventContext {
  /** The project whose cluster it is. */
  groupId: string;
  /** The cluster whose access history was read. */
  clusterName: string;
}

/** What of a line the mapping reads: a line as the client returns it, or anything shaped like one. */
export type AccessHistoryLineInput = Partial<Record<keyof AtlasAccessLogLine, unknown>>;

/**
 * Builds the event for one line of a cluster's database access history (as
 * `AtlasClient.readAccessHistory` returns it). Its `id` is `dba-` and 32 hexadecimal characters of a
 * SHA-256 over the project and the line's own identity (host, time, log line, user, authentication
 * database, address and result), so the same line read again, in an overlapping window or late,
 * gets the same id, which the poller drops as already seen; two attempts at the same millisecond
 * differ in their log line (its connection number) and get different ids.
 *
 * Text values keep their characters (alerts clean them where they show them), with lone surrogates
 * replaced so they encode, and are cut to {@link MAX_ACCESS_HISTORY_TEXT_LENGTH}. A value that is not
 * text is left out, as are empty ones. The log line is not carried: the fields above are what it
 * says, a line can be kilobytes long (an event is held in memory by the thousands and kept in alert
 * records), and it repeats what the client sent verbatim, which an alert should not spread further.
 *
 * @throws {RangeError} when `authResult` is not a boolean, the time (`timestampMs`, else
 *   `timestamp`) cannot be read, or the context's `groupId` or `clusterName` is empty: skip the line
 *   and count it.
 * @example
 * ```ts
 * const { lines } = await atlas.readAccessHistory(groupId, clusterName, { start, end });
 * const events = lines.map((line) => buildAccessHistoryEvent(line, { groupId, clusterName }));
 * ```
 */
export function buildAccessHistoryEvent(
  line: AccessHistoryLineInput,
  context: AccessHistoryEventContext,
): AccessHistoryEvent {
  if (typeof context.groupId !== 'string' || context.groupId === '') {
    throw new RangeError('An access-history line needs the groupId of its project: pass it in the context');
  }
  if (typeof context.clusterName !== 'string' || context.clusterName === '') {
    throw new RangeError(
      `An access-history line of project ${context.groupId} needs the name of its cluster: pass clusterName in the context`,
    );
  }
  if (typeof line.authResult !== 'boolean') {
    throw new RangeError(
      `An access-history line of cluster ${context.clusterName} has no boolean authResult: skip it`,
    );
  }
  const time = lineTime(line);
  if (time === undefined) {
    throw new RangeError(
      `An access-history line of cluster ${context.clusterName} has no readable timestamp: skip it`,
    );
  }
  const hostname = text(line.hostname);
  const username = text(line.username);
  const authSource = text(line.authSource);
  const address = text(line.ipAddress);
  const remoteAddress = address === undefined ? undefined : (canonicalAddress(address) ?? address);
  const failureReason = line.authResult ? undefined : text(line.failureReason);
  return {
    id: lineId(line, context.groupId, time),
    created: new Date(time).toISOString(),
    eventTypeName: line.authResult ? ACCESS_HISTORY_EVENT_TYPES.succeeded : ACCESS_HISTORY_EVENT_TYPES.failed,
    source: ACCESS_HISTORY_SOURCE,
    groupId: context.groupId,
    clusterName: clip(context.clusterName),
    ...(hostname === undefined ? {} : { hostname }),
    ...(username === undefined ? {} : { username }),
    ...(authSource === undefined ? {} : { authSource }),
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
    ...(failureReason === undefined ? {} : { failureReason }),
  };
}

function lineTime(line: AccessHistoryLineInput): number | undefined {
  if (typeof line.timestampMs === 'number' && Number.isFinite(line.timestampMs)) {
    return validTime(line.timestampMs);
  }
  return typeof line.timestamp === 'string' ? validTime(Date.parse(line.timestamp)) : undefined;
}

function validTime(time: number): number | undefined {
  // Beyond ±8.64e15 ms, Date cannot write the time.
  return Number.isFinite(time) && Math.abs(time) <= 8.64e15 ? time : undefined;
}

/**
 * The id from the raw values, before any cut or cleaning: two lines that differ anywhere past the
 * cut still get different ids. `timestampMs` rather than `timestamp`, so a time written another way
 * on a later read is the same line.
 */
function lineId(line: AccessHistoryLineInput, groupId: string, time: number): string {
  const raw = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const identity = JSON.stringify([
    groupId,
    raw(line.hostname),
    time,
    raw(line.logLine),
    raw(line.username),
    raw(line.authSource),
    raw(line.ipAddress),
    line.authResult,
  ]);
  return `${ACCESS_HISTORY_ID_PREFIX}${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : clip(trimmed);
}

function clip(value: string): string {
  if (value.length <= MAX_ACCESS_HISTORY_TEXT_LENGTH) return wellFormed(value);
  return `${wellFormed(value.slice(0, MAX_ACCESS_HISTORY_TEXT_LENGTH - 1))}\u2026`;
}
