import { hash as oneShotHash } from 'node:crypto';

/** Digest algorithms the simulator verifies (RFC 7616 section 3.3 and the RFC 2617 MD5 family). */
export const DIGEST_ALGORITHMS = ['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'] as const;

export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];

/** What the expected `response` of a `qop=auth` digest is computed from. */
export interface DigestResponseInput {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  /** The nonce count exactly as the client sent it (8 hex digits). */
  nc: string;
  cnonce: string;
  qop: 'auth';
}

/**
 * Finds the supported algorithm that a client's `algorithm` parameter names, case-insensitively.
 * An absent parameter means MD5 (RFC 7616 section 3.3).
 *
 * @example
 * ```ts
 * toDigestAlgorithm('sha-256'); // 'SHA-256'
 * toDigestAlgorithm('SHA-512-256'); // undefined
 * ```
 */
export function toDigestAlgorithm(value: string | undefined): DigestAlgorithm | undefined {
  if (value === undefined) {
    return 'MD5';
  }
  const upper = value.toUpperCase();
  return DIGEST_ALGORITHMS.find((algorithm) => algorithm.toUpperCase() === upper);
}

/**
 * Computes the `response` a client must send for a `qop=auth` digest (RFC 7616 section 3.4.1):
 * `H(H(A1):nonce:nc:cnonce:qop:H(A2))`, where `A1` is `username:realm:password` (for `-sess`
 * algorithms, `H(username:realm:password):nonce:cnonce`) and `A2` is `method:uri`. Lower-case hex.
 * Pure; never throws.
 *
 * @example
 * ```ts
 * // RFC 7616 section 3.9.1, MD5:
 * computeDigestResponse({
 *   algorithm: 'MD5', username: 'Mufasa', realm: 'http-auth@example.org', password: 'Circle of Life',
 *   method: 'GET', uri: '/dir/index.html', qop: 'auth', nc: '00000001',
 *   nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
 *   cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
 * }); // '8ca523f5e9506fed4657c9700eebdbec'
 * ```
 */
export function computeDigestResponse(input: DigestResponseInput): string {
  const hashName = input.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5';
  const hash = (value: string): string => oneShotHash(hashName, value, 'hex');
  let ha1 = hash(`${input.username}:${input.realm}:${input.password}`);
  if (input.algorithm.endsWith('-sess')) {
    ha1 = hash(`${ha1}:${input.nonce}:${input.cnonce}`);
  }
  const ha2 = hash(`${input.method}:${input.uri}`);
  return hash(`${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`);
}
