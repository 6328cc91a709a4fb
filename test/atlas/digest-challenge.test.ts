import { describe, expect, it } from 'vitest';
import {
  parseAuthenticateHeader,
  selectDigestChallenge,
  toDigestChallenge,
} from '../../shared/atlas/digest-challenge.js';

const ATLAS_CHALLENGE =
  'Digest realm="MMS Public API", domain="", nonce="Gv5yDmLVRHDWX2xT4ZsdWM8T2bJhc2vk", algorithm=MD5, qop="auth", stale=false';

describe('parseAuthenticateHeader', () => {
  it('reads the challenge Atlas documents', () => {
    const challenges = parseAuthenticateHeader(ATLAS_CHALLENGE);

    expect(challenges).toEqual([
      {
        scheme: 'Digest',
        params: {
          realm: 'MMS Public API',
          domain: '',
          nonce: 'Gv5yDmLVRHDWX2xT4ZsdWM8T2bJhc2vk',
          algorithm: 'MD5',
          qop: 'auth',
          stale: 'false',
        },
      },
    ]);
  });

  it('splits several challenges in one field and keeps commas inside quoted strings', () => {
    const header =
      'Basic realm="a, b", Digest realm="x,y", nonce="n1", qop="auth,auth-int", algorithm=SHA-256, Bearer realm="z"';

    const challenges = parseAuthenticateHeader(header);

    expect(challenges.map((challenge) => challenge.scheme)).toEqual(['Basic', 'Digest', 'Bearer']);
    expect(challenges[0]?.params).toEqual({ realm: 'a, b' });
    expect(challenges[1]?.params).toEqual({
      realm: 'x,y',
      nonce: 'n1',
      qop: 'auth,auth-int',
      algorithm: 'SHA-256',
    });
  });

  it('reads one challenge per field line when given several lines', () => {
    const challenges = parseAuthenticateHeader([
      'Digest realm="r", nonce="a", algorithm=SHA-256',
      'Digest realm="r", nonce="b", algorithm=MD5',
    ]);

    expect(challenges.map((challenge) => challenge.params.nonce)).toEqual(['a', 'b']);
  });

  it('unescapes quoted pairs and lower-cases parameter names', () => {
    const challenges = parseAuthenticateHeader('Newauth REALM="apps", title="Login to \\"apps\\""');

    expect(challenges[0]?.params).toEqual({ realm: 'apps', title: 'Login to "apps"' });
  });

  it('reads token68 challenges and tolerates empty list elements and extra spaces', () => {
    const challenges = parseAuthenticateHeader(' , Negotiate abc+/9==  ,, Digest  realm = "r" , nonce="n" ,');

    expect(challenges).toEqual([
      { scheme: 'Negotiate', params: {}, token68: 'abc+/9==' },
      { scheme: 'Digest', params: { realm: 'r', nonce: 'n' } },
    ]);
  });

  it('keeps the first value of a repeated parameter', () => {
    const challenges = parseAuthenticateHeader('Digest realm="first", realm="second", nonce="n"');

    expect(challenges[0]?.params.realm).toBe('first');
  });

  it('drops a malformed tail and keeps what came before it', () => {
    const challenges = parseAuthenticateHeader('Digest realm="r", nonce="n", opaque="never closed');

    expect(challenges).toEqual([{ scheme: 'Digest', params: { realm: 'r', nonce: 'n' } }]);
  });

  it('gives no challenges for an absent or empty header', () => {
    expect(parseAuthenticateHeader(undefined)).toEqual([]);
    expect(parseAuthenticateHeader('')).toEqual([]);
  });

  it('does not let a parameter named __proto__ change the prototype', () => {
    const challenges = parseAuthenticateHeader('Digest __proto__="x", realm="r", nonce="n"');

    expect(Object.getOwnPropertyDescriptor(challenges[0]?.params, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(challenges[0]?.params)).toBeNull();
    expect(toDigestChallenge(challenges[0] ?? { scheme: '', params: {} })?.realm).toBe('r');
  });
});

describe('toDigestChallenge', () => {
  it('turns the Atlas challenge into MD5 with qop auth, not stale', () => {
    const [challenge] = parseAuthenticateHeader(ATLAS_CHALLENGE);

    const digest = challenge && toDigestChallenge(challenge);

    expect(digest).toEqual({
      realm: 'MMS Public API',
      nonce: 'Gv5yDmLVRHDWX2xT4ZsdWM8T2bJhc2vk',
      algorithm: 'MD5',
      qop: ['auth'],
      stale: false,
      userhash: false,
      domain: '',
    });
  });

  it('lists both qop values of qop="auth,auth-int"', () => {
    const [challenge] = parseAuthenticateHeader('Digest realm="r", nonce="n", qop="auth-int, auth"');

    expect(challenge && toDigestChallenge(challenge)?.qop).toEqual(['auth', 'auth-int']);
  });

  it('reads op as qop when qop is absent, as in the published Atlas example', () => {
    const [withOp] = parseAuthenticateHeader('Digest realm="r", nonce="n", op="auth"');
    const [withBoth] = parseAuthenticateHeader('Digest realm="r", nonce="n", op="bogus", qop="auth-int"');

    expect(withOp && toDigestChallenge(withOp)?.qop).toEqual(['auth']);
    expect(withBoth && toDigestChallenge(withBoth)?.qop).toEqual(['auth-int']);
  });

  it('ignores unknown parameters and matches the algorithm without regard to case', () => {
    const [challenge] = parseAuthenticateHeader(
      'DIGEST realm="r", nonce="n", algorithm=sha-256-SESS, qop=auth, flavour="x", stale=TRUE, userhash=true',
    );

    const digest = challenge && toDigestChallenge(challenge);

    expect(digest).toMatchObject({ algorithm: 'SHA-256-sess', stale: true, userhash: true, qop: ['auth'] });
  });

  it('defaults the algorithm to MD5 and keeps an RFC 2069 challenge without qop', () => {
    const [challenge] = parseAuthenticateHeader('Digest realm="r", nonce="n"');

    expect(challenge && toDigestChallenge(challenge)).toMatchObject({ algorithm: 'MD5', qop: [] });
  });

  it.each([
    ['another scheme', 'Basic realm="r"'],
    ['no nonce', 'Digest realm="r", qop="auth"'],
    ['no realm', 'Digest nonce="n", qop="auth"'],
    ['an unsupported algorithm', 'Digest realm="r", nonce="n", algorithm=SHA-1'],
    ['an unsupported qop', 'Digest realm="r", nonce="n", qop="auth-conf"'],
  ])('refuses a challenge with %s', (_label, header) => {
    const [challenge] = parseAuthenticateHeader(header);

    expect(challenge && toDigestChallenge(challenge)).toBeUndefined();
  });
});

describe('selectDigestChallenge', () => {
  it('prefers SHA-256 to MD5 whatever the order offered', () => {
    const challenges = parseAuthenticateHeader([
      'Digest realm="r", nonce="md5", algorithm=MD5, qop="auth"',
      'Digest realm="r", nonce="sha", algorithm=SHA-256, qop="auth"',
    ]);

    expect(selectDigestChallenge(challenges)?.nonce).toBe('sha');
  });

  it('keeps the server order between equally strong challenges and skips ones it cannot answer', () => {
    const challenges = parseAuthenticateHeader(
      'Digest realm="r", nonce="bad", algorithm=SHA-1, Digest realm="r", nonce="a", algorithm=MD5-sess, Digest realm="r", nonce="b", algorithm=MD5',
    );

    expect(selectDigestChallenge(challenges)?.nonce).toBe('a');
  });

  it('gives undefined when nothing can be answered', () => {
    expect(selectDigestChallenge(parseAuthenticateHeader('Bearer realm="atlas"'))).toBeUndefined();
  });
});
