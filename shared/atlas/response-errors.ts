/**
 * Turns Atlas's answers, and the lack of one, into typed errors whose message says what happened, for
 * which request, and what to do. Server-written text (`detail`) is shortened and scrubbed of every
 * known secret before it goes into a message.
 */

import { cleanVisibleLine } from '../text-cleaning.js';
import { parseAuthenticateHeader, selectDigestChallenge } from './digest-challenge.js';
import {
  AtlasAuthError,
  type AtlasError,
  type AtlasErrorOptions,
  AtlasForbiddenError,
  AtlasNetworkError,
  AtlasNotFoundError,
  AtlasRateLimitError,
  AtlasRequestError,
  AtlasResponseError,
  AtlasServerError,
  AtlasVersionError,
} from './errors.js';
import type { HttpResponse } from './http-exchange.js';
import { errorCode, isRetryableNetworkError, parseRetryAfter, RETRYABLE_STATUSES } from './retry-policy.js';
import type { SecretRedactor } from './secret-redactor.js';

/** The request an error is about, and how hard the client tried. */
export interface FailureContext {
  method: string;
  /** Path without the query. */
  path: string;
  origin: string;
  auth: 'digest' | 'service-account';
  redactor: SecretRedactor;
  /** Attempts made, the failing one included. */
  attempts: number;
  elapsedMs: number;
  nowMs: number;
}

/** Atlas's error body: `{ error, errorCode, detail, reason, parameters }`, or OAuth's `{ error, error_description }`. */
export interface AtlasErrorBody {
  errorCode?: string;
  detail?: string;
  reason?: string;
}

const MAX_DETAIL_LENGTH = 240;

/**
 * Reads the error fields of a body, whichever of the two shapes it has; anything else gives `{}`.
 *
 * @example
 * ```ts
 * readErrorBody('{"error":403,"errorCode":"IP_ADDRESS_NOT_ON_ACCESS_LIST","detail":"..."}');
 * // { errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST', detail: '...' }
 * ```
 */
export function readErrorBody(body: string): AtlasErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return {};
  }
  const record = parsed as Record<string, unknown>;
  const content = record.content;
  if (typeof record.status === 'number' && typeof content === 'object' && content !== null) {
    return readErrorBody(JSON.stringify(content));
  }
  const result: AtlasErrorBody = {};
  const code = typeof record.errorCode === 'string' ? record.errorCode : record.error;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,80}$/.test(code)) {
    result.errorCode = code;
  }
  const detail = typeof record.detail === 'string' ? record.detail : record.error_description;
  if (typeof detail === 'string' && detail.trim() !== '') {
    result.detail = detail;
  }
  if (typeof record.reason === 'string') {
    result.reason = record.reason;
  }
  return result;
}

/**
 * The error for a status the client does not turn into data: 3xx, 4xx, 5xx.
 *
 * @example
 * ```ts
 * throw errorFromResponse(response, context); // AtlasForbiddenError for a 403, and so on
 * ```
 */
export function errorFromResponse(response: HttpResponse, context: FailureContext): AtlasError {
  const { status } = response;
  const body = readErrorBody(response.body);
  const options: AtlasErrorOptions = {
    status,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
    ...(body.errorCode === undefined ? {} : { errorCode: body.errorCode }),
  };
  const retryAfterMs = parseRetryAfter(response.headers['retry-after'], context.nowMs);
  if (retryAfterMs !== undefined) {
    options.retryAfterMs = retryAfterMs;
  }
  const say = (hint: string): string => compose(context, status, body, hint);

  if (status === 401) {
    return new AtlasAuthError(say(unauthorizedHint(response, context)), options);
  }
  if (status === 403) {
    return new AtlasForbiddenError(say(forbiddenHint(body.errorCode, context)), options);
  }
  if (status === 404) {
    return new AtlasNotFoundError(
      say('check the id; the credentials must belong to the organization that holds it'),
      options,
    );
  }
  if (status === 406 || status === 410) {
    return new AtlasVersionError(
      say(
        status === 410
          ? 'this API version is retired; upgrade atlas-audit-alerts'
          : 'the server does not speak this API flavour; use ops-manager for Ops Manager and Cloud Manager, atlas-v2 for Atlas',
      ),
      options,
    );
  }
  if (status === 429) {
    return new AtlasRateLimitError(
      say('Atlas kept rate limiting; poll less often or fewer sources at once, then try again'),
      { ...options, retryable: true },
    );
  }
  if (status >= 500) {
    return new AtlasServerError(
      say(
        RETRYABLE_STATUSES.has(status)
          ? 'Atlas is failing; try again later'
          : 'Atlas cannot serve this request',
      ),
      { ...options, retryable: RETRYABLE_STATUSES.has(status) },
    );
  }
  if (status >= 300 && status < 400) {
    const location = response.headers.location;
    const target = typeof location === 'string' ? safeOrigin(location, context.origin) : undefined;
    return new AtlasResponseError(
      say(
        target
          ? `it redirects to ${target}; set the base URL to that address`
          : 'check the base URL points at the Atlas Admin API',
      ),
      options,
    );
  }
  return new AtlasRequestError(
    say(
      status === 400
        ? 'fix the parameter Atlas names'
        : 'check the base URL and the API flavour point at the Atlas Admin API',
    ),
    options,
  );
}

