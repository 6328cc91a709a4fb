import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  errorCode,
  isRetryableNetworkError,
  parseRetryAfter,
} from '../../shared/atlas/retry-policy.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay seconds', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter(['3', '9'], NOW)).toBe(3000);
  });

  it('reads an HTTP date against the given now', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:12 GMT', NOW)).toBe(12_000);
  });

  it('reads a date in the past as no wait', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', NOW)).toBe(0);
  });

  it.each([undefined, '', '-5', '1.5', 'soon'])('gives undefined for %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };

  it('draws up to a ceiling that doubles with each attempt', () => {
    const ceilings = [1, 2, 3, 4].map((attempt) => backoffDelay({ attempt, policy, random: () => 0.999 }));

    expect(ceilings).toEqual([99, 199, 399, 799]);
  });

  it('caps the ceiling at maxDelayMs', () => {
    expect(backoffDelay({ attempt: 10, policy, random: () => 0.5 })).toBe(500);
  });

  it('can draw zero: the jitter is full', () => {
    expect(backoffDelay({ attempt: 3, policy, random: () => 0 })).toBe(0);
  });

  it('never waits less than Retry-After, even past maxDelayMs', () => {
    expect(backoffDelay({ attempt: 1, policy, random: () => 0.5, retryAfterMs: 5000 })).toBe(5000);
  });
});

describe('isRetryableNetworkError', () => {
  const withCode = (code: string): Error => Object.assign(new Error(code), { code });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'EAI_AGAIN'])(
    'retries %s',
    (code) => {
      expect(isRetryableNetworkError(withCode(code))).toBe(true);
    },
  );

  it.each(['ENOTFOUND', 'CERT_HAS_EXPIRED', 'UND_ERR_ABORTED'])('does not retry %s', (code) => {
    expect(isRetryableNetworkError(withCode(code))).toBe(false);
  });

  it('finds the code down the cause chain', () => {
    const error = new TypeError('fetch failed', { cause: withCode('ECONNRESET') });

    expect(errorCode(error)).toBe('ECONNRESET');
    expect(isRetryableNetworkError(error)).toBe(true);
  });
});
