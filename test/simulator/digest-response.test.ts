import { describe, expect, it } from 'vitest';
import { parseDigestAuthorization } from '../../simulator/digest-authorization.js';
import { formatDigestChallenge } from '../../simulator/digest-challenge.js';
import { computeDigestResponse, toDigestAlgorithm } from '../../simulator/digest-response.js';

// RFC 7616 section 3.9.1.
const rfcExample = {
  username: 'Mufasa',
  realm: 'http-auth@example.org',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  nc: '00000001',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  qop: 'auth',
} as const;

describe('computeDigestResponse', () => {
  it('reproduces the RFC 7616 MD5 example', () => {
    const response = computeDigestResponse({ ...rfcExample, algorithm: 'MD5' });

    expect(response).toBe('8ca523f5e9506fed4657c9700eebdbec');
  });

  it('reproduces the RFC 7616 SHA-256 example', () => {
    const response = computeDigestResponse({ ...rfcExample, algorithm: 'SHA-256' });

    expect(response).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  });

  it('gives -sess variants a different response from their base algorithm', () => {
    const md5 = computeDigestResponse({ ...rfcExample, algorithm: 'MD5' });

    const md5Sess = computeDigestResponse({ ...rfcExample, algorithm: 'MD5-sess' });

    expect(md5Sess).toMatch(/^[0-9a-f]{32}$/);
    expect(md5Sess).not.toBe(md5);
  });
});

describe('toDigestAlgorithm', () => {
  it('reads algorithm names case-insensitively and defaults to MD5', () => {
    const names = [undefined, 'md5', 'sha-256-SESS', 'SHA-512-256'].map(toDigestAlgorithm);

    expect(names).toEqual(['MD5', 'MD5', 'SHA-256-sess', undefined]);
  });
});

describe('parseDigestAuthorization', () => {
  it('reads quoted values with commas and escapes, and tokens', () => {
    const params = parseDigestAuthorization(
      'Digest username="a\\"b", realm="MMS Public API", uri="/x?a=1,2", nc=00000001 , qop=auth,response="ff"',
    );

    expect(params).toEqual({
      username: 'a"b',
      realm: 'MMS Public API',
      uri: '/x?a=1,2',
      nc: '00000001',
      qop: 'auth',
      response: 'ff',
    });
  });

  it('lower-cases parameter names and keeps the first of a repeated name', () => {
    const params = parseDigestAuthorization('digest UserName="first", username="second"');

    expect(params).toEqual({ username: 'first' });
  });

  it('returns undefined for another scheme or a malformed header', () => {
    const results = ['Basic abc', 'Digest username="unterminated', 'Digest =x'].map(parseDigestAuthorization);

    expect(results).toEqual([undefined, undefined, undefined]);
  });
});

describe('formatDigestChallenge', () => {
  it('writes the challenge exactly as the API documents it', () => {
    const challenge = formatDigestChallenge({ nonce: 'n0nce', algorithm: 'MD5', stale: false });

    expect(challenge).toBe(
      'Digest realm="MMS Public API", domain="", nonce="n0nce", algorithm=MD5, qop="auth", stale=false',
    );
  });
});
