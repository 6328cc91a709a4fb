/**
 * Database access history (`GET /groups/{groupId}/dbAccessHistory/...`): the authentication attempts
 * of one dedicated cluster, as Atlas keeps them (seven days, newest first) and serves them
 * (`MongoDBAccessLogs` in the OpenAPI document).
 */

import { firstIndex } from './event-log.js';

/** How long Atlas keeps access history: lines older than this are never served. */
export const ACCESS_HISTORY_RETENTION_MS = 7 * 24 * 3_600_000;

/** The most lines one answer holds, and what `nLogs` defaults to (`nLogs` in the OpenAPI document). */
export const MAX_ACCESS_LOG_LINES = 20_000;

/** One authentication attempt as the simulator keeps it. Never changed after it is stored. */
export interface StoredAccessLog {
  readonly timestampMs: number;
  /** Insertion order: among lines of the same millisecond, the later stored is listed first. */
  readonly seq: number;
  readonly hostname: string;
  readonly ipAddress: string;
  readonly username: string;
  readonly authResult: boolean;
  /** The line as served: `MongoDBAccessLogs`, its fields in alphabetical order. */
  readonly json: Buffer;
}

/** A line to store, all its fields known (the caller filled in defaults). */
export interface AccessLogFields {
  readonly timestampMs: number;
  readonly groupId: string;
  readonly hostname: string;
  readonly ipAddress: string;
  readonly username: string;
  readonly authSource: string;
  readonly authResult: boolean;
  /** Absent or null for a success. */
  readonly failureReason: string | null;
  readonly logLine: string;
}

/** What one read asks for: an inclusive window, the most lines, and the optional filters. */
export interface AccessHistoryQuery {
  readonly minMs: number;
  readonly maxMs: number;
  readonly nLogs: number;
  readonly authResult: boolean | undefined;
  readonly ipAddress: string | undefined;
  readonly hostname: string | undefined;
}

/** Whether `a` is listed after `b`: newest first, and among equal times the later stored first. */
function isAfter(a: StoredAccessLog, b: StoredAccessLog): boolean {
  return a.timestampMs < b.timestampMs || (a.timestampMs === b.timestampMs && a.seq < b.seq);
}

function compare(a: StoredAccessLog, b: StoredAccessLog): number {
  return a.timestampMs !== b.timestampMs ? b.timestampMs - a.timestampMs : b.seq - a.seq;
}

/**
 * The mongod log line (structured, 4.4 and later) of an authentication attempt: message 20250
 * "Authentication succeeded" or 20249 "Authentication failed", as Atlas shows it in `logLine`.
 *
 * @example
 * ```ts
 * mongodAuthLogLine({ timestampMs: 0, username: 'app', authSource: 'admin', ipAddress: '192.0.2.1',
 *   authResult: true, failureReason: null, connection: 7, port: 50123 });
 * ```
 */
export function mongodAuthLogLine(line: {
  timestampMs: number;
  username: string;
  authSource: string;
  ipAddress: string;
  authResult: boolean;
  failureReason: string | null;
  connection: number;
  port: number;
}): string {
  const remote = line.ipAddress.includes(':')
    ? `[${line.ipAddress}]:${line.port}`
    : `${line.ipAddress}:${line.port}`;
  const attr: Record<string, unknown> = {
    mechanism: 'SCRAM-SHA-256',
    speculative: line.authResult,
    principalName: line.username,
    authenticationDatabase: line.authSource,
    remote,
    extraInfo: {},
  };
  if (!line.authResult) attr.error = line.failureReason ?? 'AuthenticationFailed: Authentication failed.';
  return JSON.stringify({
    t: { $date: new Date(line.timestampMs).toISOString().replace('Z', '+00:00') },
    s: 'I',
    c: 'ACCESS',
    id: line.authResult ? 20250 : 20249,
    ctx: `conn${line.connection}`,
    msg: line.authResult ? 'Authentication succeeded' : 'Authentication failed',
    attr,
  });
}

/**
 * The access history of one cluster, kept in the order Atlas lists it: newest first. A window is two
 * binary searches; filters and `nLogs` are applied while walking it.
 */
export class AccessHistoryLog {
  private readonly items: StoredAccessLog[] = [];
  private nextSeq = 0;

  /** How many lines the log holds. */
  get size(): number {
    return this.items.length;
  }

  /** Stores lines: one by one when few, else sorted once. Returns them as stored. */
  insert(lines: readonly AccessLogFields[]): StoredAccessLog[] {
    const stored = lines.map((line) => this.toStored(line));
    if (stored.length < 64) {
      for (const line of stored) {
        const index = firstIndex(this.items.length, (i) => isAfter(this.items[i] as StoredAccessLog, line));
        this.items.splice(index, 0, line);
      }
    } else {
      for (const line of stored) this.items.push(line);
      this.items.sort(compare);
    }
    return stored;
  }

  /** The newest `nLogs` lines with `minMs <= timestamp <= maxMs` that pass the filters, newest first. */
  query(query: AccessHistoryQuery): StoredAccessLog[] {
    const items = this.items;
    const start = firstIndex(items.length, (i) => (items[i] as StoredAccessLog).timestampMs <= query.maxMs);
    const end = firstIndex(items.length, (i) => (items[i] as StoredAccessLog).timestampMs < query.minMs);
    const selected: StoredAccessLog[] = [];
    for (let i = start; i < end && selected.length < query.nLogs; i++) {
      const line = items[i] as StoredAccessLog;
      if (query.authResult !== undefined && line.authResult !== query.authResult) continue;
      if (query.ipAddress !== undefined && line.ipAddress !== query.ipAddress) continue;
      if (query.hostname !== undefined && line.hostname !== query.hostname) continue;
      selected.push(line);
    }
    return selected;
  }

  private toStored(line: AccessLogFields): StoredAccessLog {
    const body = {
      authResult: line.authResult,
      authSource: line.authSource,
      failureReason: line.authResult ? null : line.failureReason,
      groupId: line.groupId,
      hostname: line.hostname,
      ipAddress: line.ipAddress,
      logLine: line.logLine,
      timestamp: new Date(line.timestampMs).toISOString(),
      username: line.username,
    };
    return {
      timestampMs: line.timestampMs,
      seq: this.nextSeq++,
      hostname: line.hostname,
      ipAddress: line.ipAddress,
      username: line.username,
      authResult: line.authResult,
      json: Buffer.from(JSON.stringify(body)),
    };
  }
}
