/**
 * Parsing of `WWW-Authenticate` (RFC 9110 section 11.6.1) and selection of the Digest challenge to answer
 * (RFC 7616 section 3.3). Pure functions: no I/O, no clock.
 */

/** One challenge of a `WWW-Authenticate` field: a scheme and either auth-params or a token68. */
export interface AuthChallenge {
  /** The scheme as sent (`Digest`, `Basic`, `Bearer`...); compare it case-insensitively. */
  scheme: string;
  /** Parameters by lower-cased name, quoted-strings unescaped. The first occurrence of a name wins. */
  params: Record<string, string>;
  /** The token68 form (`Negotiate abc==`), when the challenge has one instead of parameters. */
  token68?: string;
}

/** The hash algorithms of RFC 7616 section 3.3 this client answers. */
export const DIGEST_ALGORITHMS = [
  'MD5',
  'MD5-sess',
  'SHA-256',
  'SHA-256-sess',
  'SHA-512-256',
  'SHA-512-256-sess',
] as const;

export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];

export type DigestQop = 'auth' | 'auth-int';

/** A Digest challenge this client can answer, with its parameters checked. */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: DigestAlgorithm;
  /** The qop values offered; empty for an RFC 2069 server, which expects no qop, nc or cnonce. */
  qop: DigestQop[];
  /** `stale=true`: the nonce expired but the credentials were right; answer again with the new nonce. */
  stale: boolean;
  /** `userhash=true`: the server accepts the user name hashed with the realm. */
  userhash: boolean;
  domain?: string;
  charset?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

/**
 * Splits `WWW-Authenticate` field values into challenges. Handles several challenges in one field,
 * several fields (pass the array undici gives), commas inside quoted strings, escaped quotes, token68
 * challenges and stray whitespace or empty list elements. Malformed tails are dropped rather than
 * guessed at: the challenges parsed before them are kept.
 *
 * @param header - The field value, or one value per field line; `undefined` gives no challenges.
 * @returns The challenges in the order the server sent them. Never throws.
 *
 * @example
 * ```ts
 * parseAuthenticateHeader('Basic realm="x", Digest realm="a, b", nonce="n", qop="auth,auth-int"');
 * // [{ scheme: 'Basic', params: { realm: 'x' } },
 * //  { scheme: 'Digest', params: { realm: 'a, b', nonce: 'n', qop: 'auth,auth-int' } }]
 * ```
 */
export function parseAuthenticateHeader(header: string | readonly string[] | undefined): AuthChallenge[] {
  if (header === undefined) {
    return [];
  }
  const values = typeof header === 'string' ? [header] : header;
  return values.flatMap((value) => new ChallengeScanner(value).challenges());
}

/**
 * Turns a parsed challenge into a {@link DigestChallenge} when it is one this client can answer: scheme
 * Digest, a realm and a nonce, a supported algorithm (MD5 when absent), and either no qop or one that
 * includes `auth` or `auth-int`. Unknown parameters are ignored. A challenge with `op` and no `qop` is
 * read as if `op` were `qop`: one published Atlas example spells it that way, and a server that wants
 * no qop would not send `op` either.
 *
 * @returns The Digest challenge, or `undefined` when it cannot be answered. Never throws.
 *
 * @example
 * ```ts
 * toDigestChallenge({ scheme: 'Digest', params: { realm: 'MMS Public API', nonce: 'n', qop: 'auth' } });
 * // { realm: 'MMS Public API', nonce: 'n', algorithm: 'MD5', qop: ['auth'], stale: false, userhash: false }
 * ```
 */
export function toDigestChallenge(challenge: AuthChallenge): DigestChallenge | undefined {
  if (challenge.scheme.toLowerCase() !== 'digest') {
    return undefined;
  }
  const { params } = challenge;
  const { realm, nonce } = params;
  if (realm === undefined || nonce === undefined || nonce === '') {
    return undefined;
  }
  const algorithm = matchAlgorithm(params.algorithm ?? 'MD5');
  if (algorithm === undefined) {
    return undefined;
  }
  const qopParam = params.qop ?? params.op;
  let qop: DigestQop[] = [];
  if (qopParam !== undefined) {
    const offered = qopParam.split(',').map((value) => value.trim().toLowerCase());
    qop = (['auth', 'auth-int'] as const).filter((value) => offered.includes(value));
    if (qop.length === 0) {
      return undefined;
    }
  }
  const result: DigestChallenge = {
    realm,
    nonce,
    algorithm,
    qop,
    stale: params.stale?.toLowerCase() === 'true',
    userhash: params.userhash?.toLowerCase() === 'true',
  };
  if (params.opaque !== undefined) {
    result.opaque = params.opaque;
  }
  if (params.domain !== undefined) {
    result.domain = params.domain;
  }
  if (params.charset !== undefined) {
    result.charset = params.charset;
  }
  return result;
}

