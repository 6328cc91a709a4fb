import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import {
  authorizationHeader,
  challengeOf,
  DigestSession,
  parseChallenge,
  send,
  type TestAlgorithm,
  V2_ACCEPT,
} from './support/digest-client.js';
import { ManualClock } from './support/manual-clock.js';

const CHALLENGE =
  /^Digest realm="MMS Public API", domain="", nonce="([^"]+)", algorithm=MD5, qop="auth", stale=(true|false)$/;

async function digestGet(
  sim: AtlasSimulator,
  path: string,
  options: { password?: string; username?: string; algorithm?: TestAlgorithm; uri?: string } = {},
): Promise<{ status: number; challenge: string | undefined }> {
  const url = `${sim.baseUrl}${path}`;
  const first = await send(url, { headers: V2_ACCEPT });
  const nonce = parseChallenge(challengeOf(first)).nonce as string;
  const authorization = authorizationHeader({
    username: options.username ?? sim.credentials.publicKey,
    password: options.password ?? sim.credentials.privateKey,
    method: 'GET',
    uri: options.uri ?? path,
    nonce,
    ...(options.algorithm === undefined ? {} : { algorithm: options.algorithm }),
  });
  const second = await send(url, { headers: { ...V2_ACCEPT, authorization } });
  const header = second.headers['www-authenticate'];
  return { status: second.status, challenge: Array.isArray(header) ? header[0] : header };
}

