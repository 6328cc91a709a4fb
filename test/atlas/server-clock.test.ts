import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import { ServerClock } from '../../shared/atlas/server-clock.js';
import { type LogLine, recordingLogger } from './client-harness.js';
import { ManualClock } from './manual-clock.js';

const LOCAL = Date.parse('2026-11-24T03:00:00Z');
const ORG = '5f4e3d2c1b0a998877665544';

describe('ServerClock', () => {
  it('follows the local clock until a Date header arrives', () => {
    const clock = new ManualClock(LOCAL);
    const server = new ServerClock({ clock, logger: recordingLogger([]) });

    expect(server.now()).toBe(LOCAL);
    expect(server.skewMs).toBeUndefined();
  });

  it('runs on Atlas time once a Date header arrives, and reports the local clock ahead as positive skew', () => {
    const clock = new ManualClock(LOCAL);
    const server = new ServerClock({ clock, logger: recordingLogger([]) });

    const used = server.observe('Tue, 24 Nov 2026 02:40:00 GMT', clock.now());
    clock.advance(90_000);

    expect(used).toBe('used');
    expect(server.now()).toBe(Date.parse('2026-11-24T02:41:30Z'));
    expect(server.skewMs).toBe(20 * 60_000);
  });

  it('measures the offset of a Date seen before from the time its new answer arrived', () => {
    const clock = new ManualClock(LOCAL);
    const server = new ServerClock({ clock, logger: recordingLogger([]) });
    server.observe('Tue, 24 Nov 2026 02:40:00 GMT', LOCAL);

    const again = server.observe('Tue, 24 Nov 2026 02:40:00 GMT', LOCAL + 500);
    const skewAgain = server.skewMs;
    const later = server.observe('Tue, 24 Nov 2026 02:40:01 GMT', LOCAL + 2_000);

    expect([again, later]).toEqual(['used', 'used']);
    expect(skewAgain).toBe(20 * 60_000 + 500);
    expect(server.skewMs).toBe(20 * 60_000 + 1_000);
  });

  it('ignores a garbage Date header with one warning, then debug lines, and keeps the last good offset', () => {
    const clock = new ManualClock(LOCAL);
    const logs: LogLine[] = [];
    const server = new ServerClock({ clock, logger: recordingLogger(logs) });
    server.observe('Tue, 24 Nov 2026 02:59:00 GMT', LOCAL);

    const first = server.observe('<script>now</script>', LOCAL);
    const second = server.observe(['Tue, 24 Nov 2026 02:59:00 GMT', 'Tue, 24 Nov 2026 02:58:00 GMT'], LOCAL);

    expect([first, second]).toEqual(['invalid', 'invalid']);
    expect(server.skewMs).toBe(60_000);
    expect(logs.map((line) => line.level)).toEqual(['warn', 'debug']);
    expect(logs[0]?.attributes).toMatchObject({ value: '<script>now</script>' });
  });

  it('does not believe a date further than a day from the local clock', () => {
    const clock = new ManualClock(LOCAL);
    const logs: LogLine[] = [];
    const server = new ServerClock({ clock, logger: recordingLogger(logs) });

    const answer = server.observe('Sat, 01 Jan 2100 00:00:00 GMT', LOCAL);

    expect(answer).toBe('implausible');
    expect(server.now()).toBe(LOCAL);
    expect(logs[0]?.message).toContain('too far from the local clock');
  });

  it('cuts a long hostile header short in its log line', () => {
    const logs: LogLine[] = [];
    const server = new ServerClock({ clock: new ManualClock(LOCAL), logger: recordingLogger(logs) });

    server.observe('x'.repeat(10_000), LOCAL);

    expect(String(logs[0]?.attributes?.value).length).toBeLessThanOrEqual(65);
  });
});

describe('AtlasClient and the Date header', () => {
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  });

  /** A server on 127.0.0.1 answering every request with an empty event page and `date`. */
  async function serve(date: string): Promise<string> {
    server = createServer((_req, res) => {
      res.setHeader('Date', date);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ results: [], links: [], totalCount: 0 }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return `http://127.0.0.1:${address.port}`;
  }

  it('takes Atlas clock from the Date header of a real answer', async () => {
    const baseUrl = await serve('Tue, 24 Nov 2026 02:40:00 GMT');
    const clock = new ManualClock(LOCAL);
    const client = new AtlasClient({
      baseUrl,
      credentials: { kind: 'digest', publicKey: 'fakepub', privateKey: 'fake-private-key-for-tests' },
      clock,
    });
    try {
      await client.listOrgEvents(ORG).toArray();

      expect(client.serverClock.skewMs).toBe(20 * 60_000);
    } finally {
      await client.close();
    }
  });

  it('keeps the local clock and logs a warning when the Date header is garbage', async () => {
    const baseUrl = await serve('not a date at all');
    const clock = new ManualClock(LOCAL);
    const logs: LogLine[] = [];
    const client = new AtlasClient({
      baseUrl,
      credentials: { kind: 'digest', publicKey: 'fakepub', privateKey: 'fake-private-key-for-tests' },
      clock,
      logger: recordingLogger(logs),
    });
    try {
      const events = await client.listOrgEvents(ORG).toArray();

      expect(events).toEqual([]);
      expect(client.serverClock.skewMs).toBeUndefined();
      expect(client.serverClock.now()).toBe(LOCAL);
      expect(logs.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
        'Atlas sent a Date header that is not an HTTP date; it is ignored',
      ]);
    } finally {
      await client.close();
    }
  });
});
