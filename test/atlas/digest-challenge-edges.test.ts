import { describe, expect, it } from 'vitest';
import {
  type AuthChallenge,
  parseAuthenticateHeader,
  selectDigestChallenge,
  toDigestChallenge,
} from '../../shared/atlas/digest-challenge.js';

/** The challenges as plain objects, so that a key set to undefined shows in a strict comparison. */
function plain(challenges: AuthChallenge[]): unknown[] {
  return challenges.map((challenge) => ({ ...challenge, params: { ...challenge.params } }));
}

describe('parseAuthenticateHeader on malformed elements', () => {
  it.each([
    ['a parameter that starts with a non-token character', 'Digest realm="r", nonce="n", @bad="x"'],
    ['an equals sign with no name', 'Digest realm="r", nonce="n", ="x"'],
    ['a value that is neither a token nor a quoted string', 'Digest realm="r", nonce="n", qop=@'],
  ])('stops at %s and keeps the challenge read so far', (_, header) => {
    // Act
    const challenges = parseAuthenticateHeader(header);

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Digest', params: { realm: 'r', nonce: 'n' } }]);
  });

  it('drops a parameter followed by text before the next comma, and all after it', () => {
    // Act
    const challenges = parseAuthenticateHeader('Digest realm="r", nonce="n" trailing, qop="auth"');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Digest', params: { realm: 'r' } }]);
  });

  it('gives no challenge for a field that starts with a non-token character', () => {
    // Act
    const challenges = parseAuthenticateHeader('"Digest" realm="r"');

    // Assess
    expect(challenges).toStrictEqual([]);
  });

  it('reads a token value and spaces around the equals sign', () => {
    // Act
    const challenges = parseAuthenticateHeader('Digest\trealm =\t"r", nonce= abc , algorithm=SHA-256');

    // Assess
    expect(plain(challenges)).toStrictEqual([
      { scheme: 'Digest', params: { realm: 'r', nonce: 'abc', algorithm: 'SHA-256' } },
    ]);
  });

  it('keeps a backslash that ends an unterminated quoted string out of the challenge', () => {
    // Act
    const challenges = parseAuthenticateHeader('Digest realm="r", nonce="n\\');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Digest', params: { realm: 'r' } }]);
  });

  it('reads a token68 only when it ends the element, with its padding', () => {
    // Act
    const challenges = parseAuthenticateHeader('Bearer abc==, Basic realm="b"');

    // Assess
    expect(plain(challenges)).toStrictEqual([
      { scheme: 'Bearer', params: {}, token68: 'abc==' },
      { scheme: 'Basic', params: { realm: 'b' } },
    ]);
  });

  it('sets no token68 on a challenge whose first word is a parameter name', () => {
    // Act
    const [challenge] = parseAuthenticateHeader('Digest realm="r"');

    // Assess
    expect(challenge !== undefined && 'token68' in challenge).toBe(false);
  });

  it('reads a tab after a comma as white space', () => {
    // Act
    const challenges = parseAuthenticateHeader('Digest realm="r",\tnonce="n"');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Digest', params: { realm: 'r', nonce: 'n' } }]);
  });

  it('gives a scheme alone no token68', () => {
    // Act
    const challenges = parseAuthenticateHeader('Basic');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Basic', params: {} }]);
  });

  it('reads equals signs alone as no token68', () => {
    // Act
    const challenges = parseAuthenticateHeader('Basic ==');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Basic', params: {} }]);
  });

  it('reads a name followed by two equals signs as the next scheme, not as a parameter', () => {
    // Act
    const challenges = parseAuthenticateHeader('Digest a==b');

    // Assess
    expect(plain(challenges)).toStrictEqual([
      { scheme: 'Digest', params: {} },
      { scheme: 'a', params: {} },
    ]);
  });

  it('drops parameters that come before any scheme', () => {
    // Act
    const challenges = parseAuthenticateHeader('realm="r", Digest nonce="n"');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Digest', params: { nonce: 'n' } }]);
  });

  it('gives no parameters to a challenge that follows a token68 one', () => {
    // Act
    const challenges = parseAuthenticateHeader('Negotiate abc=, realm="r"');

    // Assess
    expect(plain(challenges)).toStrictEqual([{ scheme: 'Negotiate', params: {}, token68: 'abc=' }]);
  });
});

describe('toDigestChallenge refusals', () => {
  it('does not answer a Basic challenge as Digest', () => {
    // Act
    const digest = toDigestChallenge({ scheme: 'Basic', params: { realm: 'r', nonce: 'n' } });

    // Assess
    expect(digest).toBeUndefined();
  });

  it('reads the scheme without regard to case', () => {
    // Act
    const digest = toDigestChallenge({ scheme: 'DIGEST', params: { realm: 'r', nonce: 'n' } });

    // Assess
    expect(digest).toStrictEqual({
      realm: 'r',
      nonce: 'n',
      algorithm: 'MD5',
      qop: [],
      stale: false,
      userhash: false,
    });
  });

  it.each([
    ['an empty nonce', { realm: 'r', nonce: '' }],
    ['no nonce', { realm: 'r' }],
    ['no realm', { nonce: 'n' }],
    ['an unknown algorithm', { realm: 'r', nonce: 'n', algorithm: 'SHA-1' }],
    ['only an unknown qop', { realm: 'r', nonce: 'n', qop: 'auth-conf' }],
  ])('refuses a challenge with %s', (_, params) => {
    // Act
    const digest = toDigestChallenge({ scheme: 'Digest', params });

    // Assess
    expect(digest).toBeUndefined();
  });

  it('keeps opaque, domain, charset, stale and userhash as sent, whatever their case', () => {
    // Act
    const digest = toDigestChallenge({
      scheme: 'Digest',
      params: {
        realm: 'r',
        nonce: 'n',
        opaque: 'o',
        domain: '/api',
        charset: 'UTF-8',
        stale: 'TRUE',
        userhash: 'True',
        qop: ' AUTH-INT , auth ',
      },
    });

    // Assess
    expect(digest).toStrictEqual({
      realm: 'r',
      nonce: 'n',
      algorithm: 'MD5',
      qop: ['auth', 'auth-int'],
      stale: true,
      userhash: true,
      opaque: 'o',
      domain: '/api',
      charset: 'UTF-8',
    });
  });

  it('reads stale and userhash other than true as false', () => {
    // Act
    const digest = toDigestChallenge({
      scheme: 'Digest',
      params: { realm: 'r', nonce: 'n', stale: 'false', userhash: 'yes' },
    });

    // Assess
    expect(digest?.stale).toBe(false);
    expect(digest?.userhash).toBe(false);
  });
});

describe('selectDigestChallenge strength', () => {
  it('prefers SHA-512-256 to SHA-256 and keeps the first of two equals', () => {
    // Prepare
    const challenges = parseAuthenticateHeader(
      'Digest realm="a", nonce="1", algorithm=SHA-256, Digest realm="b", nonce="2", algorithm=SHA-512-256, Digest realm="c", nonce="3", algorithm=SHA-512-256-sess',
    );

    // Act
    const selected = selectDigestChallenge(challenges);

    // Assess
    expect(selected?.realm).toBe('b');
  });

  it('keeps a stronger challenge offered first over a weaker one after it', () => {
    // Prepare
    const challenges = parseAuthenticateHeader(
      'Digest realm="a", nonce="1", algorithm=SHA-256-sess, Digest realm="b", nonce="2", algorithm=MD5-sess',
    );

    // Act
    const selected = selectDigestChallenge(challenges);

    // Assess
    expect(selected?.realm).toBe('a');
  });
});
