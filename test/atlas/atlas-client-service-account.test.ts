import { afterEach, describe, expect, it } from 'vitest';
import { AtlasAuthError } from '../../shared/atlas/errors.js';
import { listPage } from '../support/digest-server.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type ClientHarness,
  type HarnessOptions,
  startClientHarness,
} from './client-harness.js';

const ORG = '5f4e3d2c1b0a998877665544';

const harnesses: ClientHarness[] = [];

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close();
  }
});

async function serviceAccount(options: HarnessOptions = {}): Promise<ClientHarness> {
  const harness = await startClientHarness({
    serviceAccount: true,
    ...options,
    server: { route: () => ({ body: listPage([], { self: '' }) }), ...options.server },
  });
  harnesses.push(harness);
  return harness;
}

const tokenRequests = (harness: ClientHarness) =>
  harness.server.requests.filter((request) => request.url.pathname === '/api/oauth/token');

describe('AtlasClient with a service account', () => {
  it('fetches one token and reuses it for later calls', async () => {
    const harness = await serviceAccount();

    for (let call = 0; call < 3; call += 1) {
      await harness.client.listOrgEvents(ORG).toArray();
    }

    expect(tokenRequests(harness)).toHaveLength(1);
    expect(harness.client.stats).toMatchObject({ tokenFetches: 1, requests: 4 });
    expect(harness.server.requests.at(-1)?.headers.authorization).toBe('Bearer test-access-token-1');
  });

  it('sends the id and secret as Basic credentials without URL-encoding them', async () => {
    const harness = await serviceAccount();

    await harness.client.listOrgEvents(ORG).toArray();

    const [request] = tokenRequests(harness);
    const encoded = /^Basic (.+)$/.exec(request?.headers.authorization ?? '')?.[1] ?? '';
    expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(`${CLIENT_ID}:${CLIENT_SECRET}`);
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe('grant_type=client_credentials');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('lets concurrent first calls share one token request', async () => {
    const harness = await serviceAccount();

    await Promise.all([1, 2, 3].map(() => harness.client.listOrgEvents(ORG).toArray()));

    expect(tokenRequests(harness)).toHaveLength(1);
  });

  it('fetches a fresh token and retries once when Atlas refuses the cached one', async () => {
    const harness = await serviceAccount();
    await harness.client.listOrgEvents(ORG).toArray();
    harness.server.revokeTokens();

    await harness.client.listOrgEvents(ORG).toArray();

    expect(tokenRequests(harness)).toHaveLength(2);
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200, 401, 200, 200]);
    expect(harness.client.stats.retries).toBe(1);
  });

  it('throws AtlasAuthError when the fresh token is refused too', async () => {
    const harness = await serviceAccount({ server: { route: () => ({ status: 401, body: {} }) } });

    const error = await harness.client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasAuthError);
    expect((error as Error).message).toMatch(/refused even after a fresh one/);
    expect(tokenRequests(harness)).toHaveLength(2);
  });

  it('renews the token shortly before it expires, not before', async () => {
    const harness = await serviceAccount();
    await harness.client.listOrgEvents(ORG).toArray();

    harness.clock.advance(3_000_000);
    await harness.client.listOrgEvents(ORG).toArray();
    harness.clock.advance(600_000 - 30_000);
    await harness.client.listOrgEvents(ORG).toArray();

    expect(tokenRequests(harness)).toHaveLength(2);
  });

  it('throws AtlasAuthError naming the OAuth error when the secret is refused, without retrying', async () => {
    const harness = await serviceAccount({
      server: { oauth: { clientId: CLIENT_ID, clientSecret: 'fake-other-secret' } },
    });

    const error = await harness.client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AtlasAuthError);
    expect(error).toMatchObject({ status: 401, errorCode: 'invalid_client', path: '/api/oauth/token' });
    expect(tokenRequests(harness)).toHaveLength(1);
  });
});
