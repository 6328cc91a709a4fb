import type { Dispatcher } from 'undici';
import {
  type DigestAlgorithm,
  type DigestChallenge,
  parseAuthenticateHeader,
  selectDigestChallenge,
} from './digest-challenge.js';
import { formatDigestAuthorization, hashCredentials } from './digest-response.js';

/** What the interceptor remembers about one origin. */
export interface DigestOriginState {
  /** The challenge whose nonce later requests reuse. */
  challenge?: DigestChallenge;
  /** Requests signed with the current nonce so far. */
  nc: number;
  /** Set while a request without credentials is out to fetch the first challenge: who waits for it. */
  probeWaiters?: Array<() => void>;
  /** `H(username:realm:password)` for the realm and algorithm it was computed for. */
  credentialsHash?: { realm: string; algorithm: DigestAlgorithm; value: string };
}

/** Why a challenge was answered with a request of its own. */
export type DigestChallengeReason = 'first' | 'stale' | 'rejected';

/** Reported once for every challenge answered: each costs one extra HTTP request. */
export interface DigestChallengeEvent {
  origin: string;
  reason: DigestChallengeReason;
  algorithm: string;
}

/** Everything one {@link DigestAuthHandler} needs; built by the interceptor for each request. */
export interface DigestAuthHandlerOptions {
  dispatch: Dispatcher.Dispatch;
  /**
   * The request, its query already folded into `path` and its headers a plain record of its own:
   * the handler sets `authorization` on that record before each signed dispatch.
   */
  opts: Dispatcher.DispatchOptions & { headers: Record<string, string | string[]> };
  handler: Dispatcher.DispatchHandler;
  origin: string;
  state: DigestOriginState;
  username: string;
  password: string;
  cnonce: () => string;
  onChallenge: (event: DigestChallengeEvent) => void;
}

type Phase = 'probe' | 'reused' | 'fresh';
type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];
type Trailers = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1];
type UpgradeSocket = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3];

const MAX_NONCE_COUNT = 0xffffffff;

/**
 * The Digest state machine for one request, in the shape of undici's `RedirectHandler`:
 *
 * - `reused`: the origin has a challenge; the request goes out signed with its nonce and the next `nc`.
 * - `probe`: no challenge yet; the request goes out bare to fetch one. Other requests to the origin wait
 *   for it rather than each paying a round trip.
 * - a 401 carrying a Digest challenge in `probe` or `reused` (stale nonce, or a reused nonce the server
 *   no longer accepts) is swallowed, the challenge stored, and the request sent again signed: `fresh`.
 * - a 401 in `fresh` means the credentials themselves are wrong: it goes to the caller as it came.
 *
 * Every other response, and every error, is forwarded untouched.
 */
export class DigestAuthHandler implements Dispatcher.DispatchHandler {
  readonly #options: DigestAuthHandlerOptions;
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #resendable: boolean;
  #phase: Phase = 'probe';
  #probing = false;
  #usedChallenge: DigestChallenge | undefined;
  #answering: { event: DigestChallengeEvent; challenge: DigestChallenge } | undefined;

