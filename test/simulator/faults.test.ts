import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AtlasSimulator,
  type FaultPlan,
  SimulatorOptionsError,
  startSimulator,
} from '../../simulator/index.js';
import { challengeOf, DigestSession, type HttpResult, send, V2_ACCEPT } from './support/digest-client.js';
import { ManualClock } from './support/manual-clock.js';
import { ids, keys, serviceAccount, testSeed } from './support/test-seed.js';

const EVENTS_ROUTE = 'GET /groups/{groupId}/events';

function tokenRequest(sim: AtlasSimulator): Promise<HttpResult> {
  return send(`${sim.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${serviceAccount.clientId}:${serviceAccount.clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
}

async function tokenFor(sim: AtlasSimulator): Promise<string> {
  return (JSON.parse((await tokenRequest(sim)).text) as { access_token: string }).access_token;
}

function eventsGet(
  sim: AtlasSimulator,
  token: string,
  path = `/groups/${ids.project}/events`,
): Promise<HttpResult> {
  return send(`${sim.baseUrl}/api/atlas/v2${path}`, {
    headers: { ...V2_ACCEPT, authorization: `Bearer ${token}` },
  });
}

async function statuses(sim: AtlasSimulator, token: string, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await eventsGet(sim, token)).status);
  return result;
}

describe('simulator fault injection', () => {
  let sim: AtlasSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    token = await tokenFor(sim);
  });

  afterEach(() => {
    sim.setFaults();
    sim.resetCounters();
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('injects the same faults for the same seed and other faults for another seed', async () => {
    const plan = (seed: number): FaultPlan => ({
      seed,
      probabilities: { serviceUnavailable: 0.3, rateLimited: 0.2 },
      routes: [EVENTS_ROUTE],
    });
    sim.setFaults(plan(9));
    const first = await statuses(sim, token, 30);
    sim.setFaults(plan(9));
    const again = await statuses(sim, token, 30);
    sim.setFaults(plan(10));

    const other = await statuses(sim, token, 30);

    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503]));
  });

  it('follows a schedule, then answers normally', async () => {
    sim.setFaults({ schedule: [{ kind: 'rateLimited', count: 3 }], retryAfterSeconds: 2 });

    const results = [];
    for (let i = 0; i < 4; i++) results.push(await eventsGet(sim, token));

    expect(results.map((result) => result.status)).toEqual([429, 429, 429, 200]);
    expect(results[0]?.headers['retry-after']).toBe('2');
    expect(JSON.parse(results[0]?.text ?? '')).toMatchObject({ error: 429, errorCode: 'RATE_LIMITED' });
    expect(sim.counters.faults.rateLimited).toBe(3);
  });

  it('skips requests with a none step and sends 429 without Retry-After', async () => {
    sim.setFaults({ schedule: [{ kind: 'none', count: 2 }, { kind: 'rateLimitedNoRetryAfter' }] });

    const results = [];
    for (let i = 0; i < 3; i++) results.push(await eventsGet(sim, token));

    expect(results.map((result) => result.status)).toEqual([200, 200, 429]);
    expect(results[2]?.headers['retry-after']).toBeUndefined();
  });

  it('answers 500 with the Atlas body and 502, 503, 504 with plain text as a load balancer does', async () => {
    sim.setFaults({
      schedule: [
        { kind: 'internalServerError' },
        { kind: 'badGateway' },
        { kind: 'serviceUnavailable' },
        { kind: 'gatewayTimeout' },
      ],
    });

    const results = [];
    for (let i = 0; i < 4; i++) results.push(await eventsGet(sim, token));

    expect(results.map((result) => result.status)).toEqual([500, 502, 503, 504]);
    expect(JSON.parse(results[0]?.text ?? '')).toMatchObject({ errorCode: 'UNEXPECTED_ERROR' });
    expect(results.slice(1).map((result) => result.headers['content-type'])).toEqual([
      'text/plain',
      'text/plain',
      'text/plain',
    ]);
  });

  it('resets the connection without answering', async () => {
    sim.setFaults({ schedule: [{ kind: 'connectionReset' }] });

    const result = eventsGet(sim, token);

    await expect(result).rejects.toThrow();
    expect(sim.counters.faults.connectionReset).toBe(1);
    expect(sim.counters.byStatus).toEqual({});
    expect((await eventsGet(sim, token)).status).toBe(200);
  });

  it('closes the connection halfway through a body whose full length it declared', async () => {
    sim.setFaults({ schedule: [{ kind: 'truncatedBody' }] });

    const result = eventsGet(sim, token);

    await expect(result).rejects.toThrow();
    expect(sim.counters.faults.truncatedBody).toBe(1);
    expect(sim.counters.byStatus).toEqual({ '200': 1 });
  });

  it('answers a valid digest request 401 stale=true when forcing nonce expiry', async () => {
    const session = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
    sim.setFaults({ schedule: [{ kind: 'nonceExpired' }] });

    const expired = await session.get(`${sim.baseUrl}/api/atlas/v2/groups/${ids.project}/events`);
    const retried = await new DigestSession({
      username: keys.owner.publicKey,
      password: keys.owner.privateKey,
    }).get(`${sim.baseUrl}/api/atlas/v2/groups/${ids.project}/events`);

    expect(expired.status).toBe(401);
    expect(challengeOf(expired)).toContain('stale=true');
    expect(retried.status).toBe(200);
    expect(sim.counters.faults.nonceExpired).toBe(1);
  });

  it('injects faults only on the routes the plan names', async () => {
    sim.setFaults({ probabilities: { serviceUnavailable: 1 }, routes: ['GET /orgs/{orgId}/events'] });

    const project = await eventsGet(sim, token);
    const org = await eventsGet(sim, token, `/orgs/${ids.org}/events`);

    expect([project.status, org.status]).toEqual([200, 503]);
  });

  it('can fail the token endpoint', async () => {
    sim.setFaults({ schedule: [{ kind: 'serviceUnavailable' }], routes: ['POST /api/oauth/token'] });

    const failed = await tokenRequest(sim);
    const next = await tokenRequest(sim);

    expect([failed.status, failed.text]).toEqual([503, 'no healthy upstream']);
    expect(next.status).toBe(200);
  });

  it('stops injecting once setFaults() is called without a plan', async () => {
    sim.setFaults({ probabilities: { internalServerError: 1 } });
    const failing = await statuses(sim, token, 2);
    sim.setFaults();

    const healthy = await statuses(sim, token, 2);

    expect(failing).toEqual([500, 500]);
    expect(healthy).toEqual([200, 200]);
  });

  it.each<[string, FaultPlan]>([
    ['probabilities adding up to more than 1', { probabilities: { rateLimited: 0.6, badGateway: 0.6 } }],
    ['an unknown fault kind', { schedule: [{ kind: 'meteorStrike' as 'latency' }] }],
    ['a route without a method', { routes: ['/groups/{groupId}/events'] }],
    ['a latency range upside down', { latencyMs: { min: 10, max: 1 } }],
  ])('refuses a plan with %s', (_name, plan) => {
    const act = (): void => {
      sim.setFaults(plan);
    };

    expect(act).toThrow(SimulatorOptionsError);
  });
});

describe('simulator latency faults', () => {
  it('delays the answer on the simulator clock', async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({
      seed: testSeed(),
      clock,
      faults: { schedule: [{ kind: 'latency' }], latencyMs: 5_000, routes: [EVENTS_ROUTE] },
    });
    try {
      const token = await tokenFor(sim);
      let settled = false;

      const pending = eventsGet(sim, token).then((result) => {
        settled = true;
        return result;
      });
      while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const settledBeforeAdvance = settled;
      clock.advance(5_000);

      expect(settledBeforeAdvance).toBe(false);
      expect((await pending).status).toBe(200);
      expect(sim.counters.faults.latency).toBe(1);
    } finally {
      await sim.stop();
    }
  });

  it('sends Retry-After as an HTTP date when asked', async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({
      seed: testSeed(),
      clock,
      faults: {
        schedule: [{ kind: 'rateLimited' }],
        retryAfterSeconds: 30,
        retryAfterFormat: 'http-date',
        routes: [EVENTS_ROUTE],
      },
    });
    try {
      const token = await tokenFor(sim);

      const result = await eventsGet(sim, token);

      expect(result.headers['retry-after']).toBe(new Date(clock.now() + 30_000).toUTCString());
    } finally {
      await sim.stop();
    }
  });
});
