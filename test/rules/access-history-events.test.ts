import { describe, expect, it } from 'vitest';
import { readAccessLogLine } from '../../shared/atlas/response-shapes.js';
import type { AtlasAccessLogLine } from '../../shared/atlas/types.js';
import {
  buildAccessHistoryEvent,
  MAX_ACCESS_HISTORY_TEXT_LENGTH,
} from '../../shared/rules/access-history-events.js';

const GROUP = '5f4e3d2c1b0a998877665544';
const context = { groupId: GROUP, clusterName: 'payments-main' };
const TIME = '2026-03-02T09:15:00.123Z';

/** A line as the client returns it, read by the client's own reader. */
function line(overrides: Record<string, unknown> = {}): AtlasAccessLogLine {
  const read = readAccessLogLine({
    authResult: false,
    authSource: 'admin',
    failureReason: 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch',
    groupId: GROUP,
    hostname: 'payments-main-shard-00-01.x7kq2.mongodb.net',
    ipAddress: '198.51.100.203',
    logLine:
      '{"t":{"$date":"2026-03-02T09:15:00.123+00:00"},"s":"I","c":"ACCESS","id":20249,"ctx":"conn812","msg":"Authentication failed"}',
    timestamp: TIME,
    username: 'payments-admin',
    ...overrides,
  });
  if (!read.ok) throw new Error(read.problem);
  return read.value;
}

