/**
 * The client side of RFC 7616 Digest: the `response` hash (section 3.4.1) and the `Authorization` field
 * that carries it (section 3.4). Pure functions: the caller supplies the nonce count and the cnonce.
 */
import { hash as oneShotHash } from 'node:crypto';
import type { DigestAlgorithm, DigestChallenge, DigestQop } from './digest-challenge.js';

/** What {@link computeDigestResponse} and {@link formatDigestAuthorization} need for one request. */
export interface DigestResponseInput {
  challenge: DigestChallenge;
  username: string;
  password: string;
  /** HTTP method, upper case. */
  method: string;
  /** The request-target exactly as sent: path and query. */
  uri: string;
  /** Nonce count: how many requests this nonce has signed, this one included (1 for the first). */
  nc: number;
  /** The client nonce: fresh random text for every request. Ignored when the challenge has no qop. */
  cnonce: string;
  /** The body for `qop=auth-int`; the empty body when absent. */
  entityBody?: string | Uint8Array;
}

const NODE_HASH: Record<DigestAlgorithm, string> = {
  MD5: 'md5',
  'MD5-sess': 'md5',
  'SHA-256': 'sha256',
  'SHA-256-sess': 'sha256',
  'SHA-512-256': 'sha512-256',
  'SHA-512-256-sess': 'sha512-256',
};

/**
 * The qop this client answers a challenge with: `auth` when offered, else `auth-int`, else none
 * (an RFC 2069 server).
 *
 * @example
 * ```ts
 * chooseQop(challenge); // 'auth'
 * ```
 */
export function chooseQop(challenge: DigestChallenge): DigestQop | undefined {
  return challenge.qop.includes('auth') ? 'auth' : challenge.qop[0];
}

/**
 * The nonce count as sent on the wire: eight lower-case hex digits.
 *
 * @throws RangeError when `nc` is not an integer from 1 to 0xffffffff.
 *
 * @example
 * ```ts
 * formatNonceCount(26); // '0000001a'
 * ```
 */
export function formatNonceCount(nc: number): string {
  if (!Number.isInteger(nc) || nc < 1 || nc > 0xffffffff) {
    throw new RangeError(`nonce count must be an integer from 1 to 4294967295, got ${nc}`);
  }
  return nc.toString(16).padStart(8, '0');
}

/**
 * Computes the `response` parameter of RFC 7616 section 3.4.1: `KD(H(A1), nonce:nc:cnonce:qop:H(A2))`
 * with `qop`, or `KD(H(A1), nonce:H(A2))` without (RFC 2069). The `-sess` algorithms hash A1 again with
 * the nonce and cnonce.
 *
 * @returns Lower-case hex digest.
 * @throws RangeError when `nc` is out of range (see {@link formatNonceCount}).
 *
 * @example
 * ```ts
 * computeDigestResponse({ challenge, username: 'Mufasa', password: 'Circle of Life', method: 'GET',
 *   uri: '/dir/index.html', nc: 1, cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ' });
 * // '8ca523f5e9506fed4657c9700eebdbec' for the MD5 challenge of RFC 7616 section 3.9.1
 * ```
 */
export function computeDigestResponse(input: DigestResponseInput): string {
  const { challenge } = input;
  const algorithm = NODE_HASH[challenge.algorithm];
  // The one-shot hash costs a fifth of createHash().update().digest(): it runs once per request.
  const hash = (text: string | Uint8Array): string => oneShotHash(algorithm, text, 'hex');
  const qop = chooseQop(challenge);
  let ha1 = hash(`${input.username}:${challenge.realm}:${input.password}`);
  if (challenge.algorithm.endsWith('-sess')) {
    ha1 = hash(`${ha1}:${challenge.nonce}:${input.cnonce}`);
  }
  const a2 =
    qop === 'auth-int'
      ? `${input.method}:${input.uri}:${hash(input.entityBody ?? '')}`
      : `${input.method}:${input.uri}`;
  const ha2 = hash(a2);
  if (qop === undefined) {
    return hash(`${ha1}:${challenge.nonce}:${ha2}`);
  }
  return hash(`${ha1}:${challenge.nonce}:${formatNonceCount(input.nc)}:${input.cnonce}:${qop}:${ha2}`);
}

/**
 * Builds the value of the `Authorization` field answering `challenge` (RFC 7616 section 3.4): the
 * scheme, the user name (hashed with the realm when the server asked for `userhash`), realm, uri,
 * algorithm, nonce, nc, cnonce, qop, response and the server's opaque echoed back.
 *
 * @throws RangeError when `nc` is out of range (see {@link formatNonceCount}).
 *
 * @example
 * ```ts
 * headers.authorization = formatDigestAuthorization({ challenge, username, password, method: 'GET',
 *   uri: '/api/atlas/v2/orgs/5f4e3d2c1b0a998877665544/events', nc: 1, cnonce: randomCnonce() });
 * ```
 */
export function formatDigestAuthorization(input: DigestResponseInput): string {
  const { challenge } = input;
  const qop = chooseQop(challenge);
  const username = challenge.userhash
    ? oneShotHash(NODE_HASH[challenge.algorithm], `${input.username}:${challenge.realm}`, 'hex')
    : input.username;
  const params = [
    `username=${quote(username)}`,
    `realm=${quote(challenge.realm)}`,
    `nonce=${quote(challenge.nonce)}`,
    `uri=${quote(input.uri)}`,
    `algorithm=${challenge.algorithm}`,
    `response=${quote(computeDigestResponse(input))}`,
  ];
  if (challenge.opaque !== undefined) {
    params.push(`opaque=${quote(challenge.opaque)}`);
  }
  if (qop !== undefined) {
    params.push(`qop=${qop}`, `nc=${formatNonceCount(input.nc)}`, `cnonce=${quote(input.cnonce)}`);
  }
  if (challenge.userhash) {
    params.push('userhash=true');
  }
  return `Digest ${params.join(', ')}`;
}

const NEEDS_ESCAPE = /[\\"]/;

function quote(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
