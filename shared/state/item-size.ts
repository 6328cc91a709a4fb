import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamodb-attributes.js';

/** DynamoDB's largest item: 400 KB, attribute names included. */
export const MAX_ITEM_BYTES = 400 * 1024;

/**
 * The size of an item as DynamoDB counts it against its 400 KB limit: for each attribute, the UTF-8
 * bytes of its name plus the size of its value. Strings count their UTF-8 bytes, binaries their
 * bytes, numbers one byte per two significant digits plus one (counted here from every digit
 * written, so never less than DynamoDB counts), booleans and nulls one byte, sets the sum of their
 * members, lists and maps three bytes plus one byte and the size of each element (and, for a map,
 * each element's name).
 *
 * @example
 * ```ts
 * itemBytes({ pk: { S: 'a' }, n: { N: '12' } }); // 2 + 1 + 1 + 2 = 6
 * ```
 */
export function itemBytes(item: Item): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += utf8Bytes(name) + valueBytes(value);
  return total;
}

/**
 * The size of one attribute value, as {@link itemBytes} counts it.
 *
 * @example
 * ```ts
 * valueBytes({ SS: ['ab', 'c'] }); // 3
 * ```
 */
export function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, member) => sum + utf8Bytes(member), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, member) => sum + numberBytes(member), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, member) => sum + member.length, 0);
  if (value.L !== undefined) return value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 3);
  if (value.M !== undefined) {
    return Object.entries(value.M).reduce(
      (sum, [name, element]) => sum + 1 + utf8Bytes(name) + valueBytes(element),
      3,
    );
  }
  return 0;
}

/**
 * The UTF-8 bytes of a string, as DynamoDB and JSON files store it.
 *
 * @example
 * ```ts
 * utf8Bytes('日本'); // 6
 * ```
 */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character (nor between the two
 * halves of a surrogate pair).
 *
 * @example
 * ```ts
 * truncateUtf8('日本語', 7); // '日本'
 * ```
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: text this short needs no count.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += utf8Bytes(character);
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

function numberBytes(text: string): number {
  let digits = 0;
  for (const character of text) if (character >= '0' && character <= '9') digits += 1;
  return Math.ceil(digits / 2) + 1;
}
