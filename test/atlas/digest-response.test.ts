import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DigestChallenge } from '../../shared/atlas/digest-challenge.js';
import {
  computeDigestResponse,
  formatDigestAuthorization,
  formatNonceCount,
  hashCredentials,
} from '../../shared/atlas/digest-response.js';

// RFC 7616 section 3.9.1.
const RFC_7616: Omit<DigestChallenge, 'algorithm'> = {
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
  qop: ['auth', 'auth-int'],
  stale: false,
  userhash: false,
};
const RFC_7616_REQUEST = {
  username: 'Mufasa',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

describe('computeDigestResponse', () => {
  it('reproduces the MD5 example of RFC 7616 section 3.9.1', () => {
    const response = computeDigestResponse({
      ...RFC_7616_REQUEST,
      challenge: { ...RFC_7616, algorithm: 'MD5' },
    });

    expect(response).toBe('8ca523f5e9506fed4657c9700eebdbec');
  });

  it('gives the same response from a credentials hash kept from an earlier request', () => {
    const challenge: DigestChallenge = { ...RFC_7616, algorithm: 'SHA-256' };
    const credentialsHash = hashCredentials({
      ...RFC_7616_REQUEST,
      realm: challenge.realm,
      algorithm: 'SHA-256',
    });

    const response = computeDigestResponse({ ...RFC_7616_REQUEST, challenge, credentialsHash });

    expect(credentialsHash).toBe(
      createHash('sha256').update('Mufasa:http-auth@example.org:Circle of Life').digest('hex'),
    );
    expect(response).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  });

  it('reproduces the SHA-256 example of RFC 7616 section 3.9.1', () => {
    const response = computeDigestResponse({
      ...RFC_7616_REQUEST,
      challenge: { ...RFC_7616, algorithm: 'SHA-256' },
    });

    expect(response).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  });

  it('reproduces the example of RFC 2617 section 3.5', () => {
    const response = computeDigestResponse({
      challenge: {
        realm: 'testrealm@host.com',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
        opaque: '5ccc069c403ebaf9f0171e9517f40e41',
        algorithm: 'MD5',
        qop: ['auth', 'auth-int'],
        stale: false,
        userhash: false,
      },
      username: 'Mufasa',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nc: 1,
      cnonce: '0a4f113b',
    });

    expect(response).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('hashes A1 again with nonce and cnonce for a -sess algorithm', () => {
    const challenge: DigestChallenge = { ...RFC_7616, algorithm: 'MD5-sess', qop: ['auth'] };
    const ha1 = md5(`${md5('Mufasa:http-auth@example.org:Circle of Life')}:${RFC_7616.nonce}:c`);
    const ha2 = md5('GET:/dir/index.html');

    const response = computeDigestResponse({ ...RFC_7616_REQUEST, challenge, cnonce: 'c', nc: 2 });

    expect(response).toBe(md5(`${ha1}:${RFC_7616.nonce}:00000002:c:auth:${ha2}`));
  });

  it('leaves out nc, cnonce and qop for a server that offered no qop', () => {
    const challenge: DigestChallenge = { ...RFC_7616, algorithm: 'MD5', qop: [] };
    const ha1 = md5('Mufasa:http-auth@example.org:Circle of Life');

    const response = computeDigestResponse({ ...RFC_7616_REQUEST, challenge });

    expect(response).toBe(md5(`${ha1}:${RFC_7616.nonce}:${md5('GET:/dir/index.html')}`));
  });

  it('hashes the empty body into A2 when only auth-int is offered', () => {
    const challenge: DigestChallenge = { ...RFC_7616, algorithm: 'MD5', qop: ['auth-int'] };
    const ha1 = md5('Mufasa:http-auth@example.org:Circle of Life');
    const ha2 = md5(`GET:/dir/index.html:${md5('')}`);

    const response = computeDigestResponse({ ...RFC_7616_REQUEST, challenge });

    expect(response).toBe(
      md5(`${ha1}:${RFC_7616.nonce}:00000001:${RFC_7616_REQUEST.cnonce}:auth-int:${ha2}`),
    );
  });
});

describe('formatDigestAuthorization', () => {
  it('builds the Authorization field of RFC 7616 section 3.9.1 for SHA-256', () => {
    const header = formatDigestAuthorization({
      ...RFC_7616_REQUEST,
      challenge: { ...RFC_7616, algorithm: 'SHA-256' },
    });

    expect(header).toBe(
      'Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", ' +
        'uri="/dir/index.html", algorithm=SHA-256, ' +
        'response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", ' +
        'opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", qop=auth, nc=00000001, ' +
        'cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"',
    );
  });

  it('escapes quotes and backslashes inside quoted values', () => {
    const header = formatDigestAuthorization({
      ...RFC_7616_REQUEST,
      username: 'a"b\\c',
      challenge: { ...RFC_7616, algorithm: 'MD5' },
    });

    expect(header).toContain('username="a\\"b\\\\c"');
  });

  it('sends the user name hashed with the realm when the server asked for userhash', () => {
    const header = formatDigestAuthorization({
      ...RFC_7616_REQUEST,
      challenge: { ...RFC_7616, algorithm: 'MD5', userhash: true },
    });

    expect(header).toContain(`username="${md5('Mufasa:http-auth@example.org')}"`);
    expect(header).toContain('userhash=true');
    expect(header).not.toContain('"Mufasa"');
  });

  it('never puts the password in the header', () => {
    const header = formatDigestAuthorization({
      ...RFC_7616_REQUEST,
      challenge: { ...RFC_7616, algorithm: 'MD5' },
    });

    expect(header).not.toContain('Circle of Life');
  });
});

describe('formatNonceCount', () => {
  it('writes eight lower-case hex digits', () => {
    expect(formatNonceCount(1)).toBe('00000001');
    expect(formatNonceCount(26)).toBe('0000001a');
    expect(formatNonceCount(0xffffffff)).toBe('ffffffff');
  });

  it.each([0, -1, 1.5, 0x100000000])('throws a RangeError for %s', (nc) => {
    expect(() => formatNonceCount(nc)).toThrow(RangeError);
  });
});
