import type { Item } from './dynamodb-attributes.js';
import { binaryValue, numberValue, readBinary, stringValue } from './dynamodb-attributes.js';
import type { DynamoDbRequester } from './dynamodb-requester.js';

/**
 * Extra items that carry the part of a large value (seen ids, an inventory snapshot) that does not
 * fit in its main item under DynamoDB's 400 KB item limit. A set of chunks belongs to one generation,
 * named in its sort keys (`<prefix><generation>#000001`...) and in the main item that points to it.
 * Chunks are written before the main item and never changed: the conditional write of the main item
 * is the moment a new generation takes effect, so a failed or fenced write leaves the old value whole.
 * Replaced and orphaned generations are deleted when possible, and expire through TTL otherwise.
 */

/** The attribute that holds a chunk's bytes. */
const DATA = 'data';

/**
 * `bytes` cut into parts of at most `size` bytes; none for empty input.
 *
 * @example
 * ```ts
 * splitBytes(new Uint8Array(25), 10).map((part) => part.length); // [10, 10, 5]
 * ```
 */
export function splitBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return parts;
}

/** Where one generation of chunks lives. */
export interface ChunkLocation {
  pk: string;
  /** Sort-key prefix, generation included. */
  prefix: string;
}

function chunkKey(location: ChunkLocation, index: number): Item {
  return {
    pk: stringValue(location.pk),
    sk: stringValue(`${location.prefix}${String(index).padStart(6, '0')}`),
  };
}

/**
 * Writes `parts` as chunks 1..n of a new generation, each expiring at `expiresAt` (epoch seconds).
 *
 * @throws StateStoreRequestError when a write fails; chunks already written are left to expire.
 */
export async function writeChunks(
  requester: DynamoDbRequester,
  options: ChunkLocation & { parts: readonly Uint8Array[]; expiresAt: number },
): Promise<void> {
  for (const [index, part] of options.parts.entries()) {
    await requester.putItem({
      Item: {
        ...chunkKey(options, index + 1),
        [DATA]: binaryValue(part),
        expiresAt: numberValue(options.expiresAt),
      },
      // Generations are unique: an existing key would be a collision, never something to overwrite.
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }
}

/**
 * The chunks of one generation, in order.
 *
 * @throws StateStoreRequestError when a read fails.
 */
export async function readChunks(
  requester: DynamoDbRequester,
  location: ChunkLocation,
): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let startKey: Item | undefined;
  do {
    const page = await requester.query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': stringValue(location.pk), ':prefix': stringValue(location.prefix) },
      ConsistentRead: true,
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
    });
    for (const item of page.Items ?? []) {
      const data = readBinary(item, DATA);
      if (data !== undefined) parts.push(data);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return parts;
}

/**
 * Deletes chunks 1..count of one generation.
 *
 * @throws StateStoreRequestError when a delete fails.
 */
export async function deleteChunks(
  requester: DynamoDbRequester,
  options: ChunkLocation & { count: number },
): Promise<void> {
  for (let index = 1; index <= options.count; index += 1) {
    await requester.deleteItem({ Key: chunkKey(options, index) });
  }
}
