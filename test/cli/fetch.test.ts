import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerFetchCommand } from '../../cli/commands/fetch.js';
import { exitCodeFor } from '../../cli/exit-codes.js';
import {
  atlasErrorBody,
  type DigestServer,
  type DigestServerOptions,
  listPage,
  type RecordedRequest,
  startDigestServer,
} from '../support/digest-server.js';

const ORG = '5f4e3d2c1b0a998877665544';
const GROUP = '6a5b4c3d2e1f009988776655';
const PUBLIC_KEY = 'test-public-key';
const PRIVATE_KEY = 'fake-private-key-for-tests';
const DIGEST_ENV = { MONGODB_ATLAS_PUBLIC_API_KEY: PUBLIC_KEY, MONGODB_ATLAS_PRIVATE_API_KEY: PRIVATE_KEY };

/** A stream that keeps what is written, and says it is a terminal or not. */
class CapturedStream extends Writable {
  text = '';
  readonly isTTY: boolean;

  constructor(isTTY = false) {
    super();
    this.isTTY = isTTY;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

interface FetchRun {
  code: number;
  stdout: string;
  stderr: string;
  message: string;
}

/**
 * Runs `fetch ...` in this process, as `main` does: the exit code comes from the same `exitCodeFor`,
 * a commander parse error is a usage error.
 */
async function runFetch(
  args: readonly string[],
  env: Record<string, string>,
  tty = false,
): Promise<FetchRun> {
  const stdout = new CapturedStream();
  const stderr = new CapturedStream(tty);
  let commanderOutput = '';
  const program = new Command('atlas-audit-alerts').exitOverride().configureOutput({
    writeOut: (text) => {
      commanderOutput += text;
    },
    writeErr: (text) => {
      commanderOutput += text;
    },
  });
  registerFetchCommand(program, { stdout, stderr, env });
  try {
    await program.parseAsync(['fetch', ...args], { from: 'user' });
    return { code: 0, stdout: stdout.text, stderr: stderr.text, message: '' };
  } catch (error) {
    const code = error instanceof CommanderError ? 2 : exitCodeFor(error);
    const message = error instanceof CommanderError ? commanderOutput : String((error as Error).message);
    return { code, stdout: stdout.text, stderr: stderr.text, message };
  }
}

const servers: DigestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function server(options: DigestServerOptions): Promise<DigestServer> {
  const started = await startDigestServer({ username: PUBLIC_KEY, password: PRIVATE_KEY, ...options });
  servers.push(started);
  return started;
}

function atlasFlags(target: DigestServer): string[] {
  return ['--base-url', target.baseUrl, '--flavor', 'ops-manager'];
}

/** Two pages of events: the first links to the second, and totalCount understates both. */
function twoPages(origin: () => string) {
  return (request: RecordedRequest) => {
    const second = request.url.searchParams.get('pageNum') === '2';
    const results = second ? [{ id: 'e3' }] : [{ id: 'e1' }, { id: 'e2' }];
    return {
      body: listPage(results, {
        self: request.target,
        ...(second
          ? {}
          : { next: `${origin()}${request.url.pathname}?${request.url.searchParams}&pageNum=2` }),
        totalCount: 1,
      }),
    };
  };
}

describe('fetch events', () => {
  it('prints every event of every page as JSON Lines and sends the filters', async () => {
    let origin = '';
    const target = await server({ route: twoPages(() => origin) });
    origin = target.baseUrl;

    const result = await runFetch(
      [
        'events',
        '--org',
        ORG,
        '--since',
        '2024-05-01T02:00:00+02:00',
        '--until',
        '2024-05-02',
        '--type',
        'API_KEY_CREATED',
        '--type',
        'JOINED_GROUP,GROUP_DELETED',
        '--include-raw',
        ...atlasFlags(target),
      ],
      DIGEST_ENV,
    );

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('{"id":"e1"}\n{"id":"e2"}\n{"id":"e3"}\n');
    const query = target.requests.find((request) => request.status === 200)?.url.searchParams;
    expect(query?.getAll('eventType')).toEqual(['API_KEY_CREATED', 'JOINED_GROUP', 'GROUP_DELETED']);
    expect(query?.get('minDate')).toBe('2024-05-01T00:00:00Z');
    expect(query?.get('maxDate')).toBe('2024-05-02T00:00:00Z');
    expect(query?.get('includeRaw')).toBe('true');
  });

  it('shows pages and events on stderr when stderr is a terminal', async () => {
    let origin = '';
    const target = await server({ route: twoPages(() => origin) });
    origin = target.baseUrl;

    const result = await runFetch(['events', '--org', ORG, ...atlasFlags(target)], DIGEST_ENV, true);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1 page, 2 events');
    expect(result.stderr.endsWith('2 pages, 3 events\n')).toBe(true);
    expect(result.stdout.split('\n')).toHaveLength(4);
  });

  it('tells a terminal why it is waiting when Atlas rate limits', async () => {
    let calls = 0;
    const target = await server({
      route: () => {
        calls += 1;
        return calls === 1
          ? {
              status: 429,
              headers: { 'retry-after': '0' },
              body: atlasErrorBody(429, 'RATE_LIMITED', 'Slow down.'),
            }
          : { body: listPage([], { self: '' }) };
      },
    });

    const result = await runFetch(['events', '--org', ORG, ...atlasFlags(target)], DIGEST_ENV, true);

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Atlas request failed; retrying \(429\); waiting \d+\.\d s\n/);
  });

  it('reads project events with a service account', async () => {
    const target = await server({
      auth: 'oauth',
      oauth: { clientId: 'mdb_sa_id_fake', clientSecret: 'fake-client-secret-for-tests' },
      route: (request) => ({ body: listPage([{ id: 'e1', path: request.url.pathname }], { self: '' }) }),
    });

    const result = await runFetch(['events', '--project', GROUP, ...atlasFlags(target)], {
      MONGODB_ATLAS_CLIENT_ID: 'mdb_sa_id_fake',
      MONGODB_ATLAS_CLIENT_SECRET: 'fake-client-secret-for-tests',
    });

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 'e1', path: `/api/public/v1.0/groups/${GROUP}/events` });
  });
});

