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
  return chunkBatches(entries, {
    maxEntries: options.maxEntries ?? MAX_BATCH_ENTRIES,
    maxBytes: options.maxBytes ?? MAX_MESSAGE_BYTES,
    bytesOf: snsEntryBytes,
  });
}

/** Options of {@link chunkBatches}. */
export interface BatchLimits<T> {
  /** Most items per batch. */
  maxEntries: number;
  /** Most bytes per batch, all items together, as `bytesOf` counts them. */
  maxBytes: number;
  bytesOf: (item: T) => number;
}

/**
 * Splits items into batches of at most `maxEntries` items and `maxBytes` together, in order, packed
 * greedily: what every batch API asks (SNS `PublishBatch`, EventBridge `PutEvents`, Security Hub
 * `BatchImportFindings`). An item larger than `maxBytes` on its own goes alone in its batch.
 *
 * @example
 * ```ts
 * chunkBatches(entries, { maxEntries: 10, maxBytes: 256 * 1024, bytesOf: putEventsEntryBytes });
 * ```
 */
export function chunkBatches<T>(items: readonly T[], limits: BatchLimits<T>): T[][] {
  const { maxEntries, maxBytes } = limits;
  const batches: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const entry of items) {
    const bytes = limits.bytesOf(entry);
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
