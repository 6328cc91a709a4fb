import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';

/** `PublishBatch` takes at most 10 entries. */
export const MAX_BATCH_ENTRIES = 10;

export interface ChunkOptions {
  /** Most entries per batch. Default: {@link MAX_BATCH_ENTRIES}. */
  maxEntries?: number;
  /** Most bytes per batch, all entries together (see `snsEntryBytes`). Default: {@link MAX_MESSAGE_BYTES}. */
  maxBytes?: number;
}

/**
 * Splits entries into `PublishBatch` requests that SNS accepts: at most 10 entries and at most 256 KiB
 * for the whole request. Keeps the order; packs greedily. An entry larger than `maxBytes` on its own goes
 * alone in its batch (the validator keeps such entries from being sent at all).
 *
 * @example
 * ```ts
 * chunkEntries(entries).map((batch) => new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: batch }));
 * ```
 */
export function chunkEntries<T extends PublishBatchRequestEntry>(
  entries: readonly T[],
  options: ChunkOptions = {},
): T[][] {
  const maxEntries = options.maxEntries ?? MAX_BATCH_ENTRIES;
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
  const batches: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const entry of entries) {
    const bytes = snsEntryBytes(entry);
    if (current.length > 0 && (current.length >= maxEntries || currentBytes + bytes > maxBytes)) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(entry);
    currentBytes += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