describe('simulator digest authentication', () => {
  let sim: AtlasSimulator;
  let eventsPath: string;

  beforeAll(async () => {
    sim = await startSimulator();
    eventsPath = `/api/atlas/v2/groups/${sim.projectIds[0]}/events`;
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('answers a request without credentials with the documented challenge', async () => {
    const response = await send(`${sim.baseUrl}${eventsPath}`, { headers: V2_ACCEPT });

    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe('application/json;charset=ISO-8859-1');
    expect(response.headers['www-authenticate']).toMatch(CHALLENGE);
    expect(challengeOf(response)).toContain('stale=false');
    expect(JSON.parse(response.text)).toEqual({
      badRequestDetail: { fields: [] },
      detail: 'You are not authorized for this resource.',
      error: 401,
      parameters: [],
      reason: 'Unauthorized',
    });
  });

  it('issues a different nonce with each challenge', async () => {
    const first = await send(`${sim.baseUrl}${eventsPath}`, { headers: V2_ACCEPT });

    const second = await send(`${sim.baseUrl}${eventsPath}`, { headers: V2_ACCEPT });

    expect(parseChallenge(challengeOf(first)).nonce).not.toBe(parseChallenge(challengeOf(second)).nonce);
  });

  it.each<TestAlgorithm>(['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'])(
    'accepts a %s response computed independently',
    async (algorithm) => {
      const result = await digestGet(sim, eventsPath, { algorithm });

      expect(result.status).toBe(200);
    },
  );

  it('refuses a wrong private key with a fresh challenge and counts the failure', async () => {
    const before = sim.counters;

    const result = await digestGet(sim, eventsPath, { password: 'fake-wrong-private-key' });

    expect(result.status).toBe(401);
    expect(result.challenge).toMatch(CHALLENGE);
    expect(result.challenge).toContain('stale=false');
    expect(sim.counters.authFailures).toBe(before.authFailures + 1);
    expect(sim.counters.challenges).toBe(before.challenges + 2);
  });

  it('refuses an unknown public key', async () => {
    const result = await digestGet(sim, eventsPath, { username: 'nosuchky' });

    expect(result.status).toBe(401);
  });

  it('refuses a digest whose uri is not the request target', async () => {
    const result = await digestGet(sim, eventsPath, { uri: `/api/atlas/v2/orgs/${sim.orgIds[0]}/events` });

    expect(result.status).toBe(401);
  });

  it('refuses a replayed nonce count', async () => {
    const url = `${sim.baseUrl}${eventsPath}`;
    const nonce = parseChallenge(challengeOf(await send(url, { headers: V2_ACCEPT }))).nonce as string;
    const authorization = authorizationHeader({
      username: sim.credentials.publicKey,
      password: sim.credentials.privateKey,
      method: 'GET',
      uri: eventsPath,
      nonce,
      nc: 1,
    });
    const first = await send(url, { headers: { ...V2_ACCEPT, authorization } });

    const replay = await send(url, { headers: { ...V2_ACCEPT, authorization } });

    expect(first.status).toBe(200);
    expect(replay.status).toBe(401);
    expect(challengeOf(replay)).toContain('stale=false');
  });

  it('accepts unused nonce counts that arrive out of order', async () => {
    const url = `${sim.baseUrl}${eventsPath}`;
    const nonce = parseChallenge(challengeOf(await send(url, { headers: V2_ACCEPT }))).nonce as string;
    const withCount = (nc: number): Record<string, string> => ({
      ...V2_ACCEPT,
      authorization: authorizationHeader({
        username: sim.credentials.publicKey,
        password: sim.credentials.privateKey,
        method: 'GET',
        uri: eventsPath,
        nonce,
        nc,
      }),
    });

    const statuses = [];
    for (const nc of [3, 1, 2, 2]) statuses.push((await send(url, { headers: withCount(nc) })).status);

    expect(statuses).toEqual([200, 200, 200, 401]);
  });

  it('serves many requests on one nonce with a single challenge', async () => {
    const session = new DigestSession({
      username: sim.credentials.publicKey,
      password: sim.credentials.privateKey,
    });
    sim.resetCounters();

    for (let i = 0; i < 5; i++)
      await session.json(`${sim.baseUrl}${eventsPath}?pageNum=${i + 1}&itemsPerPage=5`);

    expect(sim.counters.challenges).toBe(1);
    expect(sim.counters.requests).toBe(6);
    expect(sim.counters.byPath).toEqual({ 'GET /groups/{groupId}/events': 6 });
    expect(sim.counters.byStatus).toEqual({ '200': 5, '401': 1 });
  });

  it('answers stale=true once expireNonces() has run, without counting an auth failure', async () => {
    const session = new DigestSession({
      username: sim.credentials.publicKey,
      password: sim.credentials.privateKey,
    });
    await session.json(`${sim.baseUrl}${eventsPath}`);
    const failures = sim.counters.authFailures;
    sim.expireNonces();

    const result = await session.get(`${sim.baseUrl}${eventsPath}`);

    expect(result.status).toBe(401);
    expect(challengeOf(result)).toMatch(CHALLENGE);
    expect(challengeOf(result)).toContain('stale=true');
    expect(sim.counters.authFailures).toBe(failures);
  });

  it('answers a challenge on every API generation', async () => {
    const paths = ['/api/public/v1.0', '/api/atlas/v1.0', '/api/atlas/v2'].map(
      (prefix) => `${sim.baseUrl}${prefix}/orgs/${sim.orgIds[0]}/events`,
    );

    const statuses = await Promise.all(
      paths.map(async (url) => (await send(url, { headers: V2_ACCEPT })).status),
    );

    expect(statuses).toEqual([401, 401, 401]);
  });
});

describe('simulator nonce expiry', () => {
  it('answers stale=true once the nonce outlives its time to live on the injected clock', async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({ clock, nonceTtlMs: 60_000 });
    try {
      const path = `/api/atlas/v2/orgs/${sim.orgIds[0]}/events`;
      const session = new DigestSession({
        username: sim.credentials.publicKey,
        password: sim.credentials.privateKey,
      });
      const fresh = await session.get(`${sim.baseUrl}${path}`);
      clock.advance(60_000);

      const expired = await session.get(`${sim.baseUrl}${path}`);

      expect(fresh.status).toBe(200);
      expect(expired.status).toBe(401);
      expect(challengeOf(expired)).toContain('stale=true');
    } finally {
      await sim.stop();
    }
  });

  it('offers one challenge per configured algorithm, sharing a nonce', async () => {
    const sim = await startSimulator({ challengeAlgorithms: ['SHA-256', 'MD5'] });
    try {
      const response = await send(`${sim.baseUrl}/api/public/v1.0/orgs/${sim.orgIds[0]}/events`);

      const header = response.headers['www-authenticate'];
      expect(Array.isArray(header) ? header.length : 0).toBe(2);
      const [sha, md5] = (header as string[]).map(parseChallenge);
      expect(sha?.algorithm).toBe('SHA-256');
      expect(md5?.algorithm).toBe('MD5');
      expect(sha?.nonce).toBe(md5?.nonce);
    } finally {
      await sim.stop();
    }
  });
});

const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe.skipIf(!hasCurl)(
  hasCurl ? 'curl --digest against the simulator' : 'curl --digest (skipped: curl is not on PATH)',
  () => {
    let sim: AtlasSimulator;

    beforeAll(async () => {
      sim = await startSimulator();
    });

    afterAll(async () => {
      await sim.stop();
    });

    async function curlStatus(password: string): Promise<string> {
      const url = `${sim.baseUrl}/api/atlas/v2/groups/${sim.projectIds[0]}/events?itemsPerPage=1`;
      const { stdout } = await promisify(execFile)('curl', [
        '--silent',
        '--output',
        '/dev/null',
        '--write-out',
        '%{http_code}',
        '--digest',
        '--user',
        `${sim.credentials.publicKey}:${password}`,
        '--header',
        'Accept: application/vnd.atlas.2023-01-01+json',
        url,
      ]);
      return stdout;
    }

    it('gets 200 with the right key', async () => {
      const status = await curlStatus(sim.credentials.privateKey);

      expect(status).toBe('200');
    });

    it('gets 401 with a wrong key', async () => {
      const status = await curlStatus('fake-wrong-private-key');

      expect(status).toBe('401');
    });
  },
);

describe('simulator unauthenticated access', () => {
  it('serves a request without credentials as the simulator credential, with no challenge', async () => {
    const sim = await startSimulator({ unauthenticatedAccess: true });
    try {
      const path = `/api/atlas/v2/groups/${sim.projectIds[0]}/events?itemsPerPage=2`;

      const response = await send(`${sim.baseUrl}${path}`, { headers: V2_ACCEPT });

      expect(response.status).toBe(200);
      expect((JSON.parse(response.text) as { results: unknown[] }).results).toHaveLength(2);
      expect(sim.counters).toMatchObject({ requests: 1, challenges: 0, authFailures: 0 });
    } finally {
      await sim.stop();
    }
  });

  it('still checks the credentials a request carries', async () => {
    const sim = await startSimulator();
    try {
      const path = `/api/atlas/v2/groups/${sim.projectIds[0]}/events`;
      const url = `${sim.baseUrl}${path}`;
      const nonce = parseChallenge(challengeOf(await send(url, { headers: V2_ACCEPT }))).nonce as string;
      const signed = (password: string, nc: number): Record<string, string> => ({
        ...V2_ACCEPT,
        authorization: authorizationHeader({
          username: sim.credentials.publicKey,
          password,
          method: 'GET',
          uri: path,
          nonce,
          nc,
        }),
      });
      sim.setUnauthenticatedAccess(true);

      const refused = await send(url, { headers: signed('fake-wrong-private-key', 1) });
      const accepted = await send(url, { headers: signed(sim.credentials.privateKey, 2) });

      expect(refused.status).toBe(401);
      expect(accepted.status).toBe(200);
      expect(sim.counters.authFailures).toBe(1);
    } finally {
      await sim.stop();
    }
  });

  it('is off by default, and off again once turned off', async () => {
    const sim = await startSimulator();
    try {
      const url = `${sim.baseUrl}/api/atlas/v2/groups/${sim.projectIds[0]}/events`;

      const before = await send(url, { headers: V2_ACCEPT });
      sim.setUnauthenticatedAccess(true);
      const during = await send(url, { headers: V2_ACCEPT });
      sim.setUnauthenticatedAccess(false);
      const after = await send(url, { headers: V2_ACCEPT });

      expect([before.status, during.status, after.status]).toEqual([401, 200, 401]);
    } finally {
      await sim.stop();
    }
  });
});
