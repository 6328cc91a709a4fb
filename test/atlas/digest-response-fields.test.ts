import { describe, expect, it } from 'vitest';
import type { DigestChallenge } from '../../shared/atlas/digest-challenge.js';
import {
  chooseQop,
  formatDigestAuthorization,
  formatNonceCount,
} from '../../shared/atlas/digest-response.js';

const REQUEST = {
  username: 'alice',
  password: 'fake-password',
  method: 'GET',
  uri: '/api/atlas/v2/orgs/5f4e3d2c1b0a998877665544/events',
  nc: 1,
  cnonce: 'fake-cnonce',
};

function challenge(overrides: Partial<DigestChallenge> = {}): DigestChallenge {
  return {
    realm: 'MMS Public API',
    nonce: 'fake-nonce',
    algorithm: 'MD5',
    qop: ['auth'],
    stale: false,
    userhash: false,
    ...overrides,
  };
}

/** The parameter names of an Authorization field, in order. */
function names(header: string): string[] {
  return [...header.matchAll(/(?:^Digest |, )([a-z]+)=/g)].map((match) => match[1] ?? '');
}

describe('formatDigestAuthorization fields', () => {
  it('sends no qop, nc or cnonce to a server that offered no qop', () => {
    // Act
    const header = formatDigestAuthorization({ ...REQUEST, challenge: challenge({ qop: [] }) });

    // Assess
    expect(names(header)).toEqual(['username', 'realm', 'nonce', 'uri', 'algorithm', 'response']);
    expect(header).not.toContain('undefined');
  });

  it('sends no opaque when the server sent none', () => {
    // Act
    const header = formatDigestAuthorization({ ...REQUEST, challenge: challenge() });

    // Assess
    expect(names(header)).toEqual([
      'username',
      'realm',
      'nonce',
      'uri',
      'algorithm',
      'response',
      'qop',
      'nc',
      'cnonce',
    ]);
    expect(header).toMatch(/, qop=auth, nc=00000001, cnonce="fake-cnonce"$/);
  });

  it('echoes the opaque the server sent, quoted', () => {
    // Act
    const header = formatDigestAuthorization({ ...REQUEST, challenge: challenge({ opaque: 'op"aque' }) });

    // Assess
    expect(header).toContain(', opaque="op\\"aque", qop=auth, ');
  });

  it('answers auth-int when it is the only qop offered', () => {
    // Act
    const header = formatDigestAuthorization({ ...REQUEST, challenge: challenge({ qop: ['auth-int'] }) });

    // Assess
    expect(header).toContain(', qop=auth-int, nc=00000001, ');
    expect(chooseQop(challenge({ qop: ['auth-int', 'auth'] }))).toBe('auth');
    expect(chooseQop(challenge({ qop: [] }))).toBeUndefined();
  });
});

describe('formatNonceCount range', () => {
  it('says what range the nonce count must be in', () => {
    // Act
    const act = (): string => formatNonceCount(0);

    // Assess
    expect(act).toThrow('nonce count must be an integer from 1 to 4294967295, got 0');
  });
});
