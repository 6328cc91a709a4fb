import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { StateItemCorruptError } from './errors.js';
import { type InventorySnapshot, parseInventorySnapshot, withoutPrivateKeys } from './inventory-snapshot.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * A snapshot as stored in DynamoDB: JSON without any `privateKey`, gzipped. API keys and access lists
 * repeat the same field names and links, so they shrink about 14 times: a thousand keys with two
 * access-list entries each take 72 KB, and one 350 KB item holds nearly 5,000 such keys before the
 * rest spills into chunk items.
 *
 * @example
 * ```ts
 * const bytes = await encodeInventory(snapshot);
 * ```
 */
export async function encodeInventory(snapshot: InventorySnapshot): Promise<Uint8Array> {
  return gzipAsync(Buffer.from(JSON.stringify(withoutPrivateKeys(snapshot)), 'utf8'));
}

/**
 * A snapshot read back from {@link encodeInventory} output.
 *
 * @throws StateItemCorruptError when the bytes are not a gzipped snapshot; `where` names the item.
 *
 * @example
 * ```ts
 * const snapshot = await decodeInventory(bytes, 'INVENTORY#5f4e…');
 * ```
 */
export async function decodeInventory(bytes: Uint8Array, where: string): Promise<InventorySnapshot> {
  let value: unknown;
  try {
    value = JSON.parse((await gunzipAsync(bytes)).toString('utf8'));
  } catch (error) {
    throw new StateItemCorruptError(
      `the inventory snapshot in ${where} cannot be read (${(error as Error).message}): delete it; the next ` +
        'snapshot sets a new baseline',
      { cause: error },
    );
  }
  return parseInventorySnapshot(value, where);
}
