import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import type { AtlasClientOptions } from '../../shared/atlas/client-options.js';
import {
  AtlasAuthError,
  AtlasConfigError,
  AtlasError,
  AtlasForbiddenError,
  AtlasInsecureUrlError,
  AtlasNotFoundError,
  AtlasRequestError,
  AtlasResponseError,
  AtlasVersionError,
} from '../../shared/atlas/errors.js';
import { atlasErrorBody, type Reply } from '../support/digest-server.js';
import { type ClientHarness, PRIVATE_KEY, PUBLIC_KEY, startClientHarness } from './client-harness.js';

const ORG = '5f4e3d2c1b0a998877665544';
const EVENTS_PATH = `/api/public/v1.0/orgs/${ORG}/events`;

const harnesses: ClientHarness[] = [];

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close();
  }
});

async function failWith(
  reply: Reply,
  password = PRIVATE_KEY,
): Promise<{ error: unknown; harness: ClientHarness }> {
  const harness = await startClientHarness({ server: { route: () => reply }, client: {} });
  harnesses.push(harness);
  const client =
    password === PRIVATE_KEY
      ? harness.client
      : new AtlasClient({
          baseUrl: harness.server.baseUrl,
          flavor: 'ops-manager',
          credentials: { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: password },
        });
  const error = await client
    .listOrgEvents(ORG, { eventTypes: ['API_KEY_CREATED'] })
    .toArray()
    .catch((caught: unknown) => caught);
  if (client !== harness.client) {
    await client.close();
  }
  return { error, harness };
}

describe('AtlasClient errors', () => {
  it('turns 403 IP_ADDRESS_NOT_ON_ACCESS_LIST into AtlasForbiddenError that says to fix the access list', async () => {
    const { error, harness } = await failWith({
      status: 403,
      body: atlasErrorBody(
        403,
        'IP_ADDRESS_NOT_ON_ACCESS_LIST',
        'IP address 203.0.113.9 is not allowed to access this resource.',
      ),
    });

    expect(error).toBeInstanceOf(AtlasForbiddenError);
    expect(error).toMatchObject({
      code: 'ATLAS_FORBIDDEN',
      status: 403,
      errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
      method: 'GET',
      path: EVENTS_PATH,
      retryable: false,
    });
    expect((error as Error).message).toBe(
      `Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST for GET ${EVENTS_PATH} (IP address 203.0.113.9 is not allowed to access this resource.): add this host's egress IP to the API key's access list`,
    );
    expect(harness.client.stats.retries).toBe(0);
  });

  it('names the roles needed for a 403 without an access-list code', async () => {
    const { error } = await failWith({ status: 403, body: atlasErrorBody(403, 'USER_UNAUTHORIZED', 'No.') });

    expect((error as Error).message).toMatch(/give the API key a role .* Organization Member for org events/);
  });

  it('turns 404 into AtlasNotFoundError', async () => {
    const { error } = await failWith({ status: 404, body: atlasErrorBody(404, 'ORG_NOT_FOUND', 'No org.') });

    expect(error).toBeInstanceOf(AtlasNotFoundError);
    expect(error).toMatchObject({ code: 'ATLAS_NOT_FOUND', status: 404, errorCode: 'ORG_NOT_FOUND' });
  });

  it('turns 406 into AtlasVersionError that names the flavours', async () => {
    const { error } = await failWith({
      status: 406,
      body: atlasErrorBody(406, 'INVALID_VERSION', 'No version.'),
    });

    expect(error).toBeInstanceOf(AtlasVersionError);
    expect((error as Error).message).toMatch(
      /use ops-manager for Ops Manager and Cloud Manager, atlas-v2 for Atlas$/,
    );
  });

  it('turns 410 VERSION_GONE into AtlasVersionError that says to upgrade', async () => {
    const { error } = await failWith({ status: 410, body: atlasErrorBody(410, 'VERSION_GONE', 'Gone.') });

    expect(error).toBeInstanceOf(AtlasVersionError);
    expect(error).toMatchObject({ status: 410, errorCode: 'VERSION_GONE' });
    expect((error as Error).message).toMatch(/retired; upgrade atlas-audit-alerts$/);
  });

  it('turns 400 into AtlasRequestError with the status', async () => {
    const { error } = await failWith({
      status: 400,
      body: atlasErrorBody(400, 'INVALID_QUERY_PARAMETER', 'Bad.'),
    });

    expect(error).toBeInstanceOf(AtlasRequestError);
    expect(error).toMatchObject({ status: 400, errorCode: 'INVALID_QUERY_PARAMETER' });
  });

  it('turns a redirect into AtlasResponseError naming where it leads', async () => {
    const { error } = await failWith({
      status: 302,
      headers: { location: 'https://login.example.com/sso?x=1' },
      body: '',
    });

    expect(error).toBeInstanceOf(AtlasResponseError);
    expect((error as Error).message).toMatch(/redirects to https:\/\/login\.example\.com; set the base URL/);
  });

  it('turns a 401 to fresh credentials into AtlasAuthError after exactly two requests', async () => {
    const { error, harness } = await failWith({ body: {} }, 'fake-wrong-private-key');

    expect(error).toBeInstanceOf(AtlasAuthError);
    expect(error).toMatchObject({ code: 'ATLAS_AUTH', status: 401, path: EVENTS_PATH });
    expect((error as Error).message).toMatch(
      /public or private key is wrong, or the key was deleted; check both$/,
    );
    expect(harness.server.requests).toHaveLength(2);
  });

  it('says so when a 401 offers no Digest challenge it can answer', async () => {
    const { error } = await failWith({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="atlas"' },
      body: atlasErrorBody(401, 'UNAUTHORIZED', 'No.'),
    });

    expect(error).toBeInstanceOf(AtlasAuthError);
    expect((error as Error).message).toMatch(
      /offered no Digest challenge this client can answer \(offered: Bearer\)/,
    );
  });

  it('gives every error class a name, a stable code and the AtlasError base', async () => {
    const { error } = await failWith({ status: 404, body: '' });

    expect(error).toBeInstanceOf(AtlasError);
    expect((error as AtlasError).name).toBe('AtlasNotFoundError');
    expect(new AtlasInsecureUrlError('x')).toMatchObject({
      name: 'AtlasInsecureUrlError',
      code: 'ATLAS_INSECURE_URL',
    });
    expect(new AtlasInsecureUrlError('x')).toBeInstanceOf(AtlasConfigError);
  });
});

