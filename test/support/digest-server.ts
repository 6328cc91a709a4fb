/**
 * A small Atlas-like HTTP server for client tests, on 127.0.0.1:0. It checks HTTP Digest (RFC 7616) or
 * OAuth bearer tokens with code of its own: nothing here comes from `shared/` or `simulator/`, so a bug
 * shared by the client and the simulator cannot hide. Routes are the test's: a function from the
 * request to a reply, called only once authentication has passed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type TestDigestAlgorithm =
  | 'MD5'
  | 'MD5-sess'
  | 'SHA-256'
  | 'SHA-256-sess'
  | 'SHA-512-256'
  | 'SHA-512-256-sess';

/** A request as the server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
  /** The Digest parameters of the `Authorization` header, when it had any. */
  digest?: Record<string, string>;
  /** The status the server answered with. */
  status?: number;
}

/** What a route answers. `body` objects are sent as JSON. */
export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'reset' }
  | { kind: 'truncate'; body: string };

export type Route = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface DigestServerOptions {
  /** `digest` (default), `oauth` (bearer tokens from `/api/oauth/token`) or `none`. */
  auth?: 'digest' | 'oauth' | 'none';
  username?: string;
  password?: string;
  /** The challenges offered, one `WWW-Authenticate` line each, in this order. Default `['MD5']`. */
  algorithms?: TestDigestAlgorithm[];
  /** The qop offered. Default `auth`. */
  qop?: string;
  /** Sent in the challenge and required back. Default: a fixed opaque value. */
  opaque?: string;
  oauth?: { clientId: string; clientSecret: string; expiresInSeconds?: number };
  route?: Route;
}

export interface DigestServer {
  baseUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** 401 answers that carried a challenge. */
  challenges(): number;
  /** Marks every nonce issued so far as expired: the next use gets a 401 with `stale=true`. */
  expireNonces(): void;
  /** Forgets every nonce issued so far: the next use gets a 401 with `stale=false`. */
  forgetNonces(): void;
  /** Moves to another realm and forgets every nonce: the next use gets a challenge for the new realm. */
  changeRealm(realm: string): void;
  /** Access tokens issued so far. */
  tokensIssued(): string[];
  /** Makes every token issued so far invalid. */
  revokeTokens(): void;
  close(): Promise<void>;
}

const NODE_HASH: Record<TestDigestAlgorithm, string> = {
  MD5: 'md5',
  'MD5-sess': 'md5',
  'SHA-256': 'sha256',
  'SHA-256-sess': 'sha256',
  'SHA-512-256': 'sha512-256',
  'SHA-512-256-sess': 'sha512-256',
};

const DEFAULT_REALM = 'MMS Public API';

/** The Atlas error body: `{ error, errorCode, detail, reason, parameters }`. */
export function atlasErrorBody(status: number, errorCode: string, detail: string): Record<string, unknown> {
  return { error: status, errorCode, detail, reason: reasonOf(status), parameters: [] };
}

/** A list page in the Atlas shape, with `self` and (when `next` is given) `next` links. */
export function listPage(
  results: unknown[],
  options: { self: string; next?: string; totalCount?: number },
): Record<string, unknown> {
  const links = [{ rel: 'self', href: options.self }];
  if (options.next) {
    links.push({ rel: 'next', href: options.next });
  }
  return { links, results, totalCount: options.totalCount ?? results.length };
}

/**
 * Starts the server on 127.0.0.1 with an ephemeral port.
 *
 * @example
 * ```ts
 * const server = await startDigestServer({ username: 'pub', password: 'fake-private-key-for-tests',
 *   route: () => ({ body: { results: [], links: [] } }) });
 * ```
 */
