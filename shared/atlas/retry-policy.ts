/**
 * When and how long the client waits before trying a request again: pure functions over the policy,
 * the attempt number and Atlas's `Retry-After`.
 */

/** How hard the client tries, per call (one page, one read, one token). */
export interface RetryPolicy {
  /** HTTP attempts in all, the first one included. 1 disables retries. */
  maxAttempts: number;
  /** The backoff ceiling after the first failure; it doubles with every further failure. */
  baseDelayMs: number;
  /** No single wait is drawn above this (a longer `Retry-After` still wins). */
  maxDelayMs: number;
  /** No retry starts if its wait would end more than this long after the call began. */
  deadlineMs: number;
}

/**
 * The default policy: 5 attempts, waits drawn from 0..0.5 s, 0..1 s, 0..2 s, 0..4 s (capped at 20 s),
 * and a minute per call in all. A Lambda tick has minutes, and a rate limit rarely lasts longer.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  deadlineMs: 60_000,
});

/** Statuses that mean "try again later": rate limited, or a server or gateway failure. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

const RETRYABLE_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * Whether a transport error is worth another attempt: connection refused or reset, timeouts, a body
 * cut short, a temporary DNS failure. A host that does not exist (`ENOTFOUND`) or a TLS failure is not:
 * trying again only delays the message that the base URL is wrong.
 *
 * @example
 * ```ts
 * isRetryableNetworkError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })); // true
 * ```
 */
export function isRetryableNetworkError(error: unknown): boolean {
  return RETRYABLE_ERROR_CODES.has(errorCode(error) ?? '');
}

/**
 * The `code` of an error or of the first error in its cause chain that has one.
 *
 * @example
 * ```ts
 * errorCode(new Error('x', { cause: Object.assign(new Error('y'), { code: 'ECONNRESET' }) })); // 'ECONNRESET'
 * ```
 */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      return code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Reads `Retry-After` (RFC 9110 section 10.2.3): a number of seconds, or an HTTP date measured against
 * `nowMs`. A date in the past means "now".
 *
 * @returns The wait in milliseconds, or `undefined` when the header is absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter('7', Date.now()); // 7000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:07 GMT', Date.parse('2015-10-21T07:28:00Z')); // 7000
 * ```
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!text) {
    return undefined;
  }
  if (/^\d+$/.test(text)) {
    return Number(text) * 1000;
  }
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) {
    return undefined;
  }
  return Math.max(0, date - nowMs);
}

/** Inputs of {@link backoffDelay}. */
export interface BackoffInput {
  /** The attempt that just failed, 1 for the first. */
  attempt: number;
  policy: RetryPolicy;
  /** A number in [0, 1): `Math.random` in production, fixed in tests. */
  random: () => number;
  /** Atlas's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs?: number;
}

/**
 * The wait before the next attempt: exponential backoff with full jitter (a uniform draw between 0 and
 * `min(maxDelayMs, baseDelayMs * 2^(attempt-1))`), never less than `Retry-After`. Full jitter spreads
 * the retries of many pollers that were rate limited together.
 *
 * @example
 * ```ts
 * backoffDelay({ attempt: 3, policy: DEFAULT_RETRY_POLICY, random: () => 0.5 }); // 1000
 * backoffDelay({ attempt: 1, policy: DEFAULT_RETRY_POLICY, random: () => 0.5, retryAfterMs: 7000 }); // 7000
 * ```
 */
export function backoffDelay(input: BackoffInput): number {
  const { attempt, policy } = input;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.floor(input.random() * ceiling);
  return Math.max(jittered, input.retryAfterMs ?? 0);
}