describe('AtlasClient options', () => {
  const digest = { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY } as const;
  const make = (options: Partial<AtlasClientOptions>): AtlasClient =>
    new AtlasClient({ credentials: digest, ...options });

  it('refuses plain http to a host that is not loopback', () => {
    expect(() => make({ baseUrl: 'http://opsmanager.example.com:8080' })).toThrow(AtlasInsecureUrlError);
  });

  it.each([
    'http://127.0.0.1:8080',
    'http://localhost:8080',
    'http://[::1]:8080',
    'https://cloud.mongodb.com',
  ])('accepts %s', async (baseUrl) => {
    const client = make({ baseUrl });

    await client.close();

    expect(client.stats.requests).toBe(0);
  });

  it('accepts plain http to any host when allowInsecureHttp is set', async () => {
    const client = make({ baseUrl: 'http://opsmanager.example.com:8080', allowInsecureHttp: true });

    await client.close();

    expect(client.stats.requests).toBe(0);
  });

  it('refuses a base URL holding credentials without repeating them', () => {
    const attempt = (): AtlasClient => make({ baseUrl: 'https://user:fake-secret-in-url@cloud.mongodb.com' });

    expect(attempt).toThrow(AtlasConfigError);
    expect(attempt).not.toThrow(/fake-secret-in-url/);
  });

  it.each([
    ['a base URL that is not a URL', { baseUrl: 'cloud.mongodb.com' }],
    ['a base URL with a query', { baseUrl: 'https://cloud.mongodb.com/?a=1' }],
    ['an ftp base URL', { baseUrl: 'ftp://cloud.mongodb.com' }],
    ['an unknown flavour', { flavor: 'atlas-v3' as never }],
    ['zero attempts', { retry: { maxAttempts: 0 } }],
    ['a negative deadline', { retry: { deadlineMs: -1 } }],
    ['zero connections', { connections: 0 }],
    [
      'an empty private key',
      { credentials: { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: '' } as const },
    ],
  ])('refuses %s with AtlasConfigError', (_label, options) => {
    expect(() => make(options)).toThrow(AtlasConfigError);
  });
});