export async function startDigestServer(options: DigestServerOptions = {}): Promise<DigestServer> {
  const auth = options.auth ?? 'digest';
  const username = options.username ?? 'test-public-key';
  const password = options.password ?? 'fake-private-key-for-tests';
  const algorithms = options.algorithms ?? ['MD5'];
  const qop = options.qop ?? 'auth';
  const opaque = options.opaque ?? 'test-opaque-value';
  const route: Route =
    options.route ?? (() => ({ status: 404, body: atlasErrorBody(404, 'RESOURCE_NOT_FOUND', 'No route.') }));
  const nonces = new Map<string, { seenNc: Set<number>; expired: boolean }>();
  const tokens = new Map<string, { revoked: boolean }>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let challengeCount = 0;
  let realm = DEFAULT_REALM;

  const challenge = (response: ServerResponse, stale: boolean): void => {
    challengeCount += 1;
    const lines = algorithms.map((algorithm) => {
      const nonce = randomBytes(12).toString('base64');
      nonces.set(nonce, { seenNc: new Set(), expired: false });
      return `Digest realm="${realm}", domain="", nonce="${nonce}", algorithm=${algorithm}, qop="${qop}", opaque="${opaque.replace(/["\\]/g, '\\$&')}", stale=${stale}`;
    });
    response.writeHead(401, {
      'content-type': 'application/json;charset=ISO-8859-1',
      'www-authenticate': lines,
    });
    response.end(JSON.stringify(atlasErrorBody(401, 'UNAUTHORIZED', 'You are not authorized.')));
  };

  const verifyDigest = (request: RecordedRequest): 'ok' | 'challenge' | 'stale' => {
    const params = request.digest;
    if (!params) {
      return 'challenge';
    }
    const algorithm = (params.algorithm ?? 'MD5') as TestDigestAlgorithm;
    const nonce = params.nonce ?? '';
    const nonceState = nonces.get(nonce);
    if (!algorithms.includes(algorithm) || !nonceState || params.realm !== realm) {
      return 'challenge';
    }
    if (params.uri !== request.target || params.opaque !== opaque) {
      return 'challenge';
    }
    const hash = (text: string): string => createHash(NODE_HASH[algorithm]).update(text).digest('hex');
    const expectedUser = params.userhash === 'true' ? hash(`${username}:${realm}`) : username;
    if (params.username !== expectedUser) {
      return 'challenge';
    }
    let ha1 = hash(`${username}:${realm}:${password}`);
    if (algorithm.endsWith('-sess')) {
      ha1 = hash(`${ha1}:${nonce}:${params.cnonce ?? ''}`);
    }
    const ha2 = hash(`${request.method}:${params.uri}`);
    const expected =
      params.qop === undefined
        ? hash(`${ha1}:${nonce}:${ha2}`)
        : hash(`${ha1}:${nonce}:${params.nc}:${params.cnonce}:${params.qop}:${ha2}`);
    if (params.response !== expected) {
      return 'challenge';
    }
    if (nonceState.expired) {
      return 'stale';
    }
    // Replay protection: a nonce count may be used once. Order is not enforced, as requests on
    // parallel connections can arrive out of order.
    const nc = Number.parseInt(params.nc ?? '', 16);
    if (params.qop !== undefined && !(/^[0-9a-f]{8}$/.test(params.nc ?? '') && !nonceState.seenNc.has(nc))) {
      return 'challenge';
    }
    nonceState.seenNc.add(nc);
    return 'ok';
  };

  const handleToken = (request: RecordedRequest, response: ServerResponse): void => {
    const oauth = options.oauth;
    const expected = oauth
      ? `Basic ${Buffer.from(`${oauth.clientId}:${oauth.clientSecret}`, 'utf8').toString('base64')}`
      : undefined;
    if (
      request.method !== 'POST' ||
      expected === undefined ||
      request.headers.authorization !== expected ||
      request.body !== 'grant_type=client_credentials'
    ) {
      send(response, 401, { error: 'invalid_client', error_description: 'Invalid client credentials.' });
      return;
    }
    const token = `test-access-token-${tokens.size + 1}`;
    tokens.set(token, { revoked: false });
    send(response, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: oauth?.expiresInSeconds ?? 3600,
    });
  };

  const server = createServer((message, response) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      const target = message.url ?? '/';
      const request: RecordedRequest = {
        method: message.method ?? 'GET',
        target,
        url: new URL(target, 'http://127.0.0.1'),
        headers: message.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const digest = parseDigestAuthorization(message.headers.authorization);
      if (digest) {
        request.digest = digest;
      }
      requests.push(request);
      const finish = (status: number): void => {
        request.status = status;
      };
      if (auth === 'oauth' && request.url.pathname === '/api/oauth/token') {
        handleToken(request, response);
        finish(response.statusCode);
        return;
      }
      if (auth === 'digest') {
        const verdict = verifyDigest(request);
        if (verdict !== 'ok') {
          challenge(response, verdict === 'stale');
          finish(401);
          return;
        }
      }
      if (auth === 'oauth') {
        const bearer = /^Bearer (.+)$/.exec(message.headers.authorization ?? '')?.[1];
        const token = bearer === undefined ? undefined : tokens.get(bearer);
        if (!token || token.revoked) {
          response.writeHead(401, {
            'content-type': 'application/json',
            'www-authenticate': 'Bearer error="invalid_token"',
          });
          response.end(JSON.stringify(atlasErrorBody(401, 'UNAUTHORIZED', 'Invalid token.')));
          finish(401);
          return;
        }
      }
      Promise.resolve()
        .then(() => route(request))
        .then(
          (reply) => {
            if ('kind' in reply) {
              if (reply.kind === 'reset') {
                message.socket.destroy();
                return;
              }
              response.writeHead(200, {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(reply.body) + 100),
              });
              response.write(reply.body);
              message.socket.destroy();
              finish(200);
              return;
            }
            const status = reply.status ?? 200;
            const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
            response.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
            response.end(body);
            finish(status);
          },
          (error: unknown) => {
            send(response, 500, atlasErrorBody(500, 'UNEXPECTED_ERROR', String(error)));
            finish(500);
          },
        );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    challenges: () => challengeCount,
    expireNonces: () => {
      for (const state of nonces.values()) {
        state.expired = true;
      }
    },
    forgetNonces: () => nonces.clear(),
    changeRealm: (next) => {
      realm = next;
      nonces.clear();
    },
    tokensIssued: () => [...tokens.keys()],
    revokeTokens: () => {
      for (const state of tokens.values()) {
        state.revoked = true;
      }
    },
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Parses `Digest a="b", c=d` with a regular expression: deliberately not the client's parser. */
function parseDigestAuthorization(header: string | undefined): Record<string, string> | undefined {
  if (!header?.startsWith('Digest ')) {
    return undefined;
  }
  const params: Record<string, string> = {};
  const pattern = /([a-z0-9-]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/gi;
  for (const match of header.slice(7).matchAll(pattern)) {
    const name = (match[1] ?? '').toLowerCase();
    params[name] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
  }
  return params;
}

function reasonOf(status: number): string {
  const reasons: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    406: 'Not Acceptable',
    410: 'Gone',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return reasons[status] ?? 'Error';
}
