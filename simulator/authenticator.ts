import { timingSafeEqual } from 'node:crypto';
import { parseDigestAuthorization } from './digest-authorization.js';
import { ATLAS_DIGEST_REALM } from './digest-challenge.js';
import { computeDigestResponse, toDigestAlgorithm } from './digest-response.js';
import type { NonceRegistry } from './nonce-registry.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import type { Principal, SimulatorData } from './simulator-data.js';

/** The outcome of checking a request's `Authorization` header. */
export type AuthResult =
  | { readonly kind: 'authenticated'; readonly principal: Principal; readonly nonce: string | undefined }
  | {
      readonly kind: 'challenge';
      /** The credentials were right but the nonce expired or is unknown: answer `stale=true`. */
      readonly stale: boolean;
      /** Credentials were sent and refused (counted as an auth failure). */
      readonly failed: boolean;
    };

const REQUIRED_DIGEST_PARAMS = [
  'username',
  'realm',
  'nonce',
  'uri',
  'response',
  'qop',
  'nc',
  'cnonce',
] as const;

function equalHex(a: string, b: string): boolean {
  const left = Buffer.from(a.toLowerCase());
  const right = Buffer.from(b.toLowerCase());
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks digest credentials of API keys (RFC 7616 with `qop=auth`: MD5, MD5-sess, SHA-256,
 * SHA-256-sess) and bearer tokens of service accounts. This is the simulator's own digest code, kept
 * apart from the client's so tests compare two independent implementations.
 */
export class Authenticator {
  private readonly data: SimulatorData;
  private readonly nonces: NonceRegistry;
  private readonly tokens: OAuthTokenStore;

  constructor(options: { data: SimulatorData; nonces: NonceRegistry; tokens: OAuthTokenStore }) {
    this.data = options.data;
    this.nonces = options.nonces;
    this.tokens = options.tokens;
  }

  /**
   * Decides whether a request is authenticated. `uri` is the request target exactly as received,
   * which the digest `uri` parameter must repeat. Never throws.
   */
  authenticate(header: string | undefined, method: string, uri: string): AuthResult {
    if (header === undefined || header.trim() === '') {
      return { kind: 'challenge', stale: false, failed: false };
    }
    const bearer = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer) {
      const principal = this.tokens.lookup(bearer[1] as string);
      return principal === undefined
        ? { kind: 'challenge', stale: false, failed: true }
        : { kind: 'authenticated', principal, nonce: undefined };
    }
    return this.authenticateDigest(header, method, uri);
  }

  private authenticateDigest(header: string, method: string, uri: string): AuthResult {
    const refused: AuthResult = { kind: 'challenge', stale: false, failed: true };
    const params = parseDigestAuthorization(header);
    if (params === undefined || REQUIRED_DIGEST_PARAMS.some((name) => params[name] === undefined))
      return refused;
    const { username, realm, nonce, response, qop, nc, cnonce } = params as Record<
      (typeof REQUIRED_DIGEST_PARAMS)[number],
      string
    >;
    const algorithm = toDigestAlgorithm(params.algorithm);
    if (
      algorithm === undefined ||
      realm !== ATLAS_DIGEST_REALM ||
      qop.toLowerCase() !== 'auth' ||
      params.uri !== uri ||
      !/^[0-9a-fA-F]{8}$/.test(nc)
    ) {
      return refused;
    }
    const principal = this.data.apiKeysByPublicKey.get(username);
    if (principal === undefined) return refused;
    const expected = computeDigestResponse({
      algorithm,
      username,
      realm,
      password: principal.secret,
      method,
      uri,
      nonce,
      nc,
      cnonce,
      qop: 'auth',
    });
    if (!equalHex(expected, response)) return refused;
    const use = this.nonces.use(nonce, Number.parseInt(nc, 16));
    if (use === 'stale') return { kind: 'challenge', stale: true, failed: false };
    if (use === 'replayed') return refused;
    return { kind: 'authenticated', principal, nonce };
  }
}
