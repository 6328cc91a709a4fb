import { sliceCodePoints } from './text-cleaning.js';

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
 * Returns `text` unchanged when it fits, and `''` when not even `suffix` fits.
 *
 * @example
 * ```ts
 * cutToJsonStringBytes('abcdef', 5, '...'); // 'ab...'
 * ```
 */
export function cutToJsonStringBytes(text: string, maxBytes: number, suffix = ''): string {
  if (jsonStringBytes(text) <= maxBytes) return text;
  if (jsonStringBytes(suffix) > maxBytes) return '';
  // A code unit costs at least one byte, so the answer is shorter than maxBytes code units.
  let low = 0;
  let high = Math.min(text.length, Math.max(0, maxBytes));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (jsonStringBytes(`${sliceCodePoints(text, middle)}${suffix}`) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  return `${sliceCodePoints(text, low)}${suffix}`;
}
