import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import {
  AtlasNetworkError,
  AtlasRateLimitError,
  AtlasResponseError,
  AtlasServerError,
} from '../../shared/atlas/errors.js';
import { atlasErrorBody, listPage, type Reply } from '../support/digest-server.js';
import {
  type ClientHarness,
  type HarnessOptions,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startClientHarness,
} from './client-harness.js';
import { ManualClock } from './manual-clock.js';

const ORG = '5f4e3d2c1b0a998877665544';

const harnesses: ClientHarness[] = [];

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close();
  }
});

/** A harness whose route plays `replies` in order, then answers an empty page. */
async function scripted(replies: Reply[], options: HarnessOptions = {}): Promise<ClientHarness> {
  const queue = [...replies];
  const started = await startClientHarness({
    ...options,
    server: { route: () => queue.shift() ?? { body: listPage([], { self: '' }) }, ...options.server },
  });
  harnesses.push(started);
  return started;
}

const rateLimited = (headers: Record<string, string> = {}): Reply => ({
  status: 429,
  headers,
  body: atlasErrorBody(429, 'RATE_LIMITED', 'Too many requests.'),
});

describe('AtlasClient retries', () => {
  it('waits at least Retry-After seconds before trying again', async () => {
    const { client, clock } = await scripted([
      rateLimited({ 'retry-after': '7' }),
      rateLimited({ 'retry-after': '7' }),
    ]);

    await client.listOrgEvents(ORG).toArray();

    expect(clock.sleeps).toEqual([7000, 7000]);
    expect(client.stats).toMatchObject({ rateLimited: 2, retries: 2 });
  });

  it('reads Retry-After as an HTTP date against the injected clock', async () => {
    const clock = new ManualClock(Date.parse('2024-05-01T12:00:00Z'));
    const { client } = await scripted([rateLimited({ 'retry-after': 'Wed, 01 May 2024 12:00:12 GMT' })], {
      client: { clock },
    });

    await client.listOrgEvents(ORG).toArray();

    expect(clock.sleeps).toEqual([12_000]);
  });

  it('backs off exponentially with full jitter when there is no Retry-After', async () => {
    const { client, clock } = await scripted([rateLimited(), rateLimited(), rateLimited()]);

    await client.listOrgEvents(ORG).toArray();

    // random() is 0.5: half of 500, 1000 and 2000 ms.
    expect(clock.sleeps).toEqual([250, 500, 1000]);
  });

  it('stops at the attempt cap with AtlasRateLimitError', async () => {
    const { client, clock, server } = await scripted(
      Array.from({ length: 10 }, () => rateLimited()),
      {
        client: { retry: { maxAttempts: 4 } },
      },
    );

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasRateLimitError);
    expect(error).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED', attempts: 4, retryable: true });
    expect((error as Error).message).toMatch(
      /^Atlas answered 429 RATE_LIMITED for GET \/api\/public\/v1\.0\/orgs\/\w+\/events after 4 attempts over 1\.8 s/,
    );
    expect(clock.sleeps).toHaveLength(3);
    expect(server.requests).toHaveLength(1 + 4);
  });

  it('gives up at once when Retry-After reaches past the deadline', async () => {
    const { client, clock } = await scripted([rateLimited({ 'retry-after': '30' })], {
      client: { retry: { deadlineMs: 10_000 } },
    });

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasRateLimitError);
    expect(error).toMatchObject({ attempts: 1, retryAfterMs: 30_000 });
    expect(clock.sleeps).toEqual([]);
  });

  it('stops when the waits so far and the next one would pass the deadline', async () => {
    const { client, clock } = await scripted(
      Array.from({ length: 10 }, () => rateLimited({ 'retry-after': '4' })),
      { client: { retry: { deadlineMs: 10_000, maxAttempts: 10 } } },
    );

    await expect(client.listOrgEvents(ORG).toArray()).rejects.toMatchObject({ attempts: 3 });
    expect(clock.sleeps).toEqual([4000, 4000]);
  });

  it.each([500, 502, 503, 504])('retries a %i and returns the later answer', async (status) => {
    const { client } = await scripted([
      { status, body: atlasErrorBody(status, 'UNEXPECTED_ERROR', 'Oops.') },
    ]);

    const events = await client.listOrgEvents(ORG).toArray();

    expect(events).toEqual([]);
    expect(client.stats.retries).toBe(1);
  });

  it('ends with a retryable AtlasServerError when every attempt fails', async () => {
    const { client } = await scripted(Array.from({ length: 5 }, () => ({ status: 503, body: '' })));

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasServerError);
    expect(error).toMatchObject({ status: 503, attempts: 5, retryable: true });
  });

  it('does not retry a 501', async () => {
    const { client } = await scripted([{ status: 501, body: '' }]);

    await expect(client.listOrgEvents(ORG).toArray()).rejects.toMatchObject({
      name: 'AtlasServerError',
      attempts: 1,
      retryable: false,
    });
  });

  it('retries a connection reset', async () => {
    const { client } = await scripted([{ kind: 'reset' }]);

    const events = await client.listOrgEvents(ORG).toArray();

    expect(events).toEqual([]);
    expect(client.stats.retries).toBe(1);
  });

  it('retries a body cut short', async () => {
    const { client } = await scripted([{ kind: 'truncate', body: '{"results": [{"id": "a"' }]);

    const events = await client.listOrgEvents(ORG).toArray();

    expect(events).toEqual([]);
    expect(client.stats.retries).toBe(1);
  });

  it('retries a 200 whose body is not JSON, then gives up with AtlasResponseError', async () => {
    const { client } = await scripted(
      Array.from({ length: 3 }, () => ({ body: '{"results": [' })),
      {
        client: { retry: { maxAttempts: 3 } },
      },
    );

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasResponseError);
    expect(error).toMatchObject({ status: 200, attempts: 3 });
    expect((error as Error).message).toContain('with a body that is not JSON');
  });

  it('ends with AtlasNetworkError when nothing listens', async () => {
    const port = await closedPort();
    const clock = new ManualClock();
    const client = new AtlasClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY },
      clock,
      random: () => 0.5,
      retry: { maxAttempts: 3 },
    });

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught)
      .finally(() => client.close());

    expect(error).toBeInstanceOf(AtlasNetworkError);
    expect(error).toMatchObject({ errorCode: 'ECONNREFUSED', attempts: 3, retryable: true });
    expect((error as Error).message).toMatch(
      /^Could not reach http:\/\/127\.0\.0\.1:\d+ for GET \/api\/atlas\/v2\/orgs\/\w+\/events after 3 attempts/,
    );
    expect(clock.sleeps).toEqual([250, 500]);
  });

  it('stops retrying when the caller aborts', async () => {
    const controller = new AbortController();
    const { client, server } = await scripted([], {
      server: {
        route: () => {
          controller.abort(new Error('caller gave up'));
          return rateLimited();
        },
      },
    });

    await expect(client.listOrgEvents(ORG, { signal: controller.signal }).toArray()).rejects.toThrow(
      'caller gave up',
    );
    expect(server.requests.filter((request) => request.status === 429)).toHaveLength(1);
  });

  it('logs each retry as a warning with the request and the wait', async () => {
    const { client, logs } = await scripted([rateLimited({ 'retry-after': '2' })]);

    await client.listOrgEvents(ORG).toArray();

    // The test clock is years from the server's Date header: that warning is not this test's subject.
    const warnings = logs.filter((line) => line.level === 'warn' && !line.message.includes('Date header'));
    expect(warnings).toEqual([
      {
        level: 'warn',
        message: 'Atlas request failed; retrying',
        attributes: {
          method: 'GET',
          path: `/api/public/v1.0/orgs/${ORG}/events`,
          status: 429,
          errorCode: 'RATE_LIMITED',
          attempt: 1,
          delayMs: 2000,
        },
      },
    ]);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) {
    throw new Error('no port');
  }
  return address.port;
}
