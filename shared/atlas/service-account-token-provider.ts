import { type Clock, systemClock } from '../clock.js';
import { AtlasAuthError, AtlasResponseError } from './errors.js';
import type { HttpResponse } from './http-exchange.js';

/** The token request the provider asks its sender to make. */
export interface TokenRequest {
  method: 'POST';
  /** `/api/oauth/token`, below the base URL. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Options of {@link ServiceAccountTokenProvider}. */
export interface ServiceAccountTokenProviderOptions {
  clientId: string;
  clientSecret: string;
  /**
   * Sends the token request and returns Atlas's final answer. The client passes its own transport, so
   * the token endpoint gets the same retries, timeouts and counters as every other call; statuses the
   * sender does not retry come back as responses for the provider to read.
   */
  send: (request: TokenRequest) => Promise<HttpResponse>;
  /** Builds the error for an answer that is neither a token nor a refusal of the credentials. */
  errorFor: (response: HttpResponse) => Error;
  /** Called with every token issued, so the caller can keep it out of its messages. */
  onToken?: (token: string) => void;
  /** Path of the token endpoint. Default `/api/oauth/token`. */
  tokenPath?: string;
  /** Renew this long before expiry (at most a tenth of the token's life). Default 60 s. */
  refreshMarginMs?: number;
  clock?: Clock;
}

interface CachedToken {
  value: string;
  renewAt: number;
}

/**
 * OAuth 2.0 client credentials for Atlas service accounts. `POST /api/oauth/token` with
 * `grant_type=client_credentials` and the id and secret as HTTP Basic. Atlas allows a service account
 * 100 live tokens, so the token is cached until shortly before it expires; concurrent callers share a
 * single request for a new one.
 *
 * The id and secret are joined as they are, not form-URL-encoded first: Atlas compares them raw, and a
 * secret holding `%` or `+` would be refused if encoded.
 *
 * @example
 * ```ts
 * const tokens = new ServiceAccountTokenProvider({ clientId, clientSecret, send, errorFor });
 * headers.authorization = `Bearer ${await tokens.getToken()}`;
 * ```
 */
export class ServiceAccountTokenProvider {
  readonly #options: ServiceAccountTokenProviderOptions;
  readonly #clock: Clock;
  readonly #basicCredential: string;
  #cached: CachedToken | undefined;
  #inFlight: Promise<string> | undefined;
  #fetches = 0;

  constructor(options: ServiceAccountTokenProviderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#basicCredential = Buffer.from(`${options.clientId}:${options.clientSecret}`, 'utf8').toString(
      'base64',
    );
  }

  /** Token requests sent so far. */
  get fetches(): number {
    return this.#fetches;
  }

  /**
   * A valid access token: the cached one, or a new one.
   *
   * @throws AtlasAuthError when Atlas refuses the id or secret (400 or 401 from the token endpoint).
   * @throws AtlasResponseError when the answer holds no usable token.
   * @throws Whatever the sender throws (network failures, rate limits after retries), or the signal's
   *   reason when the caller aborts; the request itself carries on for other callers.
   */
  async getToken(signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    const cached = this.#cached;
    if (cached && this.#clock.now() < cached.renewAt) {
      return cached.value;
    }
    if (!this.#inFlight) {
      this.#inFlight = this.#fetch().finally(() => {
        this.#inFlight = undefined;
      });
    }
    return signal ? raceAbort(this.#inFlight, signal) : this.#inFlight;
  }

  /**
   * Drops `token` from the cache after Atlas refused it, so the next {@link getToken} fetches a new one.
   * A token other than the cached one is ignored: another caller has already replaced it.
   */
  invalidate(token: string): void {
    if (this.#cached?.value === token) {
      this.#cached = undefined;
    }
  }

  async #fetch(): Promise<string> {
    this.#fetches += 1;
    const path = this.#options.tokenPath ?? '/api/oauth/token';
    const response = await this.#options.send({
      method: 'POST',
      path,
      headers: {
        authorization: `Basic ${this.#basicCredential}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
    });
    if (response.status === 400 || response.status === 401) {
      const code = oauthErrorCode(response.body);
      throw new AtlasAuthError(
        `Atlas refused the service account's client id or secret${code ? ` (${code})` : ''} for POST ${path}: check both, and that the secret has not expired`,
        { status: response.status, method: 'POST', path, ...(code ? { errorCode: code } : {}) },
      );
    }
    if (response.status < 200 || response.status >= 300) {
      throw this.#options.errorFor(response);
    }
    const token = readToken(response.body);
    if (!token) {
      throw new AtlasResponseError(
        `Atlas answered ${response.status} for POST ${path} without an access_token and expires_in: check the base URL points at Atlas`,
        { status: response.status, method: 'POST', path },
      );
    }
    this.#options.onToken?.(token.value);
    const lifetimeMs = token.expiresInSeconds * 1000;
    const margin = Math.min(this.#options.refreshMarginMs ?? 60_000, lifetimeMs / 10);
    this.#cached = { value: token.value, renewAt: this.#clock.now() + lifetimeMs - margin };
    return token.value;
  }
}

function readToken(body: string): { value: string; expiresInSeconds: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return undefined;
  }
  const { access_token: value, expires_in: expiresIn } = parsed as Record<string, unknown>;
  if (typeof value !== 'string' || value === '' || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
    return undefined;
  }
  return { value, expiresInSeconds: expiresIn };
}

function oauthErrorCode(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const { error, errorCode } = parsed as Record<string, unknown>;
      const code = typeof errorCode === 'string' ? errorCode : error;
      return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,80}$/.test(code) ? code : undefined;
    }
  } catch {
    // Not JSON: the status alone tells the story.
  }
  return undefined;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
