import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { utf8Bytes } from './byte-size.js';

/** SNS's default limit on a message, attributes included, and on a whole `PublishBatch` request. */
export const MAX_MESSAGE_BYTES = 262_144;

/**
 * The bytes an entry counts against the SNS size limit: the UTF-8 bytes of its message, subject and of
 * every attribute's name, data type and value. SNS counts the message and its attributes; counting the
 * subject and the entry id as well keeps this on the safe side.
 *
 * @example
 * ```ts
 * snsEntryBytes({ Id: 'a', Message: 'hi' }); // 3
 * ```
 */
export function snsEntryBytes(entry: PublishBatchRequestEntry): number {
  let bytes = utf8Bytes(entry.Message ?? '') + utf8Bytes(entry.Subject ?? '') + utf8Bytes(entry.Id ?? '');
  for (const [name, attribute] of Object.entries(entry.MessageAttributes ?? {})) {
    bytes += utf8Bytes(name) + utf8Bytes(attribute.DataType ?? '') + utf8Bytes(attribute.StringValue ?? '');
    bytes += attribute.BinaryValue?.byteLength ?? 0;
  }
  return bytes;
}
