import { AUDIT_LOG_ATYPES, auditEventType, buildAuditLogEvent } from '../../audit-log/audit-log-events.js';

/**
 * The field paths of the `DB_AUDIT_*` events, read off events built by the same code that maps the
 * audit log lines, from one message of each documented type with every field filled in. `param`
 * differs from one type to the next and from one mongod version to the next, so its whole subtree is
 * open (`param.*`): a rule may name any path under it.
 */

const message = {
  ts: { $date: '2026-11-28T01:02:03.456+00:00' },
  local: { ip: '192.168.248.8', port: 27017 },
  remote: { ip: '203.0.113.7', port: 51234 },
  users: [{ user: 'sample-user', db: 'admin' }],
  roles: [{ role: 'readWrite', db: 'sample' }],
  param: { user: 'sample-user', db: 'admin' },
  result: 0,
};

/**
 * Every documented audit log event type with the field paths its events carry, sorted.
 *
 * @example
 * ```ts
 * auditLogEventFields().DB_AUDIT_CREATE_USER; // ['atype', 'authSource', 'clusterName', 'created', ...]
 * ```
 */
export function auditLogEventFields(): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  const context = { groupId: '5f0000000000000000000003', clusterName: 'sample', hostname: 'sample-00-00' };
  for (const atype of [...AUDIT_LOG_ATYPES].sort()) {
    const event = buildAuditLogEvent({ ...message, atype }, JSON.stringify({ ...message, atype }), context);
    result[auditEventType(atype) as string] = [...Object.keys(event), 'param.*'].sort();
  }
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => a.localeCompare(b)));
}
