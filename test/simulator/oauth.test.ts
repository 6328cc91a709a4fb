import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { challengeOf, type HttpResult, send, V2_ACCEPT } from './support/digest-client.js';
import { ManualClock } from './support/manual-clock.js';
import { ids, serviceAccount, testSeed } from './support/test-seed.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

async function requestToken(
  sim: AtlasSimulator,
  secret: string = serviceAccount.clientSecret,
  body = 'grant_type=client_credentials',
): Promise<HttpResult> {
  return send(`${sim.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { ...FORM, authorization: basic(serviceAccount.clientId, secret) },
    body,
  });
}

async function bearerGet(sim: AtlasSimulator, token: string, path: string): Promise<HttpResult> {
  return send(`${sim.baseUrl}/api/atlas/v2${path}`, {
    headers: { ...V2_ACCEPT, authorization: `Bearer ${token}` },
  });
}

describe('simulator OAuth service accounts', () => {
  let sim: AtlasSimulator;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock();
    sim = await startSimulator({ seed: testSeed(), clock, tokenTtlSeconds: 3_600 });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('exposes the first service account of the seed', () => {
    const account = sim.serviceAccount;

    expect(account).toEqual(serviceAccount);
  });

  it('issues a bearer token for client credentials sent with Basic auth', async () => {
    const result = await requestToken(sim);

    expect(result.status).toBe(200);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(result.text)).toEqual({
      access_token: expect.any(String),
      expires_in: 3600,
      token_type: 'Bearer',
    });
  });

  it('serves API requests carrying the token, within the account roles', async () => {
    const token = (JSON.parse((await requestToken(sim)).text) as { access_token: string }).access_token;

    const own = await bearerGet(sim, token, `/groups/${ids.project}/events`);
    const other = await bearerGet(sim, token, `/orgs/${ids.otherOrg}/events`);

    expect(own.status).toBe(200);
    expect(other.status).toBe(403);
  });

  it('refuses a wrong client secret with invalid_client and counts the failure', async () => {
    const before = sim.counters.authFailures;

    const result = await requestToken(sim, 'fake-wrong-client-secret');

    expect(result.status).toBe(401);
    expect(JSON.parse(result.text)).toMatchObject({ error: 'invalid_client' });
    expect(sim.counters.authFailures).toBe(before + 1);
  });

  it('refuses another grant type and a missing one', async () => {
    const other = await requestToken(sim, serviceAccount.clientSecret, 'grant_type=password');
    const missing = await requestToken(sim, serviceAccount.clientSecret, '');

    expect([other.status, JSON.parse(other.text).error]).toEqual([400, 'unsupported_grant_type']);
    expect([missing.status, JSON.parse(missing.text).error]).toEqual([400, 'invalid_request']);
  });

  it('answers an unknown token with 401 and the digest challenge', async () => {
    const result = await bearerGet(sim, 'not-a-token', `/groups/${ids.project}/events`);

    expect(result.status).toBe(401);
    expect(challengeOf(result)).toMatch(/^Digest realm="MMS Public API"/);
  });

  it('refuses a token once it has expired on the clock', async () => {
    const token = (JSON.parse((await requestToken(sim)).text) as { access_token: string }).access_token;
    const fresh = await bearerGet(sim, token, `/groups/${ids.project}/events`);
    clock.advance(3_600_000);

    const expired = await bearerGet(sim, token, `/groups/${ids.project}/events`);

    expect(fresh.status).toBe(200);
    expect(expired.status).toBe(401);
  });

  it('refuses every token after revokeTokens()', async () => {
    const token = (JSON.parse((await requestToken(sim)).text) as { access_token: string }).access_token;
    sim.revokeTokens();

    const result = await bearerGet(sim, token, `/groups/${ids.project}/events`);

    expect(result.status).toBe(401);
  });

  it('counts the tokens it issues', async () => {
    const before = sim.counters.tokensIssued;

    await requestToken(sim);
    await requestToken(sim);

    expect(sim.counters.tokensIssued).toBe(before + 2);
    expect(sim.counters.byPath['POST /api/oauth/token']).toBeGreaterThanOrEqual(2);
  });
});