describe('buildAccessHistoryEvent', () => {
  it('turns a failed attempt into a DB_AUTH_FAILED event with the fields rules read', () => {
    const event = buildAccessHistoryEvent(line(), context);

    expect(event).toEqual({
      id: expect.stringMatching(/^dba-[0-9a-f]{32}$/),
      created: TIME,
      eventTypeName: 'DB_AUTH_FAILED',
      source: 'access-history',
      groupId: GROUP,
      clusterName: 'payments-main',
      hostname: 'payments-main-shard-00-01.x7kq2.mongodb.net',
      username: 'payments-admin',
      authSource: 'admin',
      remoteAddress: '198.51.100.203',
      failureReason: 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch',
    });
  });

  it('turns a successful attempt into a DB_AUTH_SUCCEEDED event without a failure reason', () => {
    const event = buildAccessHistoryEvent(line({ authResult: true, failureReason: null }), context);

    expect(event.eventTypeName).toBe('DB_AUTH_SUCCEEDED');
    expect(event).not.toHaveProperty('failureReason');
    expect(event.username).toBe('payments-admin');
  });

  it('leaves the log line out of the event', () => {
    const event = buildAccessHistoryEvent(line(), context);

    expect(event).not.toHaveProperty('logLine');
    expect(JSON.stringify(event)).not.toContain('conn812');
  });

  it('gives a line read again the same id, its time written any way that keeps the millisecond', () => {
    const first = buildAccessHistoryEvent(line(), context);
    const reread = buildAccessHistoryEvent(line(), context);
    const otherSpelling = buildAccessHistoryEvent(
      line({ timestamp: 'Mon Mar 02 2026 09:15:00 GMT+0000 (Coordinated Universal Time)' }),
      context,
    );
    const sameMillisecond = buildAccessHistoryEvent(
      line({ timestamp: '2026-03-02T09:15:00.123+00:00' }),
      context,
    );

    expect(reread.id).toBe(first.id);
    expect(sameMillisecond.id).toBe(first.id);
    // JavaScript's date text has no milliseconds: another time, another line.
    expect(otherSpelling.id).not.toBe(first.id);
  });

  it('gives distinct ids to distinct lines that share a timestamp', () => {
    const variants = [
      line(),
      line({ logLine: line().logLine.replace('conn812', 'conn813') }),
      line({ hostname: 'payments-main-shard-00-02.x7kq2.mongodb.net' }),
      line({ username: 'payments-app' }),
      line({ ipAddress: '198.51.100.204' }),
      line({ authSource: '$external' }),
      line({ authResult: true, failureReason: null }),
    ];

    const ids = variants.map((variant) => buildAccessHistoryEvent(variant, context).id);
    const otherProject = buildAccessHistoryEvent(line(), { ...context, groupId: '5f4e3d2c1b0a998877665545' });

    expect(new Set([...ids, otherProject.id]).size).toBe(variants.length + 1);
  });

  it('writes an address one way, and keeps text that is not an address as it came', () => {
    const mapped = buildAccessHistoryEvent(line({ ipAddress: '2001:DB8:0:0::1' }), context);
    const v4Mapped = buildAccessHistoryEvent(line({ ipAddress: '::ffff:203.0.113.5' }), context);
    const notAnAddress = buildAccessHistoryEvent(line({ ipAddress: ' unknown-host ' }), context);

    expect(mapped.remoteAddress).toBe('2001:db8::1');
    expect(v4Mapped.remoteAddress).toBe('203.0.113.5');
    expect(notAnAddress.remoteAddress).toBe('unknown-host');
  });

  it('cuts huge values, keeps them encodable, and still tells lines apart past the cut', () => {
    const huge = 'a'.repeat(MAX_ACCESS_HISTORY_TEXT_LENGTH - 2) + '\uD83D\uDE00'.repeat(1_000);
    const other = `${huge}b`;

    const event = buildAccessHistoryEvent(
      line({ username: huge, failureReason: 'x'.repeat(1_000_000) }),
      context,
    );
    const otherEvent = buildAccessHistoryEvent(line({ username: other }), context);

    expect(event.username).toHaveLength(MAX_ACCESS_HISTORY_TEXT_LENGTH);
    expect(event.username?.endsWith('\uFFFD\u2026')).toBe(true);
    expect(event.failureReason).toHaveLength(MAX_ACCESS_HISTORY_TEXT_LENGTH);
    expect(Buffer.from(JSON.stringify(event), 'utf8').toString('utf8')).toBe(JSON.stringify(event));
    expect(otherEvent.id).not.toBe(event.id);
  });

  it('keeps control characters for the alert to clean, and replaces lone surrogates', () => {
    const event = buildAccessHistoryEvent(
      line({ username: 'root\r\n\u001b[31mX\u202E', authSource: 'admin\uD800' }),
      context,
    );

    expect(event.username).toBe('root\r\n\u001b[31mX\u202E');
    expect(event.authSource).toBe('admin\uFFFD');
  });

  it('leaves out values that are not text or are empty', () => {
    const event = buildAccessHistoryEvent(
      {
        authResult: false,
        timestampMs: Date.parse(TIME),
        username: 42,
        ipAddress: { address: '198.51.100.203' },
        hostname: '   ',
        authSource: null,
        failureReason: ['wrong'],
        logLine: 7,
      },
      context,
    );

    expect(event).toEqual({
      id: expect.stringMatching(/^dba-[0-9a-f]{32}$/),
      created: TIME,
      eventTypeName: 'DB_AUTH_FAILED',
      source: 'access-history',
      groupId: GROUP,
      clusterName: 'payments-main',
    });
  });

  it('reads the time from timestamp when timestampMs is missing', () => {
    const event = buildAccessHistoryEvent({ authResult: true, timestamp: TIME }, context);

    expect(event.created).toBe(TIME);
  });

  it.each([
    [
      'an authResult that is not a boolean',
      { authResult: 'false', timestamp: TIME },
      /no boolean authResult/,
    ],
    ['no time at all', { authResult: false }, /no readable timestamp/],
    ['a time that is not one', { authResult: false, timestamp: 'yesterday' }, /no readable timestamp/],
    ['a time past what a date can hold', { authResult: false, timestampMs: 9e15 }, /no readable timestamp/],
  ])('refuses a line with %s, naming its cluster', (_name, input, message) => {
    expect(() => buildAccessHistoryEvent(input, context)).toThrow(RangeError);
    expect(() => buildAccessHistoryEvent(input, context)).toThrow(message);
    expect(() => buildAccessHistoryEvent(input, context)).toThrow(/payments-main/);
  });

  it('refuses a context without a project or a cluster', () => {
    expect(() => buildAccessHistoryEvent(line(), { groupId: '', clusterName: 'c' })).toThrow(/groupId/);
    expect(() => buildAccessHistoryEvent(line(), { groupId: GROUP, clusterName: '' })).toThrow(/clusterName/);
  });
});
