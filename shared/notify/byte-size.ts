/**
 * SNS limits messages in bytes of UTF-8, not in characters, and every text this project puts in a
 * message travels inside a JSON string (the `email` and `default` keys of a `MessageStructure=json`
 * message). These helpers count what a text really costs there.
 */

/**
 * Bytes of `text` in UTF-8.
 *
 * @example
 * ```ts
 * utf8Bytes('é'); // 2
 * ```
 */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Bytes `text` takes inside a JSON string, quotes excluded: escapes (`\n`, `\"`, `\u001b`) included.
 *
 * @example
 * ```ts
 * jsonStringBytes('a"b'); // 4
 * ```
 */
export function jsonStringBytes(text: string): number {
  return utf8Bytes(JSON.stringify(text)) - 2;
}

/**
 * The longest prefix of `text` that, followed by `suffix`, takes at most `maxBytes` inside a JSON string.
 * Returns `text` unchanged when it fits, and `''` when not even `suffix` fits. Never splits a surrogate
 * pair; reads no more of `text` than the budget can hold.
 *
 * @example
 * ```ts
 * cutToJsonStringBytes('abcdef', 5, '...'); // 'ab...'
 * ```
 */
export function cutToJsonStringBytes(text: string, maxBytes: number, suffix = ''): string {
  const suffixBytes = jsonStringBytes(suffix);
  const room = maxBytes - suffixBytes;
  let used = 0;
  let index = 0;
  while (index < text.length) {
    const { bytes, units } = jsonCost(text, index);
    if (used + bytes > maxBytes) break;
    used += bytes;
    index += units;
  }
  if (index >= text.length) return text;
  if (room < 0) return '';
  // The whole text does not fit: go back to where the suffix still fits after the prefix.
  let end = 0;
  let total = 0;
  while (end < text.length) {
    const { bytes, units } = jsonCost(text, end);
    if (total + bytes > room) break;
    total += bytes;
    end += units;
  }
  return `${text.slice(0, end)}${suffix}`;
}

/** The bytes the code point at `index` takes inside a JSON string, and how many code units it spans. */
function jsonCost(text: string, index: number): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code === 0x22 || code === 0x5c) return { bytes: 2, units: 1 };
  if (code < 0x20) return { bytes: SHORT_ESCAPES.has(code) ? 2 : 6, units: 1 };
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
    return { bytes: 6, units: 1 };
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/** `\b`, `\t`, `\n`, `\f` and `\r`: the control characters JSON escapes in two bytes. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
