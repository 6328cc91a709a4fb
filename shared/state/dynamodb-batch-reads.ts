import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { Item } from './dynamodb-attributes.js';
import type { DynamoDbRequester } from './dynamodb-requester.js';
import { StateStoreRequestError } from './errors.js';

/** Keys in one `BatchGetItem`: DynamoDB's limit. */
export const BATCH_GET_KEYS = 100;

/** `BatchGetItem` requests in flight at once. */
const BATCH_CONCURRENCY = 4;

/** Attempts at a batch whose keys DynamoDB keeps leaving unprocessed. */
const BATCH_ATTEMPTS = 8;

/** The pause before attempt `attempt` (2 and up) of a batch: 50 ms doubling, at most 2 s. */
function batchPauseMs(attempt: number): number {
  return Math.min(2_000, 50 * 2 ** (attempt - 2));
}

/** Options of {@link batchGetAll}. */
export interface BatchGetAllOptions {
  keys: readonly Item[];
  /** Attributes to read; all of them when absent. */
  projection?: { expression: string; names: Record<string, string> };
  /** Strongly consistent reads (what a conditional write is decided from). Default `false`. */
  consistent?: boolean;
  /** What the items are, for the error message: `source items`, `counters`. */
  what: string;
}

/**
 * Reads items by key with `BatchGetItem`, 100 keys a request, 4 requests at once, and returns the
 * items found (in no particular order). Keys DynamoDB leaves unprocessed are asked for again after a
 * growing pause, up to 8 times.
 *
 * @throws StateStoreRequestError when DynamoDB cannot be reached, or keeps leaving keys unprocessed.
 * @example
 * ```ts
 * const items = await batchGetAll(requester, clock, { keys, consistent: true, what: 'counters' });
 * ```
 */
export async function batchGetAll(
  requester: DynamoDbRequester,
  clock: Clock,
  options: BatchGetAllOptions,
): Promise<Item[]> {
  const batches: Item[][] = [];
  for (let at = 0; at < options.keys.length; at += BATCH_GET_KEYS)
    batches.push(options.keys.slice(at, at + BATCH_GET_KEYS));
  const found = await mapWithConcurrency(batches, BATCH_CONCURRENCY, async (batch) => {
    const items: Item[] = [];
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > BATCH_ATTEMPTS) {
        throw new StateStoreRequestError(
          `DynamoDB left ${pending.length} ${options.what} of state table ${requester.tableName} unprocessed ` +
            `${BATCH_ATTEMPTS} times in a row (throttled): the table needs more read capacity`,
          { operation: 'BatchGetItem', tableName: requester.tableName },
        );
      }
      if (attempt > 1) await clock.sleep(batchPauseMs(attempt));
      const output = await requester.batchGetItem({
        keys: pending,
        ...(options.projection === undefined ? {} : options.projection),
        ...(options.consistent === true ? { consistent: true } : {}),
      });
      items.push(...output.items);
      pending = output.unprocessed;
    }
    return items;
  });
  return found.flat();
}
