/** The parameters of an `Authorization: Digest ...` header, names lower-cased. */
export type DigestParams = Readonly<Record<string, string>>;

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

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
    while (i < text.length && TOKEN.test(text[i] as string)) i++;
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
      while (i < text.length) {
        const ch = text[i] as string;
        if (ch === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (ch === '"') {
          i++;
          closed = true;
          break;
        } else {
          value += ch;
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