describe('fetch api-keys and access-list', () => {
  it('prints API keys with their private keys masked', async () => {
    const target = await server({
      route: () => ({
        body: listPage([{ id: 'k1', publicKey: 'abcdefgh', privateKey: 'fake-private-key-served-in-full' }], {
          self: '',
        }),
      }),
    });

    const result = await runFetch(['api-keys', '--org', ORG, ...atlasFlags(target)], DIGEST_ENV);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      id: 'k1',
      publicKey: 'abcdefgh',
      privateKey: '********full',
    });
    expect(target.requests.at(-1)?.url.pathname).toBe(`/api/public/v1.0/orgs/${ORG}/apiKeys`);
  });

  it("prints an API key's access list", async () => {
    const target = await server({
      route: () => ({
        body: listPage([{ cidrBlock: '0.0.0.0/0' }, { ipAddress: '203.0.113.7' }], { self: '' }),
      }),
    });

    const result = await runFetch(
      ['access-list', '--org', ORG, '--key', 'key-1', ...atlasFlags(target)],
      DIGEST_ENV,
    );

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"cidrBlock":"0.0.0.0/0"}\n{"ipAddress":"203.0.113.7"}\n');
    expect(target.requests.at(-1)?.url.pathname).toBe(
      `/api/public/v1.0/orgs/${ORG}/apiKeys/key-1/accessList`,
    );
  });
});

