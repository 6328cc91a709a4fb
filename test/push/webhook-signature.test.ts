import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature, webhookSignature } from '../../shared/push/index.js';

const FOX = Buffer.from('The quick brown fox jumps over the lazy dog');

describe('webhookSignature', () => {
  it('is the base64 HMAC-SHA1 of the body (the published HMAC-SHA1 test vectors, in base64)', () => {
    expect(webhookSignature(Buffer.alloc(0), 'key')).toBe('9Cuw7rAY671Fl65yE3EexgdghD8=');
    expect(webhookSignature(FOX, 'key')).toBe('3nybhbi3iqa8ino29wqQcBydtNk=');
  });
});

describe('verifyWebhookSignature', () => {
  const signature = webhookSignature(FOX, 'key');

  it('accepts the body signed with the secret', () => {
    expect(verifyWebhookSignature({ body: FOX, signature, secret: 'key' })).toBe(true);
  });

  it.each([
    ['another secret', { body: FOX, signature, secret: 'kez' }],
    [
      'a body changed by one byte',
      { body: Buffer.from('The quick brown fox jumps over the lazy cog'), signature, secret: 'key' },
    ],
    ['no signature', { body: FOX, signature: undefined, secret: 'key' }],
    ['an empty signature', { body: FOX, signature: '', secret: 'key' }],
    [
      'a signature sent twice (joined with a comma)',
      { body: FOX, signature: `${signature},${signature}`, secret: 'key' },
    ],
    ['a signature without its padding', { body: FOX, signature: signature.slice(0, 27), secret: 'key' }],
    [
      'a hexadecimal signature',
      { body: FOX, signature: 'de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9', secret: 'key' },
    ],
    [
      'a SHA-256 signature',
      { body: FOX, signature: '91Jae4qQmBvMNpQ4+Fmsp4pzM/MJh1HB5VJ7GWU7E2A=', secret: 'key' },
    ],
    [
      'base64url characters',
      { body: FOX, signature: signature.replace(/[+/]/g, '_').replace(/^./, '-'), secret: 'key' },
    ],
  ])('refuses %s', (_case, options) => {
    expect(verifyWebhookSignature(options)).toBe(false);
  });
});
