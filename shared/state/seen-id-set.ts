import { createHash } from 'node:crypto';

/** Bytes one id takes once packed: an Atlas id (an ObjectId) is 12 bytes written as 24 hex characters. */
export const SEEN_ID_BYTES = 12;

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/**
 * The 24-character lowercase hex form an id is stored under: an Atlas id as it is (lowercased); any
 * other string as the first 12 bytes of its SHA-256, so every id packs into 12 bytes. Two different
 * ids share a form with a chance of about 2^-96.
 *
 * @example
 * ```ts
 * normalizeSeenId('5F4E3D2C1B0A998877665544'); // '5f4e3d2c1b0a998877665544'
 * normalizeSeenId('evt-1').length; // 24
 * ```
 */
export function normalizeSeenId(id: string): string {
  if (OBJECT_ID.test(id)) return id.toLowerCase();
  return createHash('sha256')
    .update(id)
    .digest('hex')
    .slice(0, SEEN_ID_BYTES * 2);
}

/**
 * The ids of events a source already processed, as a cursor holds them. Lookups take the ids as Atlas
 * sends them; iteration yields their stored forms (see {@link normalizeSeenId}), which are ids again
 * for Atlas ids and which `SeenIdSet.from` accepts back unchanged.
 *
 * @example
 * ```ts
 * const seen = SeenIdSet.from(['5f4e3d2c1b0a998877665544']);
 * seen.has('5f4e3d2c1b0a998877665544'); // true
 * SeenIdSet.fromBytes(seen.toBytes()).size; // 1
 * ```
 */
export class SeenIdSet implements Iterable<string> {
  readonly #ids: ReadonlySet<string>;

  private constructor(ids: ReadonlySet<string>) {
    this.#ids = ids;
  }

  /** A set holding `ids`, duplicates merged. */
  static from(ids: Iterable<string>): SeenIdSet {
    const normalized = new Set<string>();
    for (const id of ids) normalized.add(normalizeSeenId(id));
    return new SeenIdSet(normalized);
  }

  /**
   * A set unpacked from {@link toBytes} output, or from several such outputs in turn.
   *
   * @throws RangeError when a buffer's length is not a multiple of 12.
   */
  static fromBytes(...buffers: Uint8Array[]): SeenIdSet {
    const ids = new Set<string>();
    for (const bytes of buffers) {
      if (bytes.length % SEEN_ID_BYTES !== 0) {
        throw new RangeError(
          `packed seen ids are ${bytes.length} bytes long, not a multiple of ${SEEN_ID_BYTES}`,
        );
      }
      const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
      for (let at = 0; at < hex.length; at += SEEN_ID_BYTES * 2)
        ids.add(hex.slice(at, at + SEEN_ID_BYTES * 2));
    }
    return new SeenIdSet(ids);
  }

  /** An empty set. */
  static empty(): SeenIdSet {
    return new SeenIdSet(new Set());
  }

  get size(): number {
    return this.#ids.size;
  }

  /** Whether the event with this id was processed. */
  has(id: string): boolean {
    return this.#ids.has(normalizeSeenId(id));
  }

  /** 12 bytes per id, in iteration order. */
  toBytes(): Uint8Array {
    return Buffer.from([...this.#ids].join(''), 'hex');
  }

  [Symbol.iterator](): Iterator<string> {
    return this.#ids.values();
  }
}
