import { describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_ATYPES,
  auditEventType,
  buildAuditLogEvent,
  MAX_AUDIT_LOG_TEXT_LENGTH,
  parseAuditObjectKey,
} from '../../shared/audit-log/index.js';

const CONTEXT = {
  groupId: '5f0000000000000000000003',
  clusterName: 'payments-main',
  hostname: 'payments-main-shard-00-01.abcde.mongodb.net',
};

/** An audit message as mongod writes it (relaxed extended JSON), a user granted root. */
const GRANT = {
  atype: 'grantRolesToUser',
  ts: { $date: '2026-11-28T01:02:03.456+00:00' },
  uuid: { $binary: 'hG1k7Zl1Q0mS0uTzv0x0Qw==', $type: '04' },
  local: { ip: '192.168.248.8', port: 27017 },
  remote: { ip: '::ffff:203.0.113.7', port: 51234 },
  users: [{ user: 'mallory', db: 'admin' }],
  roles: [
    { role: 'readWrite', db: 'payments' },
    { role: 'userAdmin', db: 'payments' },
  ],
  param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
  result: 0,
};

describe('buildAuditLogEvent', () => {
  it('names the event after the atype and keeps who, from where, what and the result', () => {
    const line = JSON.stringify(GRANT);

    const event = buildAuditLogEvent(JSON.parse(line), line, CONTEXT);

    expect(event).toEqual({
      id: expect.stringMatching(/^dbaudit-[0-9a-f]{32}$/),
      created: '2026-11-28T01:02:03.456Z',
      eventTypeName: 'DB_AUDIT_GRANT_ROLES_TO_USER',
      source: 'audit-log',
      groupId: CONTEXT.groupId,
      clusterName: 'payments-main',
      hostname: CONTEXT.hostname,
      atype: 'grantRolesToUser',
      username: 'mallory',
      authSource: 'admin',
      users: ['mallory@admin'],
      roles: ['readWrite@payments', 'userAdmin@payments'],
      remoteAddress: '203.0.113.7',
      localAddress: '192.168.248.8',
      param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
      result: 0,
    });
  });

  it('gives the same line the same id in any object, and another line or host another', () => {
    const line = JSON.stringify(GRANT);
    const id = (text: string, context = CONTEXT) => buildAuditLogEvent(JSON.parse(text), text, context).id;

    expect(id(line)).toBe(id(line));
    expect(id(line)).not.toBe(id(JSON.stringify({ ...GRANT, result: 13 })));
    expect(id(line)).not.toBe(
      id(line, { ...CONTEXT, hostname: 'payments-main-shard-00-02.abcde.mongodb.net' }),
    );
  });

  it('reads the time in canonical extended JSON and as a number', () => {
    const at = (ts: unknown) => buildAuditLogEvent({ ...GRANT, ts }, 'x', CONTEXT).created;

    expect(at({ $date: { $numberLong: '1795827723456' } })).toBe('2026-11-28T01:02:03.456Z');
    expect(at(1795827723456)).toBe('2026-11-28T01:02:03.456Z');
    expect(at('2026-11-28T01:02:03.456Z')).toBe('2026-11-28T01:02:03.456Z');
  });

  it.each([
    ['a list', [GRANT]],
    ['a string', 'createUser'],
    ['null', null],
    ['no atype', { ...GRANT, atype: undefined }],
    ['an atype that is no name', { ...GRANT, atype: 'drop Database; --' }],
    ['an atype of another type', { ...GRANT, atype: 42 }],
    ['no ts', { ...GRANT, ts: undefined }],
    ['a ts that is no time', { ...GRANT, ts: { $date: 'yesterday' } }],
    ['a ts past what Date can write', { ...GRANT, ts: 9e15 }],
  ])('refuses %s, for the reader to count and skip', (_name, message) => {
    expect(() => buildAuditLogEvent(message, 'x', CONTEXT)).toThrow(RangeError);
  });

  it('leaves out values of the wrong type and bounds what a hostile line could make large', () => {
    const deep = { a: { b: { c: { d: { e: { f: 'too deep' } } } } } };
    const message = {
      atype: 'createUser',
      ts: { $date: '2026-11-28T01:02:03Z' },
      users: [{ user: 'x'.repeat(10_000), db: 7 }, 'not a user', null],
      roles: Array.from({ length: 500 }, (_, index) => ({ role: `r${index}`, db: 'admin' })),
      remote: { ip: 12 },
      local: 'nowhere',
      param: { deep, list: Array.from({ length: 500 }, (_, index) => index), text: 'y'.repeat(10_000) },
      result: 'ok',
    };

    const event = buildAuditLogEvent(message, 'x', CONTEXT);

    expect(event.username?.length).toBe(MAX_AUDIT_LOG_TEXT_LENGTH);
    expect(event.username?.endsWith('\u2026')).toBe(true);
    expect(event.authSource).toBeUndefined();
    expect(event.users).toHaveLength(1);
    expect(event.roles).toHaveLength(50);
    expect(event.remoteAddress).toBeUndefined();
    expect(event.localAddress).toBeUndefined();
    expect(event.result).toBeUndefined();
    const param = event.param as { deep: unknown; list: unknown[]; text: string };
    expect(param.list).toHaveLength(50);
    expect(param.text.length).toBe(MAX_AUDIT_LOG_TEXT_LENGTH);
    expect(JSON.stringify(param.deep)).not.toContain('too deep');
  });
});

describe('auditEventType', () => {
  it('writes each documented atype in capitals with underscores', () => {
    expect(auditEventType('authCheck')).toBe('DB_AUDIT_AUTH_CHECK');
    expect(auditEventType('dropAllUsersFromDatabase')).toBe('DB_AUDIT_DROP_ALL_USERS_FROM_DATABASE');
    expect(auditEventType('replSetReconfig')).toBe('DB_AUDIT_REPL_SET_RECONFIG');
    expect(new Set(AUDIT_LOG_ATYPES.map(auditEventType)).size).toBe(AUDIT_LOG_ATYPES.length);
    expect(auditEventType('')).toBeUndefined();
    expect(auditEventType('a'.repeat(65))).toBeUndefined();
  });
});

describe('parseAuditObjectKey', () => {
  it('reads the cluster, host and log type of an audit log object under the prefix', () => {
    expect(
      parseAuditObjectKey(
        'atlas-logs/payments-main/payments-main-shard-00-01.abcde.mongodb.net/mongodb-audit-log/1795827723-1795827783.log.gz',
        'atlas-logs/',
      ),
    ).toEqual({
      clusterName: 'payments-main',
      hostname: 'payments-main-shard-00-01.abcde.mongodb.net',
      logType: 'mongodb-audit-log',
    });
    expect(parseAuditObjectKey('c/h/mongos-audit-log/f.gz', '')?.logType).toBe('mongos-audit-log');
  });

  it.each([
    ['another prefix', 'other/c/h/mongodb-audit-log/f.gz'],
    ['a diagnostic log', 'atlas-logs/c/h/mongodb/f.gz'],
    ['too few parts', 'atlas-logs/c/h/mongodb-audit-log'],
    ['an empty cluster', 'atlas-logs//h/mongodb-audit-log/f.gz'],
  ])('skips %s', (_name, key) => {
    expect(parseAuditObjectKey(key, 'atlas-logs')).toBeUndefined();
  });
});