const ALGORITHM_STRENGTH: Record<DigestAlgorithm, number> = {
  MD5: 1,
  'MD5-sess': 1,
  'SHA-256': 2,
  'SHA-256-sess': 2,
  'SHA-512-256': 3,
  'SHA-512-256-sess': 3,
};

/**
 * Picks the Digest challenge to answer among those a server offered: the strongest algorithm, and among
 * equals the first sent. RFC 7616 section 3.7 lets local policy override server order; never picking
 * MD5 when SHA-256 is on offer is that policy.
 *
 * @returns The challenge to answer, or `undefined` when none can be answered. Never throws.
 *
 * @example
 * ```ts
 * const challenge = selectDigestChallenge(parseAuthenticateHeader(response.headers['www-authenticate']));
 * ```
 */
export function selectDigestChallenge(challenges: readonly AuthChallenge[]): DigestChallenge | undefined {
  let best: DigestChallenge | undefined;
  for (const challenge of challenges) {
    const digest = toDigestChallenge(challenge);
    if (digest && (!best || ALGORITHM_STRENGTH[digest.algorithm] > ALGORITHM_STRENGTH[best.algorithm])) {
      best = digest;
    }
  }
  return best;
}

function matchAlgorithm(name: string): DigestAlgorithm | undefined {
  const lower = name.toLowerCase();
  return DIGEST_ALGORITHMS.find((algorithm) => algorithm.toLowerCase() === lower);
}

/** A cursor over one field value; each method consumes what it recognises and leaves the rest. */
class ChallengeScanner {
  readonly #text: string;
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
  }

  challenges(): AuthChallenge[] {
    const result: AuthChallenge[] = [];
    let current: AuthChallenge | undefined;
    for (;;) {
      this.#skipSeparators();
      if (this.#pos >= this.#text.length) {
        break;
      }
      const start = this.#pos;
      const param = this.#authParam();
      if (param === 'malformed') {
        break;
      }
      if (param !== undefined) {
        if (current && !(param.name in current.params)) {
          current.params[param.name] = param.value;
        }
        continue;
      }
      this.#pos = start;
      const scheme = this.#token();
      if (scheme === '') {
        break;
      }
      current = { scheme, params: Object.create(null) as Record<string, string> };
      result.push(current);
      this.#skipSpaces();
      const token68Start = this.#pos;
      const token68 = this.#token68();
      if (token68 !== '' && this.#atElementEnd()) {
        current.token68 = token68;
        current = undefined;
      } else {
        this.#pos = token68Start;
      }
    }
    return result;
  }

  /** An auth-param at the cursor; `undefined` when there is none, `'malformed'` when one is broken. */
  #authParam(): { name: string; value: string } | 'malformed' | undefined {
    const name = this.#token();
    if (name === '') {
      return undefined;
    }
    this.#skipSpaces();
    if (this.#text[this.#pos] !== '=') {
      return undefined;
    }
    this.#pos += 1;
    this.#skipSpaces();
    if (this.#text[this.#pos] === '=') {
      // `scheme token68==`: the equals signs end a token68, they do not start a value.
      return undefined;
    }
    const value = this.#text[this.#pos] === '"' ? this.#quotedString() : this.#token();
    if (value === undefined || !this.#atElementEnd()) {
      return 'malformed';
    }
    return { name: name.toLowerCase(), value };
  }

  #quotedString(): string | undefined {
    let value = '';
    this.#pos += 1;
    while (this.#pos < this.#text.length) {
      const char = this.#text[this.#pos] ?? '';
      this.#pos += 1;
      if (char === '"') {
        return value;
      }
      if (char === '\\' && this.#pos < this.#text.length) {
        value += this.#text[this.#pos];
        this.#pos += 1;
      } else {
        value += char;
      }
    }
    return undefined;
  }

  #token(): string {
    const start = this.#pos;
    while (this.#pos < this.#text.length && TCHAR.test(this.#text[this.#pos] ?? '')) {
      this.#pos += 1;
    }
    return this.#text.slice(start, this.#pos);
  }

  #token68(): string {
    const start = this.#pos;
    while (this.#pos < this.#text.length && TOKEN68_CHAR.test(this.#text[this.#pos] ?? '')) {
      this.#pos += 1;
    }
    if (this.#pos === start) {
      return '';
    }
    while (this.#text[this.#pos] === '=') {
      this.#pos += 1;
    }
    return this.#text.slice(start, this.#pos);
  }

  #atElementEnd(): boolean {
    this.#skipSpaces();
    return this.#pos >= this.#text.length || this.#text[this.#pos] === ',';
  }

  #skipSpaces(): void {
    while (this.#text[this.#pos] === ' ' || this.#text[this.#pos] === '\t') {
      this.#pos += 1;
    }
  }

  #skipSeparators(): void {
    while (this.#text[this.#pos] === ' ' || this.#text[this.#pos] === '\t' || this.#text[this.#pos] === ',') {
      this.#pos += 1;
    }
  }
}
