import { createHash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import { canonicalAddress } from '../rules/event-address.js';
import { wellFormed } from '../text-cleaning.js';

/** The `source` of events read from database audit logs. */
export const AUDIT_LOG_SOURCE = 'audit-log';

/** The prefix of every audit-log event type: `DB_AUDIT_` and the audit message's `atype`, in capitals. */
export const AUDIT_LOG_EVENT_PREFIX = 'DB_AUDIT_';

/** The prefix of an audit-log event's `id`, before 32 hexadecimal characters. */
export const AUDIT_LOG_ID_PREFIX = 'dbaudit-';

/**
 * The audit message types (`atype`) mongod writes that this tool documents in its event catalog, so
 * a rule naming their event type is checked. A message of another type still becomes an event (a
 * newer mongod may add types), under the same naming.
 */
export const AUDIT_LOG_ATYPES = [
  'addShard',
  'applicationMessage',
  'authCheck',
  'authenticate',
  'clientMetadata',
  'createCollection',
  'createDatabase',
  'createIndex',
  'createRole',
  'createUser',
  'directAuthMutation',
  'dropAllRolesFromDatabase',
  'dropAllUsersFromDatabase',
  'dropCollection',
  'dropDatabase',
  'dropIndex',
  'dropRole',
  'dropUser',
  'enableSharding',
  'getClusterParameter',
  'grantPrivilegesToRole',
  'grantRolesToRole',
  'grantRolesToUser',
  'logout',
  'removeShard',
  'renameCollection',
  'replSetReconfig',
  'revokePrivilegesFromRole',
  'revokeRolesFromRole',
  'revokeRolesFromUser',
  'rotateLog',
  'setClusterParameter',
  'shardCollection',
  'shutdown',
  'startup',
  'updateRole',
  'updateUser',
] as const;

/**
 * Text values longer than this are cut to it, with `…` at the end; names in an audit message are far
 * shorter, and a value this long is noise someone sent to fill alerts and state.
 */
export const MAX_AUDIT_LOG_TEXT_LENGTH = 512;

/** How much of `param` an event keeps: its nesting, entries per object or list, and text length. */
export const AUDIT_PARAM_LIMITS = { depth: 5, entries: 50, textLength: MAX_AUDIT_LOG_TEXT_LENGTH } as const;

/** One audit message of a cluster's host, as the rules see it. */
export interface AuditLogEvent extends AtlasEvent {
  /** Derived from the line itself: the same line in another (duplicated) object gets the same id. */
  id: string;
  /** The message's time (`ts`), ISO-8601 UTC with milliseconds. */
  created: string;
  /** `DB_AUDIT_` and the `atype` in capitals with underscores: `createUser` is `DB_AUDIT_CREATE_USER`. */
  eventTypeName: string;
  source: typeof AUDIT_LOG_SOURCE;
  /** The project of the cluster. */
  groupId: string;
  /** The cluster whose host wrote the message. */
  clusterName: string;
  /** The host (mongod or mongos) that wrote it. */
  hostname?: string;
  /** The message type as mongod wrote it: `createUser`, `authCheck`... */
  atype: string;
  /** The first authenticated user of the connection (`users[0].user`); absent for none. */
  username?: string;
  /** That user's authentication database (`users[0].db`). */
  authSource?: string;
  /** Every authenticated user of the connection, `user@db`. */
  users?: string[];
  /** The roles of the connection's users, `role@db`. */
  roles?: string[];
  /** The client's address (`remote.ip`), one spelling per address as on every event. */
  remoteAddress?: string;
  /** The server's address (`local.ip`). */
  localAddress?: string;
  /** The operation's details (`param`), bounded: see {@link AUDIT_PARAM_LIMITS}. */
  param?: unknown;
  /** The result code: 0 for success, otherwise the error code (13 Unauthorized, 18 AuthenticationFailed...). */
  result?: number;
}

/** Where a line was read: the project, the cluster and host its object's key names. */
export interface AuditLogContext {
  groupId: string;
  clusterName: string;
  hostname?: string | undefined;
}

/**
 * The event type of an `atype`: `DB_AUDIT_` and the name in capitals with underscores between words.
 *
 * @returns undefined when the `atype` is not a plain identifier (letters and digits, up to 64).
 * @example
 * ```ts
 * auditEventType('grantRolesToUser'); // 'DB_AUDIT_GRANT_ROLES_TO_USER'
 * ```
 */
export function auditEventType(atype: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(atype)) return undefined;
  return `${AUDIT_LOG_EVENT_PREFIX}${atype.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/**
 * Builds the event for one audit message (one line of an audit log object, parsed). Its `id` is
 * `dbaudit-` and 32 hexadecimal characters of a SHA-256 over the project, cluster, host and the line's
 * text as written, so a line Atlas delivers twice (in two objects, or one object delivered twice) gets
 * the same id, which the claims drop as already seen; two messages at the same millisecond differ in
 * their text (the connection, the parameters). Text values are cut to
 * {@link MAX_AUDIT_LOG_TEXT_LENGTH}; values of the wrong type are left out.
 *
 * @throws {RangeError} when the message is not an object, has no `atype` that names an event type, or
 *   no readable `ts`: skip the line and count it.
 * @example
 * ```ts
 * const event = buildAuditLogEvent(JSON.parse(line), line, { groupId, clusterName, hostname });
 * ```
 */
export function buildAuditLogEvent(
  message: unknown,
  lineText: string,
  context: AuditLogContext,
): AuditLogEvent {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new RangeError('An audit log line is not a JSON object: skip it');
  }
  const fields = message as Record<string, unknown>;
  const atype = typeof fields.atype === 'string' ? fields.atype : undefined;
  const eventTypeName = atype === undefined ? undefined : auditEventType(atype);
  if (atype === undefined || eventTypeName === undefined) {
    throw new RangeError('An audit log line has no atype that names a message type: skip it');
  }
  const time = messageTime(fields.ts);
  if (time === undefined) throw new RangeError(`An audit log line (${atype}) has no readable ts: skip it`);
  const users = principals(fields.users, 'user');
  const roles = principals(fields.roles, 'role');
  const first = Array.isArray(fields.users)
    ? (fields.users[0] as Record<string, unknown> | undefined)
    : undefined;
  const username = text(first?.user);
  const authSource = text(first?.db);
  const remote = address(fields.remote);
  const local = address(fields.local);
  const param = fields.param === undefined ? undefined : bounded(fields.param, AUDIT_PARAM_LIMITS.depth);
  const result =
    typeof fields.result === 'number' && Number.isFinite(fields.result) ? fields.result : undefined;
  const hostname = context.hostname === undefined ? undefined : text(context.hostname);
  return {
    id: lineId(lineText, context),
    created: new Date(time).toISOString(),
    eventTypeName,
    source: AUDIT_LOG_SOURCE,
    groupId: context.groupId,
    clusterName: clip(context.clusterName),
    ...(hostname === undefined ? {} : { hostname }),
    atype,
    ...(username === undefined ? {} : { username }),
    ...(authSource === undefined ? {} : { authSource }),
    ...(users.length === 0 ? {} : { users }),
    ...(roles.length === 0 ? {} : { roles }),
    ...(remote === undefined ? {} : { remoteAddress: remote }),
    ...(local === undefined ? {} : { localAddress: local }),
    ...(param === undefined ? {} : { param }),
    ...(result === undefined ? {} : { result }),
  };
}

/** `ts` as mongod writes it in relaxed or canonical extended JSON: `{ $date: ISO }`, `{ $date: { $numberLong } }`. */
function messageTime(ts: unknown): number | undefined {
  let value: unknown = ts;
  if (typeof value === 'object' && value !== null && '$date' in value)
    value = (value as { $date: unknown }).$date;
  if (typeof value === 'object' && value !== null && '$numberLong' in value) {
    value = Number((value as { $numberLong: unknown }).$numberLong);
  }
  const time = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
  // Beyond ±8.64e15 ms, Date cannot write the time.
  return Number.isFinite(time) && Math.abs(time) <= 8.64e15 ? time : undefined;
}

/** `users` or `roles`: `name@db` for each entry with a text name, at most 50. */
function principals(list: unknown, key: 'user' | 'role'): string[] {
  if (!Array.isArray(list)) return [];
  const found: string[] = [];
  for (const entry of list.slice(0, AUDIT_PARAM_LIMITS.entries)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const name = text((entry as Record<string, unknown>)[key]);
    if (name === undefined) continue;
    const db = text((entry as Record<string, unknown>).db);
    found.push(db === undefined ? name : `${name}@${db}`);
  }
  return found;
}

function address(endpoint: unknown): string | undefined {
  if (typeof endpoint !== 'object' || endpoint === null) return undefined;
  const ip = text((endpoint as Record<string, unknown>).ip);
  return ip === undefined ? undefined : (canonicalAddress(ip) ?? ip);
}

/** A copy of a JSON value within the limits: deeper levels, further entries and longer text are cut. */
function bounded(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clip(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (depth === 0 || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    return value.slice(0, AUDIT_PARAM_LIMITS.entries).map((item) => bounded(item, depth - 1) ?? null);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value).slice(0, AUDIT_PARAM_LIMITS.entries)) {
    const kept = bounded(item, depth - 1);
    if (kept !== undefined) copy[clip(key)] = kept;
  }
  return copy;
}

function lineId(lineText: string, context: AuditLogContext): string {
  const identity = JSON.stringify([context.groupId, context.clusterName, context.hostname ?? null, lineText]);
  return `${AUDIT_LOG_ID_PREFIX}${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : clip(trimmed);
}

function clip(value: string): string {
  if (value.length <= MAX_AUDIT_LOG_TEXT_LENGTH) return wellFormed(value);
  return `${wellFormed(value.slice(0, MAX_AUDIT_LOG_TEXT_LENGTH - 1))}\u2026`;
}
