import type { Logger } from '../logger.js';
import type { Alert } from './alert.js';
import type { FormatContext } from './format-context.js';
import { type PublishFailed, PublishFailureCode, type PublishResult } from './notifier.js';
import { buildSnsEntry, type SnsEntry } from './sns-entry.js';
import { validateSnsEntry } from './validate-sns-entry.js';

/** An alert whose entry passed the validator, with its position in the caller's list. */
export interface PreparedEntry {
  index: number;
  alert: Alert;
  entry: SnsEntry;
}

export interface PrepareEntriesOptions {
  context: FormatContext;
  /** The entry id of the alert at `index`: unique among `alerts`, up to 80 of `A-Z a-z 0-9 - _`. */
  entryId: (alert: Alert, index: number) => string;
  logger: Logger;
}

export interface PreparedEntries {
  /** Entries that may be delivered, in the order of the alerts. */
  prepared: PreparedEntry[];
  /** One slot per alert: filled for those that can never be delivered, empty for the prepared ones. */
  results: Array<PublishResult | undefined>;
}

/**
 * The first step of every notifier: builds each alert's SNS entry and runs `validateSnsEntry` on it. An
 * alert whose formatting throws or whose entry is invalid gets a permanent failure (`FORMAT_FAILED`,
 * `INVALID_ENTRY`) in its slot; the others are returned for delivery. Never throws.
 *
 * @example
 * ```ts
 * const { prepared, results } = prepareEntries(alerts, { context, entryId: (_, i) => `alert-${i}`, logger });
 * ```
 */
export function prepareEntries(alerts: readonly Alert[], options: PrepareEntriesOptions): PreparedEntries {
  const prepared: PreparedEntry[] = [];
  const results: Array<PublishResult | undefined> = new Array(alerts.length);
  alerts.forEach((alert, index) => {
    let entry: SnsEntry;
    try {
      entry = buildSnsEntry(alert, { id: options.entryId(alert, index), context: options.context });
    } catch (error) {
      options.logger.error('formatting an alert failed', { ruleId: alert.ruleId, error: String(error) });
      results[index] = failedResult(alert, {
        retryable: false,
        code: PublishFailureCode.formatFailed,
        message: `formatting the alert failed: ${String(error).slice(0, 300)}`,
      });
      return;
    }
    const validation = validateSnsEntry(entry);
    if (!validation.valid) {
      options.logger.error('an alert breaks the SNS message rules and is not delivered', {
        ruleId: alert.ruleId,
        problems: validation.problems,
      });
      results[index] = failedResult(alert, {
        retryable: false,
        code: PublishFailureCode.invalidEntry,
        message: `the SNS entry is invalid: ${validation.problems.join('; ')}`,
      });
      return;
    }
    prepared.push({ index, alert, entry });
  });
  return { prepared, results };
}

/**
 * A failed result for an alert.
 *
 * @example
 * ```ts
 * failedResult(alert, { retryable: true, code: 'ABORTED', message: 'publishing was aborted' });
 * ```
 */
export function failedResult(
  alert: Alert,
  outcome: Omit<PublishFailed, 'status' | 'fingerprint'>,
): PublishFailed {
  return { status: 'failed', fingerprint: alert.fingerprint, ...outcome };
}
