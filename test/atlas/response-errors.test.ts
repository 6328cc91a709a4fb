import { describe, expect, it } from 'vitest';
import { AtlasRateLimitError } from '../../shared/atlas/errors.js';
import { errorFromResponse, type FailureContext, readErrorBody } from '../../shared/atlas/response-errors.js';
import { SecretRedactor } from '../../shared/atlas/secret-redactor.js';

const context: FailureContext = {
  method: 'GET',
  path: '/api/atlas/v2/orgs/5f4e3d2c1b0a998877665544/events',
  origin: 'https://cloud.mongodb.com',
  auth: 'digest',
  redactor: new SecretRedactor(['fake-private-key-for-tests']),
  attempts: 1,
  elapsedMs: 0,
  nowMs: Date.parse('2024-05-01T12:00:00Z'),
};

describe('readErrorBody', () => {
  it('reads the Atlas error shape', () => {
    const body = readErrorBody(
      JSON.stringify({
        error: 404,
        errorCode: 'GROUP_NOT_FOUND',
        detail: 'No group.',
        reason: 'Not Found',
        parameters: [],
      }),
    );

    expect(body).toEqual({ errorCode: 'GROUP_NOT_FOUND', detail: 'No group.', reason: 'Not Found' });
  });

  it('reads the OAuth error shape', () => {
    const body = readErrorBody(JSON.stringify({ error: 'invalid_client', error_description: 'Bad client.' }));

    expect(body).toEqual({ errorCode: 'invalid_client', detail: 'Bad client.' });
  });

  it('reads an error inside an envelope', () => {
    const body = readErrorBody(JSON.stringify({ status: 403, content: { errorCode: 'X', detail: 'd' } }));

    expect(body).toEqual({ errorCode: 'X', detail: 'd' });
  });

  it.each(['', 'not json', '[1]', 'null', JSON.stringify({ errorCode: 'has spaces and <tags>' })])(
    'gives no fields for %j',
    (text) => {
      expect(readErrorBody(text)).toEqual({});
    },
  );
});

describe('errorFromResponse', () => {
  it('flattens control characters, scrubs secrets and shortens a long detail', () => {
    const detail = `line one\nline\ttwo fake-private-key-for-tests ${'x'.repeat(400)}`;

    const error = errorFromResponse(
      { status: 400, headers: {}, body: JSON.stringify({ errorCode: 'BAD', detail }) },
      context,
    );

    expect(error.message).toMatch(/\(line one line two \[REDACTED\] x+…\): fix the parameter Atlas names$/);
    expect(error.message.length).toBeLessThan(400);
  });

  it('removes bidi overrides, line separators and invisible characters from a detail', () => {
    const detail = 'No group\u2028\u2029named \u202Eorp-tset\u202C here\u200B\uFEFF\u2060.';

    const error = errorFromResponse(
      { status: 404, headers: {}, body: JSON.stringify({ errorCode: 'GROUP_NOT_FOUND', detail }) },
      context,
    );

    expect(error.message).toContain('(No group named orp-tset here.)');
    expect(error.message).not.toMatch(/[\u2028\u2029\u202A-\u202E\u200B\uFEFF\u2060]/);
  });

  it('carries Retry-After on a 429', () => {
    const error = errorFromResponse(
      { status: 429, headers: { 'retry-after': '42' }, body: '' },
      { ...context, attempts: 5, elapsedMs: 12_345 },
    );

    expect(error).toBeInstanceOf(AtlasRateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 42_000, attempts: 5, retryable: true });
    expect(error.message).toMatch(/^Atlas answered 429 for GET \S+ after 5 attempts over 12\.3 s: /);
  });
});
