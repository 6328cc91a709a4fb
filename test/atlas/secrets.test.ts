import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import { atlasErrorBody, listPage, type RecordedRequest, type Reply } from '../support/digest-server.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type ClientHarness,
  type LogLine,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startClientHarness,
} from './client-harness.js';

const ORG = '5f4e3d2c1b0a998877665544';

const harnesses: ClientHarness[] = [];

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close();
  }
});

/** Every form a secret could leak in: as is, URL-encoded, and the Basic credential that carries it. */
function secretForms(issuedTokens: string[]): string[] {
  const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`, 'utf8').toString('base64');
  return [PRIVATE_KEY, CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), basic, ...issuedTokens];
}

/** Message, stack and own fields of an error and of every cause below it. */
function everythingSaidBy(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify({ ...current }));
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join('\n');
}

/**
 * A server that echoes the secret the client holds (every form of it) and the request's credentials
 * back in its error detail, as a careless proxy might.
 */
function echoingFailure(status: number, secret: string): (request: RecordedRequest) => Reply {
  return (request) => ({
    status,
    body: atlasErrorBody(
      status,
      'ECHO',
      `secret=${secret} encoded=${encodeURIComponent(secret)} authorization=${request.headers.authorization ?? ''}`,
    ),
  });
}

async function collect(harness: ClientHarness): Promise<unknown> {
  return harness.client
    .listOrgEvents(ORG)
    .toArray()
    .then(() => undefined)
    .catch((caught: unknown) => caught);
}

function assertNothingLeaks(said: string, logs: LogLine[], tokens: string[]): void {
  const text = `${said}\n${JSON.stringify(logs)}`;
  for (const secret of secretForms(tokens)) {
    expect(text).not.toContain(secret);
  }
}

describe('AtlasClient secrets', () => {
  it.each([400, 403, 404, 406, 429, 503])(
    'keeps an API key private key out of errors and logs when Atlas echoes it in a %i',
    async (status) => {
      const harness = await startClientHarness({
        server: { route: echoingFailure(status, PRIVATE_KEY) },
        client: { retry: { maxAttempts: 2 } },
      });
      harnesses.push(harness);

      const error = await collect(harness);

      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('secret=[REDACTED] encoded=[REDACTED]');
      assertNothingLeaks(everythingSaidBy(error), harness.logs, []);
    },
  );

  it.each([403, 401, 429])(
    'keeps the client secret and the access token out of errors and logs when Atlas echoes them in a %i',
    async (status) => {
      const harness = await startClientHarness({
        serviceAccount: true,
        server: { route: echoingFailure(status, CLIENT_SECRET) },
        client: { retry: { maxAttempts: 2 } },
      });
      harnesses.push(harness);

      const error = await collect(harness);

      const tokens = harness.server.tokensIssued();
      expect(tokens.length).toBeGreaterThan(0);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(
        'secret=[REDACTED] encoded=[REDACTED] authorization=Bearer [REDACTED]',
      );
      assertNothingLeaks(everythingSaidBy(error), harness.logs, tokens);
    },
  );

  it('keeps the private key out of the error for a wrong key pair', async () => {
    const harness = await startClientHarness({
      server: { route: () => ({ body: listPage([], { self: '' }) }) },
    });
    harnesses.push(harness);
    const client = new AtlasClient({
      baseUrl: harness.server.baseUrl,
      credentials: { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: 'fake-wrong-private-key' },
    });

    const error = await client
      .listOrgEvents(ORG)
      .toArray()
      .catch((caught: unknown) => caught)
      .finally(() => client.close());

    expect(everythingSaidBy(error)).not.toContain('fake-wrong-private-key');
  });

  it('keeps the client secret out of the error when the token endpoint refuses it', async () => {
    const harness = await startClientHarness({
      serviceAccount: true,
      server: { oauth: { clientId: CLIENT_ID, clientSecret: 'fake-other-secret' } },
    });
    harnesses.push(harness);

    const error = await collect(harness);

    expect(error).toBeInstanceOf(Error);
    assertNothingLeaks(everythingSaidBy(error), harness.logs, []);
  });

  it('keeps secrets out of the debug log of a successful walk', async () => {
    const harness = await startClientHarness({
      serviceAccount: true,
      server: { route: () => ({ body: listPage([{ id: 'e1' }], { self: '' }) }) },
    });
    harnesses.push(harness);

    await harness.client.listOrgEvents(ORG).toArray();

    expect(harness.logs.length).toBeGreaterThan(0);
    assertNothingLeaks('', harness.logs, harness.server.tokensIssued());
  });
});

describe('AtlasClient answers that carry its own secret', () => {
  it.each([
    ['as is', (secret: string) => JSON.stringify({ username: secret, note: `by ${secret}` })],
    [
      'spelt with \\u escapes',
      (secret: string) =>
        `{"username":"${[...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}","note":"x"}`,
    ],
  ])('scrubs the private key from the events it returns, written %s', async (_form, eventText) => {
    // Prepare: an event whose fields hold the poller's private key.
    const harness = await startClientHarness({
      server: {
        route: () => ({
          body: `{"links":[{"rel":"self","href":""}],"totalCount":1,"results":[${eventText(PRIVATE_KEY)}]}`,
        }),
      },
    });
    harnesses.push(harness);

    // Act
    const events = await harness.client.listOrgEvents(ORG).toArray();

    // Assess
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(PRIVATE_KEY);
    expect(events[0]?.username).toBe('[REDACTED]');
  });

  it('scrubs an issued access token and the client secret from the events it returns', async () => {
    // Prepare
    let echoed = '';
    const harness = await startClientHarness({
      serviceAccount: true,
      server: {
        route: (request) => {
          echoed = (request.headers.authorization ?? '').replace(/^Bearer /, '');
          return { body: listPage([{ id: 'e1', token: echoed, secret: CLIENT_SECRET }], { self: '' }) };
        },
      },
    });
    harnesses.push(harness);

    // Act
    const events = await harness.client.listOrgEvents(ORG).toArray();

    // Assess
    expect(echoed.length).toBeGreaterThan(10);
    expect(events[0]).toMatchObject({ token: '[REDACTED]', secret: '[REDACTED]' });
  });
});
