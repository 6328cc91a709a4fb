import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { DigestChallengeEvent } from '../../shared/atlas/digest-auth-handler.js';
import { createDigestAuthInterceptor, randomCnonce } from '../../shared/atlas/digest-interceptor.js';
import { type DigestServer, type DigestServerOptions, startDigestServer } from '../support/digest-server.js';

const USERNAME = 'test-public-key';
const PASSWORD = 'fake-private-key-for-tests';

interface Harness {
  server: DigestServer;
  dispatcher: Dispatcher;
  challenges: DigestChallengeEvent[];
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: string }>;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) {
    await cleanup();
  }
});

async function harness(
  serverOptions: DigestServerOptions = {},
  credentials: { username?: string; password?: string } = {},
): Promise<Harness> {
  const server = await startDigestServer({
    username: USERNAME,
    password: PASSWORD,
    route: (request) => ({ body: { path: request.url.pathname } }),
    ...serverOptions,
  });
  const agent = new Agent();
  const challenges: DigestChallengeEvent[] = [];
  const dispatcher = agent.compose(
    createDigestAuthInterceptor({
      username: credentials.username ?? USERNAME,
      password: credentials.password ?? PASSWORD,
      onChallenge: (event) => challenges.push(event),
    }),
  );
  cleanups.push(async () => {
    await agent.close();
    await server.close();
  });
  return {
    server,
    dispatcher,
    challenges,
    get: async (path, headers = {}) => {
      const response = await dispatcher.request({ origin: server.baseUrl, path, method: 'GET', headers });
      return { status: response.statusCode, body: await response.body.text() };
    },
  };
}

