import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../shared/atlas/secret-redactor.js';

describe('SecretRedactor', () => {
  it('replaces every occurrence of a secret and of its URL-encoded form', () => {
    const redactor = new SecretRedactor(['fake+secret/for:tests']);

    const text = redactor.redact(
      'a fake+secret/for:tests b fake%2Bsecret%2Ffor%3Atests c fake+secret/for:tests',
    );

    expect(text).toBe('a [REDACTED] b [REDACTED] c [REDACTED]');
  });

  it('scrubs a secret added later', () => {
    const redactor = new SecretRedactor();
    redactor.add('test-access-token-1');

    expect(redactor.redact('Bearer test-access-token-1')).toBe('Bearer [REDACTED]');
  });

  it('scrubs the longer of two overlapping secrets whole', () => {
    const redactor = new SecretRedactor(['secret', 'secret-and-more']);

    expect(redactor.redact('x secret-and-more y')).toBe('x [REDACTED] y');
  });

  it('leaves secrets too short to scrub without garbling text', () => {
    const redactor = new SecretRedactor(['abc']);

    expect(redactor.redact('abc abc')).toBe('abc abc');
  });
});