  constructor(options: DigestAuthHandlerOptions) {
    this.#options = options;
    this.#handler = options.handler;
    const { body } = options.opts;
    this.#resendable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  }

  /**
   * Sends the request: signed when the origin has a challenge, else bare (or after the probe already
   * out, when `mayWait`).
   */
  start(mayWait = true): boolean {
    const { state } = this.#options;
    if (state.challenge && state.nc < MAX_NONCE_COUNT) {
      this.#phase = 'reused';
      return this.#dispatchSigned(state.challenge);
    }
    if (state.probeWaiters && mayWait) {
      state.probeWaiters.push(() => this.#startQueued());
      return true;
    }
    this.#phase = 'probe';
    this.#usedChallenge = undefined;
    if (!state.probeWaiters) {
      state.probeWaiters = [];
      this.#probing = true;
    }
    try {
      return this.#options.dispatch(this.#options.opts, this);
    } catch (error) {
      this.#releaseProbe();
      throw error;
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
    socket: UpgradeSocket,
  ): void {
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
    statusMessage?: string,
  ): void {
    const { state } = this.#options;
    if (statusCode === 401 && this.#phase !== 'fresh' && this.#resendable) {
      const challenge = selectDigestChallenge(parseAuthenticateHeader(headers['www-authenticate']));
      if (challenge) {
        state.challenge = challenge;
        state.nc = 0;
        this.#answering = {
          challenge,
          event: {
            origin: this.#options.origin,
            reason: this.#phase === 'probe' ? 'first' : challenge.stale ? 'stale' : 'rejected',
            algorithm: challenge.algorithm,
          },
        };
        this.#releaseProbe();
        return;
      }
    }
    if (statusCode === 401 && this.#usedChallenge && state.challenge === this.#usedChallenge) {
      // The credentials were refused with a fresh nonce: make the next request start over.
      delete state.challenge;
      state.nc = 0;
    } else if (statusCode < 300 && this.#usedChallenge && state.challenge === this.#usedChallenge) {
      this.#applyNextNonce(headers['authentication-info']);
    }
    this.#releaseProbe();
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#answering) {
      return;
    }
    this.#handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Trailers): void {
    const answering = this.#answering;
    if (!answering) {
      this.#handler.onResponseEnd?.(controller, trailers);
      return;
    }
    this.#answering = undefined;
    this.#phase = 'fresh';
    this.#options.onChallenge(answering.event);
    const { state } = this.#options;
    if (!state.challenge) {
      // Another request's refused credentials cleared it meanwhile; the nonce just received still holds.
      state.challenge = answering.challenge;
      state.nc = 0;
    }
    try {
      this.#dispatchSigned(state.challenge);
    } catch (error) {
      this.#handler.onResponseError?.(controller, asError(error));
    }
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#releaseProbe();
    this.#handler.onResponseError?.(controller, error);
  }

  #dispatchSigned(challenge: DigestChallenge): boolean {
    const { opts, state } = this.#options;
    state.nc += 1;
    this.#usedChallenge = challenge;
    const authorization = formatDigestAuthorization({
      challenge,
      username: this.#options.username,
      password: this.#options.password,
      credentialsHash: this.#credentialsHash(challenge),
      method: opts.method.toUpperCase(),
      uri: opts.path,
      nc: state.nc,
      cnonce: this.#options.cnonce(),
      ...(typeof opts.body === 'string' || opts.body instanceof Uint8Array ? { entityBody: opts.body } : {}),
    });
    // The record is this request's own, and undici reads it during dispatch: set, not copied.
    opts.headers.authorization = authorization;
    return this.#options.dispatch(opts, this);
  }

  /** The origin's `H(username:realm:password)`, hashed again only when the realm or algorithm changes. */
  #credentialsHash(challenge: DigestChallenge): string {
    const { state, username, password } = this.#options;
    const { realm, algorithm } = challenge;
    const kept = state.credentialsHash;
    if (kept !== undefined && kept.realm === realm && kept.algorithm === algorithm) return kept.value;
    const value = hashCredentials({ algorithm, username, realm, password });
    state.credentialsHash = { realm, algorithm, value };
    return value;
  }

  #startQueued(): void {
    try {
      this.start(false);
    } catch (error) {
      this.#handler.onResponseError?.(new SettledController(asError(error)), asError(error));
    }
  }

  #releaseProbe(): void {
    if (!this.#probing) {
      return;
    }
    this.#probing = false;
    const { state } = this.#options;
    const waiters = state.probeWaiters ?? [];
    delete state.probeWaiters;
    // Started after the current callback returns, so no dispatch runs inside another request's parser.
    queueMicrotask(() => {
      for (const wake of waiters) {
        wake();
      }
    });
  }

  #applyNextNonce(authenticationInfo: string | readonly string[] | undefined): void {
    if (authenticationInfo === undefined) {
      return;
    }
    const values = typeof authenticationInfo === 'string' ? [authenticationInfo] : authenticationInfo;
    const params = parseAuthenticateHeader(values.map((value) => `Digest ${value}`))[0]?.params;
    const nextNonce = params?.nextnonce;
    const { state } = this.#options;
    if (nextNonce && state.challenge) {
      state.challenge = { ...state.challenge, nonce: nextNonce, stale: false };
      state.nc = 0;
    }
  }
}

/** The controller handed to a caller whose queued request could not even be dispatched. */
class SettledController implements Dispatcher.DispatchController {
  readonly #reason: Error;
  constructor(reason: Error) {
    this.#reason = reason;
  }
  get aborted(): boolean {
    return true;
  }
  get paused(): boolean {
    return false;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(): void {}
  pause(): void {}
  resume(): void {}
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
