import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  errorCode,
  isRetryableNetworkError,
  parseRetryAfter,
} from '../../shared/atlas/retry-policy.js';

const NOW = Date.parse('2026-11-22T06:17:00Z');

describe('parseRetryAfter edges', () => {
  it('reads the first of several field values, trimmed', () => {
    // Act
    const wait = parseRetryAfter([' 3 ', '9'], NOW);

    // Assess
    expect(wait).toBe(3_000);
  });

  it('reads a number of seconds of several digits', () => {
    // Act
    const wait = parseRetryAfter('120', NOW);

    // Assess
    expect(wait).toBe(120_000);
  });

  it('reads zero seconds as no wait', () => {
    // Act
    const wait = parseRetryAfter('0', NOW);

    // Assess
    expect(wait).toBe(0);
  });

  it.each(['7 seconds', '2026-11-22', '12 3', '   '])('gives undefined for %j', (value) => {
    // Act
    const wait = parseRetryAfter(value, NOW);

    // Assess
    expect(wait).toBeUndefined();
  });

  it('measures an HTTP date in the future from now', () => {
    // Act
    const wait = parseRetryAfter('Sun, 22 Nov 2026 06:17:09 GMT', NOW);

    // Assess
    expect(wait).toBe(9_000);
  });
});

describe('backoffDelay edges', () => {
  it('draws from the base delay after the first failure and never from a negative ceiling', () => {
    // Act
    const first = backoffDelay({ attempt: 1, policy: DEFAULT_RETRY_POLICY, random: () => 0.999 });
    const zeroth = backoffDelay({ attempt: 0, policy: DEFAULT_RETRY_POLICY, random: () => 0.999 });

    // Assess
    expect(first).toBe(499);
    expect(zeroth).toBe(499);
  });

  it('rounds the draw down to whole milliseconds', () => {
    // Act
    const delay = backoffDelay({ attempt: 2, policy: DEFAULT_RETRY_POLICY, random: () => 0.0015 });

    // Assess
    expect(delay).toBe(1);
  });

  it('keeps a draw above a shorter Retry-After', () => {
    // Act
    const delay = backoffDelay({
      attempt: 4,
      policy: DEFAULT_RETRY_POLICY,
      random: () => 0.5,
      retryAfterMs: 1_000,
    });

    // Assess
    expect(delay).toBe(2_000);
  });
});

describe('errorCode edges', () => {
  it('follows the cause chain at most five errors deep', () => {
    // Prepare
    const chain = (depth: number): unknown => {
      let error: unknown = Object.assign(new Error('root'), { code: 'ECONNRESET' });
      for (let level = 1; level < depth; level++) error = new Error(`level ${level}`, { cause: error });
      return error;
    };

    // Act
    const codes = [errorCode(chain(5)), errorCode(chain(6))];

    // Assess
    expect(codes).toEqual(['ECONNRESET', undefined]);
  });

  it('skips a code that is not a string and stops at a cause that is not an object', () => {
    // Prepare
    const numeric = Object.assign(new Error('outer'), {
      code: 42,
      cause: Object.assign(new Error('inner'), { code: 'EPIPE' }),
    });
    const stringCause = new Error('outer', { cause: 'ECONNRESET' });

    // Act
    const codes = [errorCode(numeric), errorCode(stringCause), errorCode(null), errorCode('ECONNRESET')];

    // Assess
    expect(codes).toEqual(['EPIPE', undefined, undefined, undefined]);
  });

  it.each([
    'ECONNABORTED',
    'EPIPE',
    'ETIMEDOUT',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'ENETDOWN',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_CLOSED',
    'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  ])('retries after %s', (code) => {
    // Act
    const retryable = isRetryableNetworkError(Object.assign(new Error('failed'), { code }));

    // Assess
    expect(retryable).toBe(true);
  });

  it('does not retry an error without a code', () => {
    // Act
    const retryable = isRetryableNetworkError(new Error('failed'));

    // Assess
    expect(retryable).toBe(false);
  });
});