describe('fetch against a server that trickles its answers', () => {
  it('gives up at its --timeout with the network exit code and says what to do', async () => {
    // Prepare: headers at once, then one byte every 100 ms, forever.
    const trickle = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => response.write(' '), 100);
      response.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}`;

    // Act
    const result = await runFetch(
      ['events', '--org', ORG, '--timeout', '2s', '--base-url', baseUrl, '--flavor', 'ops-manager'],
      DIGEST_ENV,
    ).finally(() => {
      trickle.closeAllConnections();
      trickle.close();
    });

    // Assess
    expect(result.code).toBe(5);
    expect(result.message).toContain('gave up after 2s (--timeout): Atlas answered too slowly');
    expect(result.stdout).toBe('');
  }, 30_000);
});

describe('fetch exit codes', () => {
  it.each([
    [
      'a wrong private key',
      3,
      { route: () => ({ body: listPage([], { self: '' }) }), password: 'fake-other-key' },
    ],
    [
      '403 IP_ADDRESS_NOT_ON_ACCESS_LIST',
      3,
      { route: () => ({ status: 403, body: atlasErrorBody(403, 'IP_ADDRESS_NOT_ON_ACCESS_LIST', 'No.') }) },
    ],
    ['404', 4, { route: () => ({ status: 404, body: atlasErrorBody(404, 'ORG_NOT_FOUND', 'No org.') }) }],
    [
      '429 on every attempt',
      5,
      { route: () => ({ status: 429, headers: { 'retry-after': '0' }, body: '' }) },
    ],
    ['503 on every attempt', 5, { route: () => ({ status: 503, body: '' }) }],
    ['a connection reset on every attempt', 5, { route: () => ({ kind: 'reset' as const }) }],
    ['a 406 from the wrong flavour', 1, { route: () => ({ status: 406, body: '' }) }],
  ] as const)('exits with the code for %s', async (_label, code, options) => {
    const target = await server(options);

    const result = await runFetch(
      ['events', '--org', ORG, '--max-attempts', '2', ...atlasFlags(target)],
      DIGEST_ENV,
    );

    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.message).not.toContain('\n');
  });

  it('reads --since and --until as durations back from now, as rules replay and backfill do', async () => {
    let origin = '';
    const target = await server({ route: twoPages(() => origin) });
    origin = target.baseUrl;
    const before = Date.now();

    const result = await runFetch(
      ['events', '--org', ORG, '--since', '7d', '--until', '1h', ...atlasFlags(target)],
      DIGEST_ENV,
    );

    const after = Date.now();
    expect(result.code, result.stderr).toBe(0);
    const query = target.requests.find((request) => request.status === 200)?.url.searchParams;
    const minDate = Date.parse(query?.get('minDate') ?? '');
    const maxDate = Date.parse(query?.get('maxDate') ?? '');
    const week = 7 * 86_400_000;
    expect(minDate).toBeGreaterThanOrEqual(Math.floor((before - week) / 1000) * 1000);
    expect(minDate).toBeLessThanOrEqual(after - week);
    expect(maxDate).toBeGreaterThanOrEqual(Math.floor((before - 3_600_000) / 1000) * 1000);
    expect(maxDate).toBeLessThanOrEqual(after - 3_600_000);
  });

  it.each([
    ['neither --org nor --project', ['events'], DIGEST_ENV, /needs --project <id> or --org <id>/],
    [
      'an --org that is not an Atlas id',
      ['events', '--org', 'acme'],
      DIGEST_ENV,
      /"acme" is not an Atlas id/,
    ],
    [
      'a --since without a time zone',
      ['events', '--org', ORG, '--since', '2024-05-01T00:00:00'],
      DIGEST_ENV,
      /option '--since <when>' argument '2024-05-01T00:00:00' is invalid\. use a duration back from now \(7d, 12h, 1d12h\) or an ISO-8601 date or instant/,
    ],
    [
      'an unknown --flavor',
      ['events', '--org', ORG, '--flavor', 'atlas-v3'],
      DIGEST_ENV,
      /Allowed choices are/,
    ],
    ['--max-attempts 0', ['events', '--org', ORG, '--max-attempts', '0'], DIGEST_ENV, /from 1 to 20/],
    ['a missing --key', ['access-list', '--org', ORG], DIGEST_ENV, /required option '--key <id>'/],
    [
      'no credentials',
      ['events', '--org', ORG],
      {},
      /no Atlas credentials: set MONGODB_ATLAS_PUBLIC_API_KEY/,
    ],
    [
      'half an API key',
      ['api-keys', '--org', ORG],
      { MONGODB_ATLAS_PUBLIC_API_KEY: PUBLIC_KEY },
      /MONGODB_ATLAS_PRIVATE_API_KEY is not set/,
    ],
    [
      'half a service account',
      ['api-keys', '--org', ORG],
      { MONGODB_ATLAS_CLIENT_SECRET: 'fake-client-secret-for-tests' },
      /MONGODB_ATLAS_CLIENT_ID is not set/,
    ],
    [
      'both kinds of credentials',
      ['api-keys', '--org', ORG],
      {
        ...DIGEST_ENV,
        MONGODB_ATLAS_CLIENT_ID: 'id',
        MONGODB_ATLAS_CLIENT_SECRET: 'fake-client-secret-for-tests',
      },
      /both an API key .* and a service account .* are set: unset one pair/,
    ],
    [
      'plain http to a remote host',
      ['events', '--org', ORG, '--base-url', 'http://opsmanager.example.com'],
      DIGEST_ENV,
      /plain http to a host that is not loopback/,
    ],
    [
      'an id with a slash',
      ['access-list', '--org', ORG, '--key', '../x'],
      DIGEST_ENV,
      /apiKeyId "..\/x" is not an Atlas id/,
    ],
  ] as const)('exits 2 for %s', async (_label, args, env, message) => {
    const result = await runFetch(args, env);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.message).toMatch(message);
  });
});
