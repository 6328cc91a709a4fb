import { MAX_BATCH_BYTES, MAX_BATCH_FINDINGS } from './asff-limits.js';

/** A finding ready to send: its `Id` and its size as JSON. */
export interface BatchItem {
  id: string;
  bytes: number;
}

export interface FindingBatchOptions {
  /** Most findings a request. Default: {@link MAX_BATCH_FINDINGS}. */
  maxFindings?: number;
  /** Most bytes a request body. Default: {@link MAX_BATCH_BYTES}. */
  maxBytes?: number;
}

/** `{"Findings":[` and `]}` around the findings, which a comma separates. */
const ENVELOPE_BYTES = '{"Findings":[]}'.length;

/**
 * Splits findings into `BatchImportFindings` requests Security Hub takes: at most 100 findings and
 * 6 MB of body each, in order, packed greedily. Two findings with the same `Id` (the alert that opens
 * a posture finding and the one that resolves it, in one publish) never share a request: the later
 * one starts the next request, so Security Hub receives them in the order they happened. A finding
 * larger than `maxBytes` alone goes in a request of its own (the validator keeps such findings from
 * being sent at all).
 *
 * @example
 * ```ts
 * chunkFindings(items).map((batch) => new BatchImportFindingsCommand({ Findings: batch.map((item) => item.finding) }));
 * ```
 */
export function chunkFindings<T extends BatchItem>(
  items: readonly T[],
  options: FindingBatchOptions = {},
): T[][] {
  const maxFindings = options.maxFindings ?? MAX_BATCH_FINDINGS;
  const maxBytes = options.maxBytes ?? MAX_BATCH_BYTES;
  const batches: T[][] = [];
  let current: T[] = [];
  let ids = new Set<string>();
  let bytes = ENVELOPE_BYTES;
  for (const item of items) {
    const added = item.bytes + (current.length > 0 ? 1 : 0);
    const full = current.length >= maxFindings || bytes + added > maxBytes || ids.has(item.id);
    if (current.length > 0 && full) {
      batches.push(current);
      current = [];
      ids = new Set();
      bytes = ENVELOPE_BYTES;
    }
    bytes += item.bytes + (current.length > 0 ? 1 : 0);
    current.push(item);
    ids.add(item.id);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
