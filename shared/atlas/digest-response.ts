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
  /**
   * `H(username:realm:password)` from {@link hashCredentials}, when the caller kept it from an earlier
   * request to the same realm with the same algorithm: it is the same for every request they sign.
   */
  credentialsHash?: string;
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
  const qop = chooseQop(input.challenge);
  return digestResponse(input, qop, qop === undefined ? '' : formatNonceCount(input.nc));
}

/**
 * `H(username:realm:password)`, the part of H(A1) that stays the same from request to request: every
 * request signed for one realm with one algorithm can reuse it.
 *
 * @example
 * ```ts
 * hashCredentials({ algorithm: 'MD5', username: 'Mufasa', realm: 'http-auth@example.org', password: 'Circle of Life' });
 * ```
 */
export function hashCredentials(input: {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
}): string {
  return hash(NODE_HASH[input.algorithm], `${input.username}:${input.realm}:${input.password}`);
}

/** The response hash, its qop chosen and its nonce count formatted (empty without qop). */
function digestResponse(input: DigestResponseInput, qop: DigestQop | undefined, nc: string): string {
  const { challenge } = input;
  const algorithm = NODE_HASH[challenge.algorithm];
  let ha1 =
    input.credentialsHash ??
    hashCredentials({
      algorithm: challenge.algorithm,
      username: input.username,
      realm: challenge.realm,
      password: input.password,
    });
  if (challenge.algorithm.endsWith('-sess')) {
    ha1 = hash(algorithm, `${ha1}:${challenge.nonce}:${input.cnonce}`);
  }
  const a2 =
    qop === 'auth-int'
      ? `${input.method}:${input.uri}:${hash(algorithm, input.entityBody ?? '')}`
      : `${input.method}:${input.uri}`;
  const ha2 = hash(algorithm, a2);
  if (qop === undefined) {
    return hash(algorithm, `${ha1}:${challenge.nonce}:${ha2}`);
  }
  return hash(algorithm, `${ha1}:${challenge.nonce}:${nc}:${input.cnonce}:${qop}:${ha2}`);
}

/** Lower-case hex digest. The one-shot hash costs a fifth of createHash().update().digest(). */
function hash(algorithm: string, data: string | Uint8Array): string {
  return oneShotHash(algorithm, data, 'hex');
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
  const nc = qop === undefined ? '' : formatNonceCount(input.nc);
  const username = challenge.userhash
    ? hash(NODE_HASH[challenge.algorithm], `${input.username}:${challenge.realm}`)
    : input.username;
  let header =
    `Digest username=${quote(username)}, realm=${quote(challenge.realm)}, nonce=${quote(challenge.nonce)}, ` +
    `uri=${quote(input.uri)}, algorithm=${challenge.algorithm}, response="${digestResponse(input, qop, nc)}"`;
  if (challenge.opaque !== undefined) {
    header += `, opaque=${quote(challenge.opaque)}`;
  }
  if (qop !== undefined) {
    header += `, qop=${qop}, nc=${nc}, cnonce=${quote(input.cnonce)}`;
  }
  if (challenge.userhash) {
    header += ', userhash=true';
  }
  return header;
}

function quote(value: string): string {
  if (!value.includes('"') && !value.includes('\\')) return `"${value}"`;
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