describe('createDigestAuthInterceptor', () => {
  it('answers one challenge for a run of requests and then sends one request per call', async () => {
    const { server, get, challenges } = await harness();

    const statuses: number[] = [];
    for (let call = 0; call < 5; call += 1) {
      statuses.push((await get(`/api/public/v1.0/groups/g/events?pageNum=${call + 1}`)).status);
    }

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(server.requests).toHaveLength(6);
    expect(server.challenges()).toBe(1);
    expect(challenges).toEqual([{ origin: server.baseUrl, reason: 'first', algorithm: 'MD5' }]);
  });

  it('reuses the nonce with a nonce count that goes up by one per request', async () => {
    const { server, get } = await harness();

    for (let call = 0; call < 3; call += 1) {
      await get('/api/public/v1.0/orgs/o/apiKeys');
    }

    const signed = server.requests.filter((request) => request.digest);
    expect(signed.map((request) => request.digest?.nc)).toEqual(['00000001', '00000002', '00000003']);
    expect(new Set(signed.map((request) => request.digest?.nonce)).size).toBe(1);
    expect(new Set(signed.map((request) => request.digest?.cnonce)).size).toBe(3);
    expect(signed.map((request) => request.digest?.cnonce)).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}$/),
      expect.stringMatching(/^[0-9a-f]{32}$/),
      expect.stringMatching(/^[0-9a-f]{32}$/),
    ]);
  });

  it('spends exactly one extra round trip on a stale nonce', async () => {
    const { server, get, challenges } = await harness();
    await get('/a');
    server.expireNonces();
    const before = server.requests.length;

    const response = await get('/b');

    expect(response.status).toBe(200);
    expect(server.requests.length - before).toBe(2);
    expect(challenges.map((event) => event.reason)).toEqual(['first', 'stale']);
    expect(server.requests.at(-1)?.digest?.nc).toBe('00000001');
  });

  it('spends exactly one extra round trip when the server no longer accepts a reused nonce', async () => {
    const { server, get, challenges } = await harness();
    await get('/a');
    server.forgetNonces();
    const before = server.requests.length;

    const response = await get('/b');

    expect(response.status).toBe(200);
    expect(server.requests.length - before).toBe(2);
    expect(challenges.map((event) => event.reason)).toEqual(['first', 'rejected']);
  });

  it('signs for the new realm when the server moves to another one', async () => {
    const { server, get, challenges } = await harness();
    await get('/a');
    server.changeRealm('Another Realm');

    const response = await get('/b');

    expect(response.status).toBe(200);
    expect(challenges.map((event) => event.reason)).toEqual(['first', 'rejected']);
    expect(server.requests.at(-1)?.digest?.realm).toBe('Another Realm');
  });

  it('hands a 401 to fresh credentials to the caller, and starts over on the next call', async () => {
    const { server, get } = await harness({}, { password: 'fake-wrong-private-key' });

    const first = await get('/a');
    const second = await get('/b');

    expect(first.status).toBe(401);
    expect(second.status).toBe(401);
    expect(server.requests.map((request) => Boolean(request.digest))).toEqual([false, true, false, true]);
  });

  it.each(['MD5-sess', 'SHA-256', 'SHA-256-sess', 'SHA-512-256', 'SHA-512-256-sess'] as const)(
    'authenticates with %s',
    async (algorithm) => {
      const { server, get } = await harness({ algorithms: [algorithm] });

      const responses = [await get('/a'), await get('/b')];

      expect(responses.map((response) => response.status)).toEqual([200, 200]);
      expect(server.requests.at(-1)?.digest?.algorithm).toBe(algorithm);
    },
  );

  it('answers with SHA-256 when the server offers MD5 first and SHA-256 second', async () => {
    const { server, get } = await harness({ algorithms: ['MD5', 'SHA-256'] });

    await get('/a');

    expect(server.requests.at(-1)?.digest?.algorithm).toBe('SHA-256');
  });

  it('echoes the opaque value and signs the request-target with its query', async () => {
    const { server, dispatcher } = await harness({ opaque: 'opaque, with "quotes"' });

    const response = await dispatcher.request({
      origin: server.baseUrl,
      path: '/api/atlas/v2/groups/g/events',
      query: { eventType: ['A', 'B'], itemsPerPage: 5 },
      method: 'GET',
    });
    await response.body.text();

    expect(response.statusCode).toBe(200);
    expect(server.requests.at(-1)?.digest?.uri).toBe(
      '/api/atlas/v2/groups/g/events?eventType=A&eventType=B&itemsPerPage=5',
    );
    expect(server.requests.at(-1)?.digest?.opaque).toBe('opaque, with "quotes"');
  });

  it('lets concurrent first requests share one challenge', async () => {
    const { server, get } = await harness();

    const responses = await Promise.all([get('/a'), get('/b'), get('/c'), get('/d')]);

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(server.challenges()).toBe(1);
    expect(server.requests).toHaveLength(5);
  });

  it('passes a request that already carries Authorization through untouched', async () => {
    const { server, get } = await harness({ auth: 'none' });

    await get('/a', { Authorization: 'Bearer test-token' });

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-token');
  });

  it('hands a 401 without a Digest challenge to the caller after one request', async () => {
    const { server, get, challenges } = await harness({ auth: 'oauth' });

    const response = await get('/a');

    expect(response.status).toBe(401);
    expect(server.requests).toHaveLength(1);
    expect(challenges).toEqual([]);
  });

  it('delivers the body of the answered request, not the body of the 401', async () => {
    const { get } = await harness({ route: () => ({ body: { results: ['ok'] } }) });

    const response = await get('/a');

    expect(JSON.parse(response.body)).toEqual({ results: ['ok'] });
  });

  it('reports a connection reset after the challenge to the caller as an error', async () => {
    let calls = 0;
    const { get } = await harness({
      route: () => {
        calls += 1;
        return { kind: 'reset' };
      },
    });

    await expect(get('/a')).rejects.toThrow();
    expect(calls).toBe(1);
  });
});

describe('randomCnonce', () => {
  it('gives 32 hex digits that never repeat, past the end of the pool it draws from', () => {
    const cnonces = Array.from({ length: 1_000 }, () => randomCnonce());

    expect(cnonces.every((cnonce) => /^[0-9a-f]{32}$/.test(cnonce))).toBe(true);
    expect(new Set(cnonces).size).toBe(1_000);
  });
});
