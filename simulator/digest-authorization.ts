/** The parameters of an `Authorization: Digest ...` header, names lower-cased. */
export type DigestParams = Readonly<Record<string, string>>;

/** A run of token characters, matched from `lastIndex`. */
const TOKEN_RUN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]*/y;

/**
 * Parses the value of an `Authorization` header that uses the Digest scheme (RFC 7616 section 3.4):
 * comma-separated `name=token` or `name="quoted string"` pairs, backslash escapes inside quotes,
 * whitespace around separators. Parameter names are returned lower-cased; a repeated name keeps its
 * first value.
 *
 * Returns `undefined` when the header does not use the Digest scheme or cannot be parsed: the caller
 * answers such a request with a fresh challenge. Never throws.
 *
 * @example
 * ```ts
 * parseDigestAuthorization('Digest username="k", nc=00000001, qop=auth');
 * // { username: 'k', nc: '00000001', qop: 'auth' }
 * ```
 */
export function parseDigestAuthorization(header: string): DigestParams | undefined {
  const match = /^\s*digest\s+/i.exec(header);
  if (!match) {
    return undefined;
  }
  const params: Record<string, string> = {};
  const text = header;
  let i = match[0].length;
  while (i < text.length) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === ',')) i++;
    if (i >= text.length) break;
    const nameStart = i;
    TOKEN_RUN.lastIndex = i;
    TOKEN_RUN.test(text);
    i = TOKEN_RUN.lastIndex;
    const name = text.slice(nameStart, i).toLowerCase();
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (name === '' || text[i] !== '=') {
      return undefined;
    }
    i++;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    let value = '';
    if (text[i] === '"') {
      i++;
      let closed = false;
      // Copied in runs between escapes rather than character by character.
      let runStart = i;
      while (i < text.length) {
        const ch = text[i];
        if (ch === '\\' && i + 1 < text.length) {
          value += text.slice(runStart, i) + text[i + 1];
          i += 2;
          runStart = i;
        } else if (ch === '"') {
          value += text.slice(runStart, i);
          i++;
          closed = true;
          break;
        } else {
          i++;
        }
      }
      if (!closed) {
        return undefined;
      }
    } else {
      const valueStart = i;
      while (i < text.length && text[i] !== ',' && text[i] !== ' ' && text[i] !== '\t') i++;
      value = text.slice(valueStart, i);
    }
    if (!(name in params)) {
      params[name] = value;
    }
  }
  return params;
}
