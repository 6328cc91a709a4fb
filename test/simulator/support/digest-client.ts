import { createHash, randomBytes } from 'node:crypto';
import { type Dispatcher, request } from 'undici';

/**
 * A deliberately small digest client for the simulator's tests, written apart from both the
 * simulator and the project's client, so the tests compare independent implementations.
 */

export type TestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The parameters of one `WWW-Authenticate: Digest ...` value. */
export function parseChallenge(value: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of value.replace(/^Digest\s+/i, '').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) {
    params[(match[1] as string).toLowerCase()] = match[2] ?? match[3] ?? '';
  }
  return params;
}

/** The first `WWW-Authenticate` value of a response. */
export function challengeOf(result: HttpResult): string {
  const header = result.headers['www-authenticate'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined)
    throw new Error(`expected a digest challenge, got status ${result.status}: ${result.text}`);
  return value;
}

/** Computes an `Authorization: Digest` header (RFC 7616 section 3.4) with node:crypto. */
export function authorizationHeader(options: {
  username: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  realm?: string;
  algorithm?: TestAlgorithm;
  nc?: number;
  cnonce?: string;
}): string {
  const algorithm = options.algorithm ?? 'MD5';
  const realm = options.realm ?? 'MMS Public API';
  const h = (text: string): string =>
    createHash(algorithm.startsWith('SHA-256') ? 'sha256' : 'md5')
      .update(text)
      .digest('hex');
  const nc = (options.nc ?? 1).toString(16).padStart(8, '0');
  const cnonce = options.cnonce ?? randomBytes(8).toString('hex');
  let ha1 = h(`${options.username}:${realm}:${options.password}`);
  if (algorithm.endsWith('-sess')) ha1 = h(`${ha1}:${options.nonce}:${cnonce}`);
  const ha2 = h(`${options.method}:${options.uri}`);
  const response = h(`${ha1}:${options.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return `Digest username="${options.username}", realm="${realm}", nonce="${options.nonce}", uri="${options.uri}", algorithm=${algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"`;
}

/** One plain HTTP request; the body is read as text. */
export async function send(
  url: string,
  options: { method?: Dispatcher.HttpMethod; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** The Accept header a v2 request needs. */
export const V2_ACCEPT = { accept: 'application/vnd.atlas.2023-01-01+json' };

/** A digest session: one challenge, then the nonce reused with an increasing count. */
export class DigestSession {
  private nonce: string | undefined;
  private nc = 0;

  constructor(
    private readonly credentials: { username: string; password: string },
    private readonly algorithm: TestAlgorithm = 'MD5',
  ) {}

  /** GET `url` with digest credentials, fetching a challenge first when the session has no nonce. */
  async get(url: string, headers: Record<string, string> = V2_ACCEPT): Promise<HttpResult> {
    return this.request('GET', url, undefined, headers);
  }

  /** Any method with digest credentials and an optional JSON body, as {@link get}. */
  async request(
    method: Dispatcher.HttpMethod,
    url: string,
    body?: unknown,
    headers: Record<string, string> = V2_ACCEPT,
  ): Promise<HttpResult> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const sent = text === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    if (this.nonce === undefined) {
      const challenge = await send(url, {
        method,
        headers: sent,
        ...(text === undefined ? {} : { body: text }),
      });
      if (challenge.status !== 401) return challenge;
      this.nonce = parseChallenge(challengeOf(challenge)).nonce;
      this.nc = 0;
    }
    this.nc++;
    const { pathname, search } = new URL(url);
    const authorization = authorizationHeader({
      ...this.credentials,
      method,
      uri: `${pathname}${search}`,
      nonce: this.nonce as string,
      algorithm: this.algorithm,
      nc: this.nc,
    });
    return send(url, {
      method,
      headers: { ...sent, authorization },
      ...(text === undefined ? {} : { body: text }),
    });
  }

  /** GET and parse the JSON body, failing on any status but 200. */
  async json(url: string, headers: Record<string, string> = V2_ACCEPT): Promise<Record<string, unknown>> {
    const result = await this.get(url, headers);
    if (result.status !== 200) throw new Error(`GET ${url} answered ${result.status}: ${result.text}`);
    return JSON.parse(result.text) as Record<string, unknown>;
  }
}
