import { randomFillSync } from 'node:crypto';
import type { Dispatcher } from 'undici';
import {
  DigestAuthHandler,
  type DigestChallengeEvent,
  type DigestOriginState,
} from './digest-auth-handler.js';

/** Options of {@link createDigestAuthInterceptor}. */
export interface DigestAuthInterceptorOptions {
  /** The user name: an Atlas API key's public key. */
  username: string;
  /** The password: the API key's private key. Used only to compute hashes, never sent or logged. */
  password: string;
  /** Called for every challenge answered, that is for every extra HTTP request Digest costs. */
  onChallenge?: (event: DigestChallengeEvent) => void;
  /** Source of client nonces; 128 random bits as 32 hex digits by default. Tests inject a fixed one. */
  cnonce?: () => string;
}

type Headers = Record<string, string | string[]>;

/**
 * Creates an undici interceptor that answers HTTP Digest challenges (RFC 7616) for every request
 * dispatched through it. Per origin it keeps the last challenge and signs later requests with the same
 * nonce and an increasing nonce count, so a run of requests costs one challenge in all rather than one
 * per request. A 401 with `stale=true`, or any 401 to a reused nonce, costs exactly one fresh
 * challenge-response; a 401 to fresh credentials reaches the caller as it came. Requests that already
 * carry an `Authorization` header pass through untouched.
 *
 * The returned function never throws by itself; errors of the wrapped dispatcher reach the handler.
 *
 * @example
 * ```ts
 * const dispatcher = new Agent().compose(
 *   createDigestAuthInterceptor({ username: publicKey, password: privateKey }),
 * );
 * const { statusCode, body } = await dispatcher.request({
 *   origin: 'https://cloud.mongodb.com', path: '/api/atlas/v2/orgs/5f4e3d2c1b0a998877665544/events',
 *   method: 'GET', headers: { accept: 'application/vnd.atlas.2023-01-01+json' },
 * });
 * ```
 */
export function createDigestAuthInterceptor(
  options: DigestAuthInterceptorOptions,
): Dispatcher.DispatcherComposeInterceptor {
  const origins = new Map<string, DigestOriginState>();
  const cnonce = options.cnonce ?? randomCnonce;
  // Requests name their origin the same way each time: parse it once, not once per request.
  let lastOrigin: { raw: unknown; normalized: string } | undefined;
  const normalizeOrigin = (raw: unknown): string => {
    const cached = lastOrigin;
    if (cached !== undefined && cached.raw === raw) return cached.normalized;
    const normalized = new URL(String(raw)).origin;
    lastOrigin = { raw, normalized };
    return normalized;
  };
  const onChallenge = options.onChallenge ?? ((): void => {});
  return (dispatch) =>
    function digestAuthInterceptor(opts, handler) {
      const headers = toHeaderRecord(opts.headers);
      if (opts.origin === undefined || 'authorization' in headers) {
        return dispatch(opts, handler);
      }
      const origin = normalizeOrigin(opts.origin);
      let state = origins.get(origin);
      if (!state) {
        state = { nc: 0 };
        origins.set(origin, state);
      }
      // The signed uri must be the request-target exactly as sent, so the query is folded in here.
      const request = opts.query === undefined ? { ...opts, headers } : foldQuery(opts, headers);
      const digestHandler = new DigestAuthHandler({
        dispatch,
        opts: request,
        handler,
        origin,
        state,
        username: options.username,
        password: options.password,
        cnonce,
        onChallenge,
      });
      return digestHandler.start();
    };
}

/** Random bytes for client nonces, drawn 256 nonces at a time: one call to the CSPRNG per 256 requests. */
const cnoncePool = Buffer.alloc(16 * 256);
let cnonceOffset = cnoncePool.length;

/**
 * A client nonce: 128 random bits as 32 hex digits, from the CSPRNG.
 *
 * @example
 * ```ts
 * randomCnonce(); // '9f86d081884c7d659a2feaa0c55ad015'
 * ```
 */
export function randomCnonce(): string {
  if (cnonceOffset === cnoncePool.length) {
    randomFillSync(cnoncePool);
    cnonceOffset = 0;
  }
  const cnonce = cnoncePool.toString('hex', cnonceOffset, cnonceOffset + 16);
  cnonceOffset += 16;
  return cnonce;
}

function toHeaderRecord(headers: Dispatcher.DispatchOptions['headers']): Headers {
  const record: Headers = {};
  if (headers === undefined || headers === null) {
    return record;
  }
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const [name, value] of headers as unknown as Array<[string, unknown]>) {
        addHeader(record, name, value);
      }
    } else {
      for (let index = 0; index + 1 < headers.length; index += 2) {
        addHeader(record, headers[index], headers[index + 1]);
      }
    }
    return record;
  }
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[string, unknown]>) {
      addHeader(record, name, value);
    }
    return record;
  }
  for (const name of Object.keys(headers)) {
    addHeader(record, name, (headers as Record<string, unknown>)[name]);
  }
  return record;
}

function addHeader(record: Headers, name: unknown, value: unknown): void {
  if (value === undefined || value === null) {
    return;
  }
  const key = String(name).toLowerCase();
  const existing = record[key];
  if (existing === undefined && typeof value === 'string') {
    record[key] = value;
    return;
  }
  const values = Array.isArray(value) ? value.map(String) : [String(value)];
  if (existing === undefined) {
    record[key] = values.length === 1 ? (values[0] as string) : values;
  } else {
    record[key] = [...(Array.isArray(existing) ? existing : [existing]), ...values];
  }
}

function foldQuery(
  opts: Dispatcher.DispatchOptions,
  headers: Headers,
): Dispatcher.DispatchOptions & { headers: Headers } {
  const { query, ...rest } = opts;
  return { ...rest, path: withQuery(opts.path, query), headers };
}

function withQuery(path: string, query: Record<string, unknown> | undefined): string {
  if (!query) {
    return path;
  }
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) {
        search.append(key, String(item));
      }
    }
  }
  const text = search.toString();
  if (text === '') {
    return path;
  }
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}
