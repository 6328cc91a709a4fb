import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import { ManualClock } from './manual-clock.js';

const ORG = '5f4e3d2c1b0a998877665544';
const OTHER_ORG = '5f4e3d2c1b0a998877665545';

/** What the server saw, in order. */
interface Seen {
  path: string;
  /** The client's clock when the server answered. */
  at: number;
  status: number;
}

/**
 * A server on 127.0.0.1 with a token bucket per org that never refills during the test: each
 * answer carries `RateLimit-Limit` and `RateLimit-Remaining` (and `RateLimit-Reset` when given), and a
 * request past the limit gets a 429.
 */
async function startLimitedServer(options: {
  limit: number;
  clock: ManualClock;
  resetSeconds?: number;
}): Promise<{ baseUrl: string; seen: Seen[]; server: Server }> {
  const used = new Map<string, number>();
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const scope = /\/orgs\/([^/]+)/.exec(path)?.[1] ?? 'host';
    const count = (used.get(scope) ?? 0) + 1;
    used.set(scope, count);
    const remaining = Math.max(0, options.limit - count);
    res.setHeader('RateLimit-Limit', String(options.limit));
    res.setHeader('RateLimit-Remaining', String(remaining));
    if (options.resetSeconds !== undefined) res.setHeader('RateLimit-Reset', String(options.resetSeconds));
    res.setHeader('Content-Type', 'application/json');
    const status = count > options.limit ? 429 : 200;
    seen.push({ path, at: options.clock.now(), status });
    res.statusCode = status;
    res.end(
      status === 200
        ? JSON.stringify({ results: [], links: [], totalCount: 0 })
        : JSON.stringify({
            error: 429,
            errorCode: 'RATE_LIMITED',
            detail: 'too many',
            reason: 'Too Many Requests',
          }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { baseUrl: `http://127.0.0.1:${address.port}`, seen, server };
}

let server: Server | undefined;
let client: AtlasClient | undefined;

afterEach(async () => {
  await client?.close();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
  client = undefined;
});

function newClient(baseUrl: string, clock: ManualClock): AtlasClient {
  client = new AtlasClient({
    baseUrl,
    credentials: { kind: 'digest', publicKey: 'fakepub', privateKey: 'fake-private-key-for-tests' },
    clock,
    random: () => 0.5,
  });
  return client;
}

describe('AtlasClient pacing by RateLimit headers', () => {
  it('slows down before the bucket is empty, so no request earns a 429', async () => {
    // Prepare: 20 requests a minute; the reserve is 2.
    const clock = new ManualClock();
    const limited = await startLimitedServer({ limit: 20, clock });
    server = limited.server;
    const atlas = newClient(limited.baseUrl, clock);

    // Act
    for (let call = 0; call < 20; call += 1) await atlas.listOrgEvents(ORG).toArray();

    // Assess: a paced wait (a minute over 20) before each request once Remaining fell to the reserve.
    expect(limited.seen.map((request) => request.status)).not.toContain(429);
    expect(clock.sleeps).toEqual([3_000, 3_000]);
    expect(limited.seen[18]?.at).toBe((limited.seen[17]?.at ?? 0) + 3_000);
    expect(limited.seen[17]?.at).toBe(limited.seen[0]?.at);
    expect(atlas.stats.paced).toBe(2);
  });

  it('shares the time left to RateLimit-Reset over the requests left', async () => {
    const clock = new ManualClock();
    const limited = await startLimitedServer({ limit: 10, clock, resetSeconds: 8 });
    server = limited.server;
    const atlas = newClient(limited.baseUrl, clock);

    for (let call = 0; call < 10; call += 1) await atlas.listOrgEvents(ORG).toArray();

    // Remaining 1 after the ninth answer: the tenth waits the 8 s left over 1 request.
    expect(clock.sleeps).toEqual([8_000]);
    expect(limited.seen.map((request) => request.status)).not.toContain(429);
  });

  it('never waits longer than its bound, whatever reset Atlas names', async () => {
    const clock = new ManualClock();
    const limited = await startLimitedServer({ limit: 10, clock, resetSeconds: 3_600 });
    server = limited.server;
    const atlas = newClient(limited.baseUrl, clock);

    for (let call = 0; call < 10; call += 1) await atlas.listOrgEvents(ORG).toArray();

    expect(clock.sleeps).toEqual([10_000]);
  });

  it('keeps each organization on its own pace', async () => {
    const clock = new ManualClock();
    const limited = await startLimitedServer({ limit: 20, clock });
    server = limited.server;
    const atlas = newClient(limited.baseUrl, clock);
    for (let call = 0; call < 18; call += 1) await atlas.listOrgEvents(ORG).toArray();

    await atlas.listOrgEvents(OTHER_ORG).toArray();
    const otherSleeps = [...clock.sleeps];
    await atlas.listOrgEvents(ORG).toArray();

    expect(otherSleeps).toEqual([]);
    expect(clock.sleeps).toEqual([3_000]);
  });

  it('ends a paced wait when the caller aborts (the tick deadline)', async () => {
    const clock = new ManualClock();
    const limited = await startLimitedServer({ limit: 20, clock });
    server = limited.server;
    const atlas = newClient(limited.baseUrl, clock);
    for (let call = 0; call < 19; call += 1) await atlas.listOrgEvents(ORG).toArray();
    const controller = new AbortController();
    controller.abort(new Error('tick deadline'));

    const read = atlas.listOrgEvents(ORG, { signal: controller.signal }).toArray();

    await expect(read).rejects.toThrow('tick deadline');
    expect(limited.seen).toHaveLength(19);
  });
});
