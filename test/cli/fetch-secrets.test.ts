import { afterAll, describe, expect, it } from 'vitest';
import {
  atlasErrorBody,
  type DigestServer,
  type DigestServerOptions,
  listPage,
  type RecordedRequest,
  type Reply,
  startDigestServer,
} from '../support/digest-server.js';
import { type CliResult, runCli } from './cli-runner.js';

const ORG = '5f4e3d2c1b0a998877665544';
const PUBLIC_KEY = 'test-public-key';
const PRIVATE_KEY = 'fake-private-key-for-cli-tests';
const CLIENT_ID = 'mdb_sa_id_fake-cli-client';
const CLIENT_SECRET = 'fake+cli/secret%for:tests';
const DIGEST_ENV = { MONGODB_ATLAS_PUBLIC_API_KEY: PUBLIC_KEY, MONGODB_ATLAS_PRIVATE_API_KEY: PRIVATE_KEY };
const SERVICE_ENV = { MONGODB_ATLAS_CLIENT_ID: CLIENT_ID, MONGODB_ATLAS_CLIENT_SECRET: CLIENT_SECRET };

const servers: DigestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(options: DigestServerOptions): Promise<DigestServer> {
  const server = await startDigestServer({ username: PUBLIC_KEY, password: PRIVATE_KEY, ...options });
  servers.push(server);
  return server;
}

/** A failure whose detail repeats the secret and the request's Authorization header, as a careless proxy might. */
function echo(status: number, secret: string): (request: RecordedRequest) => Reply {
  return (request) => ({
    status,
    body: atlasErrorBody(
      status,
      'ECHO',
      `${secret} ${encodeURIComponent(secret)} ${request.headers.authorization ?? ''}`,
    ),
  });
}

function assertNoSecret(result: CliResult, tokens: readonly string[] = []): void {
  const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`, 'utf8').toString('base64');
  const output = `${result.stdout}\n${result.stderr}`;
  for (const secret of [PRIVATE_KEY, CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), basic, ...tokens]) {
    expect(output).not.toContain(secret);
  }
}

describe.concurrent('atlas-audit-alerts fetch secrets', () => {
  it('keeps the private key out of the output when Atlas echoes it in an error', async () => {
    const server = await serve({ route: echo(403, PRIVATE_KEY) });

    const result = await runCli(['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl], DIGEST_ENV);

    expect(result.status).toBe(3);
    expect(result.stderr).toContain('[REDACTED]');
    assertNoSecret(result);
  });

  it('keeps the private key out of the output when Atlas serves it in full in the API key list', async () => {
    const server = await serve({
      route: () => ({
        body: listPage([{ id: 'k1', publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY }], { self: '' }),
      }),
    });

    const result = await runCli(
      ['fetch', 'api-keys', '--org', ORG, '--base-url', server.baseUrl],
      DIGEST_ENV,
    );

    expect(result.status).toBe(0);
    // The client scrubs its own key from the answer before the listing masks what is left.
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'k1', privateKey: '********' });
    assertNoSecret(result);
  });

  it('keeps the client secret out of the output when the token endpoint refuses it', async () => {
    const server = await serve({
      auth: 'oauth',
      oauth: { clientId: CLIENT_ID, clientSecret: 'fake-other-secret' },
    });

    const result = await runCli(['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl], SERVICE_ENV);

    expect(result.status).toBe(3);
    assertNoSecret(result);
  });

  it('keeps the client secret and the token out of the output when Atlas echoes them on every attempt', async () => {
    const server = await serve({
      auth: 'oauth',
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      route: echo(500, CLIENT_SECRET),
    });

    const result = await runCli(
      ['fetch', 'events', '--org', ORG, '--base-url', server.baseUrl, '--max-attempts', '2'],
      SERVICE_ENV,
    );

    expect(result.status).toBe(5);
    expect(server.tokensIssued()).toHaveLength(1);
    assertNoSecret(result, server.tokensIssued());
  });
});
