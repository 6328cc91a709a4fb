import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type AuditLogEvent,
  type AuditObjectCounts,
  emptyAuditCounts,
  readAuditObject,
} from '../../shared/audit-log/index.js';

const CONTEXT = { groupId: '5f0000000000000000000003', clusterName: 'payments-main', hostname: 'h1' };

function message(index: number, atype = 'authCheck'): string {
  return JSON.stringify({
    atype,
    ts: { $date: new Date(Date.UTC(2026, 10, 28, 1, 0, 0, index)).toISOString() },
    users: [{ user: `user${index}`, db: 'admin' }],
    remote: { ip: '203.0.113.7', port: 40_000 + (index % 1000) },
    param: { command: 'find', ns: 'payments.charges' },
    result: index % 2 === 0 ? 0 : 13,
  });
}

/** A body delivered in chunks of the given size, as an S3 response streams it. */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function readAll(
  body: AsyncIterable<Uint8Array>,
  options: { maxLineBytes?: number; batchSize?: number } = {},
): Promise<{ events: AuditLogEvent[]; batches: number[]; counts: AuditObjectCounts }> {
  const counts = emptyAuditCounts();
  const events: AuditLogEvent[] = [];
  const batches: number[] = [];
  for await (const batch of readAuditObject(body, { context: CONTEXT, counts, ...options })) {
    batches.push(batch.length);
    events.push(...batch);
  }
  return { events, batches, counts };
}

describe('readAuditObject', () => {
  const text = `${Array.from({ length: 1_200 }, (_, index) => message(index)).join('\n')}\n`;

  it.each([
    ['plain text', Buffer.from(text)],
    ['gzip', gzipSync(text)],
    [
      'gzip of several members, as concatenated uploads are',
      Buffer.concat([gzipSync(text.slice(0, 1000)), gzipSync(text.slice(1000))]),
    ],
  ])('reads %s in any chunking, in order, in batches', async (_name, bytes) => {
    for (const size of [1, 7, 4096, bytes.length]) {
      if (size === 1 && bytes.length > 50_000) continue;
      const { events, batches, counts } = await readAll(chunked(bytes, size), { batchSize: 500 });

      expect(events.map((event) => event.username)).toEqual(
        Array.from({ length: 1_200 }, (_, index) => `user${index}`),
      );
      expect(batches).toEqual([500, 500, 200]);
      expect(counts).toEqual({
        bytes: Buffer.byteLength(text),
        lines: 1_200,
        events: 1_200,
        malformed: 0,
        overlong: 0,
      });
    }
  });

  it('counts and skips malformed and overlong lines without stopping, and reads a last line with no newline', async () => {
    const lines = [
      message(1),
      '{"atype": "authCheck", "ts": ',
      'not json at all',
      '',
      '\r',
      JSON.stringify({ atype: 'createUser' }),
      `{"atype":"authCheck","ts":{"$date":"2026-11-28T01:00:00Z"},"param":"${'z'.repeat(2_000)}"}`,
      message(2, 'dropDatabase'),
      `${message(3, 'createUser')}`,
    ];

    const { events, counts } = await readAll(chunked(Buffer.from(lines.join('\r\n')), 300), {
      maxLineBytes: 1_000,
    });

    expect(events.map((event) => event.eventTypeName)).toEqual([
      'DB_AUDIT_AUTH_CHECK',
      'DB_AUDIT_DROP_DATABASE',
      'DB_AUDIT_CREATE_USER',
    ]);
    expect(counts).toMatchObject({ lines: 6, events: 3, malformed: 3, overlong: 1 });
  });

  it('gives the lines of an object delivered twice the same ids', async () => {
    const first = await readAll(chunked(gzipSync(text), 10_000));
    const again = await readAll(chunked(Buffer.from(text), 333));

    expect(again.events.map((event) => event.id)).toEqual(first.events.map((event) => event.id));
    expect(new Set(first.events.map((event) => event.id)).size).toBe(1_200);
  });

  it('fails on a corrupt gzip object after yielding the events of the lines before', async () => {
    const gzip = gzipSync(text);
    const cut = gzip.subarray(0, Math.floor(gzip.length / 2));
    const events: AuditLogEvent[] = [];

    const reading = (async () => {
      for await (const batch of readAuditObject(chunked(cut, 4096), { context: CONTEXT, batchSize: 10 }))
        events.push(...batch);
    })();

    await expect(reading).rejects.toThrow(/unexpected end of file/);
    expect(events.length).toBeGreaterThan(0);
  });

  it.each([
    ['plain', Buffer.from(text)],
    ['gzip', gzipSync(text)],
  ])('fails when the %s body fails mid-way, rather than waiting for the rest', async (_name, bytes) => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield bytes.subarray(0, 2_000);
      throw new Error('connection reset by peer');
    }

    await expect(readAll(failing())).rejects.toThrow('connection reset by peer');
  });

  it('yields nothing for an empty object', async () => {
    const { events, counts } = await readAll(chunked(Buffer.alloc(0), 10));

    expect(events).toEqual([]);
    expect(counts.lines).toBe(0);
  });
});
