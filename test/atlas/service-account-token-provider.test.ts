import { describe, expect, it } from 'vitest';
import { AtlasResponseError } from '../../shared/atlas/errors.js';
import type { HttpResponse } from '../../shared/atlas/http-exchange.js';
import {
  ServiceAccountTokenProvider,
  type TokenRequest,
} from '../../shared/atlas/service-account-token-provider.js';
import { ManualClock } from './manual-clock.js';

const CLIENT_ID = 'mdb_sa_id_fake-client-id';
const CLIENT_SECRET = 'fake+client/secret%for:tests';

describe('ServiceAccountTokenProvider', () => {
  const ok = (body: unknown): HttpResponse => ({ status: 200, headers: {}, body: JSON.stringify(body) });

  function provider(send: (request: TokenRequest) => Promise<HttpResponse>, clock = new ManualClock()) {
    return new ServiceAccountTokenProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      send,
      errorFor: (response) => new Error(`status ${response.status}`),
      clock,
    });
  }

  it('asks for a token with client credentials as Basic, id and secret not URL-encoded', async () => {
    const requests: TokenRequest[] = [];
    const tokens = provider(async (request) => {
      requests.push(request);
      return ok({ access_token: 'test-token-a', expires_in: 3600 });
    });

    await tokens.getToken();

    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`, 'utf8').toString('base64');
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/api/oauth/token',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
    ]);
  });

  it('sends one request for callers that ask while it is in flight', async () => {
    let release: (response: HttpResponse) => void = () => {};
    let sent = 0;
    const tokens = provider(() => {
      sent += 1;
      return new Promise((resolve) => {
        release = resolve;
      });
    });

    const pending = [tokens.getToken(), tokens.getToken(), tokens.getToken()];
    release(ok({ access_token: 'test-token-a', expires_in: 3600 }));

    expect(await Promise.all(pending)).toEqual(['test-token-a', 'test-token-a', 'test-token-a']);
    expect(sent).toBe(1);
  });

  it('ignores invalidation of a token it no longer holds', async () => {
    const issued = ['test-token-a', 'test-token-b', 'test-token-c'];
    const tokens = provider(async () => ok({ access_token: issued.shift(), expires_in: 3600 }));
    const first = await tokens.getToken();
    tokens.invalidate(first);
    const second = await tokens.getToken();

    tokens.invalidate(first);
    const third = await tokens.getToken();

    expect([first, second, third]).toEqual(['test-token-a', 'test-token-b', 'test-token-b']);
  });

  it('renews a short-lived token a tenth of its life before expiry', async () => {
    const clock = new ManualClock();
    const issued = ['test-token-a', 'test-token-b'];
    const tokens = provider(async () => ok({ access_token: issued.shift(), expires_in: 100 }), clock);
    await tokens.getToken();

    clock.advance(89_000);
    const beforeMargin = await tokens.getToken();
    clock.advance(1_000);
    const atMargin = await tokens.getToken();

    expect([beforeMargin, atMargin]).toEqual(['test-token-a', 'test-token-b']);
  });

  it.each([
    ['no access_token', { expires_in: 3600 }],
    ['no expires_in', { access_token: 'test-token-a' }],
    ['a zero lifetime', { access_token: 'test-token-a', expires_in: 0 }],
  ])('throws AtlasResponseError for an answer with %s', async (_label, body) => {
    const tokens = provider(async () => ok(body));

    await expect(tokens.getToken()).rejects.toThrow(AtlasResponseError);
  });

  it('lets a caller abort its wait while the request carries on for others', async () => {
    let release: (response: HttpResponse) => void = () => {};
    const tokens = provider(
      () =>
        new Promise((resolve) => {
          release = resolve;
        }),
    );
    const controller = new AbortController();

    const aborted = tokens.getToken(controller.signal);
    const other = tokens.getToken();
    controller.abort(new Error('caller gave up'));
    release(ok({ access_token: 'test-token-a', expires_in: 3600 }));

    await expect(aborted).rejects.toThrow('caller gave up');
    await expect(other).resolves.toBe('test-token-a');
  });
});
