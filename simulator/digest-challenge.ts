/** The realm Atlas and Ops Manager name in their digest challenges. */
export const ATLAS_DIGEST_REALM = 'MMS Public API';

/**
 * Formats one `WWW-Authenticate` value exactly as the API documents it:
 * `Digest realm="MMS Public API", domain="", nonce="...", algorithm=MD5, qop="auth", stale=false`.
 *
 * @example
 * ```ts
 * formatDigestChallenge({ nonce: 'abc', algorithm: 'MD5', stale: true });
 * // 'Digest realm="MMS Public API", domain="", nonce="abc", algorithm=MD5, qop="auth", stale=true'
 * ```
 */
export function formatDigestChallenge(options: { nonce: string; algorithm: string; stale: boolean }): string {
  return `Digest realm="${ATLAS_DIGEST_REALM}", domain="", nonce="${options.nonce}", algorithm=${options.algorithm}, qop="auth", stale=${options.stale}`;
}