/**
 * The error for a request that got no complete answer.
 *
 * @example
 * ```ts
 * throw errorFromNetworkFailure(cause, context); // "Could not reach https://cloud.mongodb.com ..."
 * ```
 */
export function errorFromNetworkFailure(cause: unknown, context: FailureContext): AtlasNetworkError {
  const code = errorCode(cause) ?? 'UNKNOWN';
  return new AtlasNetworkError(
    `Could not reach ${context.origin} for ${context.method} ${context.path}${tries(context)} (${code}${describeCode(code)}): check the base URL, DNS, proxy and network access to it`,
    {
      cause,
      method: context.method,
      path: context.path,
      attempts: context.attempts,
      errorCode: code,
      retryable: isRetryableNetworkError(cause),
    },
  );
}

/** Inputs of {@link malformedResponseError}. */
export interface MalformedResponseInput {
  /** What the body was, as a noun phrase: "a body that is not JSON". */
  what: string;
  status: number;
  context: FailureContext;
  /**
   * Whether trying again may help: yes for a body that is not JSON (a proxy or a dropped connection
   * cuts bodies short, and GETs are safe to repeat), no for JSON of the wrong shape.
   */
  retryable: boolean;
  cause?: unknown;
}

/**
 * The error for a 2xx answer the client cannot use: not JSON, or not the documented shape.
 *
 * @example
 * ```ts
 * throw malformedResponseError({ what: 'a body that is not JSON', status: 200, context, retryable: true });
 * ```
 */
export function malformedResponseError(input: MalformedResponseInput): AtlasResponseError {
  const { context } = input;
  return new AtlasResponseError(
    `Atlas answered ${input.status} for ${context.method} ${context.path}${tries(context)} with ${input.what}: check the base URL points at the Atlas Admin API`,
    {
      status: input.status,
      method: context.method,
      path: context.path,
      attempts: context.attempts,
      retryable: input.retryable,
      ...(input.cause === undefined ? {} : { cause: input.cause }),
    },
  );
}

function compose(context: FailureContext, status: number, body: AtlasErrorBody, hint: string): string {
  const code = body.errorCode === undefined ? '' : ` ${body.errorCode}`;
  const detail = body.detail === undefined ? '' : ` (${cleanDetail(body.detail, context.redactor)})`;
  return `Atlas answered ${status}${code} for ${context.method} ${context.path}${tries(context)}${detail}: ${hint}`;
}

function unauthorizedHint(response: HttpResponse, context: FailureContext): string {
  if (context.auth === 'service-account') {
    return 'the access token was refused even after a fresh one; check that the service account exists and its secret has not expired';
  }
  const offered = parseAuthenticateHeader(response.headers['www-authenticate']);
  if (offered.length > 0 && !selectDigestChallenge(offered)) {
    const schemes = [...new Set(offered.map((challenge) => challenge.scheme))].join(', ');
    return `the server offered no Digest challenge this client can answer (offered: ${schemes}); check the base URL, or use a service account`;
  }
  return "the API key's public or private key is wrong, or the key was deleted; check both";
}

function forbiddenHint(code: string | undefined, context: FailureContext): string {
  const holder = context.auth === 'digest' ? "the API key's" : "the service account's";
  if (code === 'IP_ADDRESS_NOT_ON_ACCESS_LIST' || code === 'ORG_REQUIRES_ACCESS_LIST') {
    return `add this host's egress IP to ${holder} access list`;
  }
  return `give ${holder.replace(/'s$/, '')} a role that allows this request: Project Read Only for project events, Organization Member for org events, API keys and projects`;
}

function tries(context: FailureContext): string {
  if (context.attempts <= 1) {
    return '';
  }
  return ` after ${context.attempts} attempts over ${(context.elapsedMs / 1000).toFixed(1)} s`;
}

function cleanDetail(detail: string, redactor: SecretRedactor): string {
  // Atlas's words, shown in a terminal and kept in state: on one line, without bidi overrides or
  // invisible characters that would make them read as something else.
  const flat = cleanVisibleLine(redactor.redact(detail))
    .replace(/\uFFFD+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return flat.length > MAX_DETAIL_LENGTH ? `${flat.slice(0, MAX_DETAIL_LENGTH - 1)}…` : flat;
}

function safeOrigin(location: string, base: string): string | undefined {
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

function describeCode(code: string): string {
  const descriptions: Record<string, string> = {
    ECONNREFUSED: ': connection refused',
    ECONNRESET: ': connection reset',
    ENOTFOUND: ': no such host',
    EAI_AGAIN: ': DNS lookup failed',
    UND_ERR_CONNECT_TIMEOUT: ': connect timed out',
    UND_ERR_HEADERS_TIMEOUT: ': no answer in time',
    UND_ERR_BODY_TIMEOUT: ': body stalled',
    UND_ERR_SOCKET: ': connection closed mid-answer',
    UND_ERR_RES_CONTENT_LENGTH_MISMATCH: ': body cut short',
  };
  return descriptions[code] ?? '';
}
