import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { StateItemCorruptError } from './errors.js';

/** A DynamoDB item as the low-level client returns it. */
export type Item = Record<string, AttributeValue>;

/** A number attribute value. */
export function numberValue(value: number): AttributeValue {
  return { N: String(value) };
}

/** A string attribute value. */
export function stringValue(value: string): AttributeValue {
  return { S: value };
}

/** A binary attribute value. */
export function binaryValue(value: Uint8Array): AttributeValue {
  return { B: value };
}

/**
 * The number stored at `name`, or `undefined` when the item has no such attribute.
 *
 * @throws StateItemCorruptError when the attribute is not a finite number.
 *
 * @example
 * ```ts
 * readNumber({ watermark: { N: '42' } }, 'watermark'); // 42
 * ```
 */
export function readNumber(item: Item, name: string): number | undefined {
  const value = item[name];
  if (value === undefined) return undefined;
  const parsed = value.N === undefined ? Number.NaN : Number(value.N);
  if (!Number.isFinite(parsed)) throw corrupt(item, name, 'a number');
  return parsed;
}

/**
 * The string stored at `name`, or `undefined` when the item has no such attribute.
 *
 * @throws StateItemCorruptError when the attribute is not a string.
 *
 * @example
 * ```ts
 * readString({ status: { S: 'SENT' } }, 'status'); // 'SENT'
 * ```
 */
export function readString(item: Item, name: string): string | undefined {
  const value = item[name];
  if (value === undefined) return undefined;
  if (value.S === undefined) throw corrupt(item, name, 'a string');
  return value.S;
}

/**
 * The bytes stored at `name`, or `undefined` when the item has no such attribute.
 *
 * @throws StateItemCorruptError when the attribute is not binary.
 *
 * @example
 * ```ts
 * readBinary({ seen: { B: new Uint8Array(12) } }, 'seen')?.length; // 12
 * ```
 */
export function readBinary(item: Item, name: string): Uint8Array | undefined {
  const value = item[name];
  if (value === undefined) return undefined;
  if (value.B === undefined) throw corrupt(item, name, 'binary');
  return value.B;
}

/**
 * The members of the string set at `name`, or `undefined` when the item has no such attribute.
 *
 * @throws StateItemCorruptError when the attribute is not a string set.
 *
 * @example
 * ```ts
 * readStringSet({ members: { SS: ['a', 'b'] } }, 'members'); // ['a', 'b']
 * ```
 */
export function readStringSet(item: Item, name: string): string[] | undefined {
  const value = item[name];
  if (value === undefined) return undefined;
  if (value.SS === undefined) throw corrupt(item, name, 'a string set');
  return value.SS;
}

function corrupt(item: Item, name: string, expected: string): StateItemCorruptError {
  const where = `${item.pk?.S ?? '?'} / ${item.sk?.S ?? '?'}`;
  return new StateItemCorruptError(
    `state item ${where} holds ${name} that is not ${expected}: the item was not written by this program; ` +
      'delete it (the source, alert or counter then starts afresh)',
  );
}
