import { PublishBatchCommand, type PublishBatchResponse, type SNSClient } from '@aws-sdk/client-sns';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert } from './alert.js';
import { chunkEntries } from './batch-chunks.js';
import { NotifyConfigError } from './errors.js';
import { assertConsoleLinks } from './event-links.js';
import { type ConsoleLinkOptions, formatContextAt } from './format-context.js';
import { type Notifier, PublishFailureCode, type PublishOptions, type PublishResult } from './notifier.js';
import { failedResult, type PreparedEntry, prepareEntries } from './prepare-entries.js';
import { RetryBackoff, type RetryOptions } from './retry-backoff.js';
import { classifySnsCallError } from './sns-call-failure.js';

/** How the notifier sends again what the service did not take (see `RetryBackoff`). */
export type SnsRetryOptions = RetryOptions;

export interface SnsNotifierOptions {
  /** Created once per container by the caller. */
  client: SNSClient;
  topicArn: string;
  /** The waits between retries, and when each message is built. */
  clock: Clock;
  /** Where console links in messages point; without it, messages carry only the event's API link. */
  console?: ConsoleLinkOptions;
  /** Where the console links of each connection's alerts point, by connection (see `FormatContext`). */
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
  retry?: SnsRetryOptions;
  logger?: Logger;
  /** Jitter source in [0, 1); tests pass a fixed one. Default `Math.random`. */
  random?: () => number;
}

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

interface Pending extends PreparedEntry {
  /** Why the last attempt did not deliver it. */
  lastFailure?: { code: string; message: string };
}

/**
 * Publishes alerts to an SNS topic with `PublishBatch`: each alert is built into an entry and checked
 * with `validateSnsEntry` (an invalid one fails for good, alone); the rest go in batches of at most 10
 * entries and 256 KiB. `Failed[]` is read on every answer: entries SNS blames on the sender fail for
 * good, the others are sent again, with throttling, server and network errors of whole calls, in up to
 * `maxAttempts` rounds with exponential backoff and jitter on the injected clock. An answer that blames
 * the batch's content is split into single entries to find the one at fault. A topic that is missing,
 * forbidden or has a disabled key stops the call: those alerts stay retryable for a later tick.
 *
 * @example
 * ```ts
 * const notifier = new SnsNotifier({ client: new SNSClient({}), topicArn, clock: systemClock });
 * const results = await notifier.publish(alerts, { signal });
 * ```
 */
export class SnsNotifier implements Notifier {
  readonly #client: SNSClient;
  readonly #topicArn: string;
  readonly #clock: Clock;
  readonly #console: ConsoleLinkOptions | undefined;
  readonly #connectionConsoles: ReadonlyMap<string, ConsoleLinkOptions> | undefined;
  readonly #logger: Logger;
  readonly #retry: RetryBackoff;

  /** @throws {NotifyConfigError} when the topic ARN, the console base URL or a retry setting is invalid. */
  constructor(options: SnsNotifierOptions) {
    if (!TOPIC_ARN.test(options.topicArn)) {
      throw new NotifyConfigError(
        `"${options.topicArn.slice(0, 300)}" is not an SNS topic ARN: pass the topic's ARN, such as arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts`,
      );
    }
    assertConsoleLinks(options.console);
    this.#retry = new RetryBackoff(options.retry, options.random);
    this.#client = options.client;
    this.#topicArn = options.topicArn;
    this.#clock = options.clock;
    this.#console = options.console;
    for (const links of options.connectionConsoles?.values() ?? []) assertConsoleLinks(links);
    this.#connectionConsoles = options.connectionConsoles;
    this.#logger = options.logger ?? silentLogger;
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    const { signal } = options;
    const context = formatContextAt(this.#clock.now(), this.#console, this.#connectionConsoles);
    const prepared = prepareEntries(alerts, {
      context,
      entryId: (_, index) => `alert-${index}`,
      logger: this.#logger,
    });
    const { results } = prepared;
    let pending: Pending[] = prepared.prepared;

    for (let attempt = 1; pending.length > 0; attempt++) {
      const round = await this.#sendRound(pending, results, signal);
      pending = round.retry;
      if (pending.length === 0 || round.stopped || signal?.aborted || attempt >= this.#retry.maxAttempts)
        break;
      const delayMs = this.#retry.delayAfter(attempt);
      this.#logger.warn('SNS did not take every alert; sending the rest again', {
        attempt,
        alerts: pending.length,
        codes: [...new Set(pending.map((item) => item.lastFailure?.code))],
        delayMs,
      });
      try {
        await this.#clock.sleep(delayMs, signal);
      } catch {
        break;
      }
    }

    for (const item of pending) {
      const aborted = signal?.aborted === true;
      results[item.index] = failedResult(item.alert, {
        retryable: true,
        code: aborted
          ? PublishFailureCode.aborted
          : (item.lastFailure?.code ?? PublishFailureCode.missingResult),
        message: aborted
          ? 'publishing was aborted before SNS took this alert'
          : `SNS did not take this alert: ${item.lastFailure?.message ?? 'no answer'}`,
      });
    }
    return results.map(
      (result, index) =>
        result ??
        failedResult(alerts[index] as Alert, {
          retryable: true,
          code: PublishFailureCode.missingResult,
          message: 'no result was recorded for this alert',
        }),
    );
  }

  /** Sends every pending entry once; returns those worth another round. */
  async #sendRound(
    pending: readonly Pending[],
    results: Array<PublishResult | undefined>,
    signal: AbortSignal | undefined,
  ): Promise<{ retry: Pending[]; stopped: boolean }> {
    const byId = new Map(pending.map((item) => [item.entry.Id, item]));
    const batches = chunkEntries(pending.map((item) => item.entry)).map((batch) =>
      batch.map((entry) => byId.get(entry.Id) as Pending),
    );
    const retry: Pending[] = [];
    let stopped: { code: string; message: string } | undefined;
    for (const batch of batches) {
      if (stopped !== undefined) {
        for (const item of batch) {
          results[item.index] = failedResult(item.alert, { retryable: true, ...stopped });
        }
        continue;
      }
      if (signal?.aborted) {
        retry.push(...batch);
        continue;
      }
      stopped = await this.#sendBatch(batch, results, retry, signal);
    }
    return { retry, stopped: stopped !== undefined };
  }

  /**
   * Sends one batch and sorts its entries into results and `retry`. Returns the failure that should stop
   * the whole call (a configuration problem), if any.
   */
  async #sendBatch(
    batch: readonly Pending[],
    results: Array<PublishResult | undefined>,
    retry: Pending[],
    signal: AbortSignal | undefined,
  ): Promise<{ code: string; message: string } | undefined> {
    let output: PublishBatchResponse;
    try {
      output = await this.#client.send(
        new PublishBatchCommand({
          TopicArn: this.#topicArn,
          PublishBatchRequestEntries: batch.map((item) => item.entry),
        }),
        signal === undefined ? {} : { abortSignal: signal },
      );
    } catch (error) {
      const failure = classifySnsCallError(error, signal);
      const reason = { code: failure.code, message: failure.message };
      if (failure.kind === 'entries' && batch.length > 1) {
        for (const item of batch) {
          const stop = await this.#sendBatch([item], results, retry, signal);
          if (stop !== undefined) return stop;
        }
        return undefined;
      }
      if (failure.kind === 'entries') {
        this.#logger.error('SNS refused an alert', {
          ruleId: batch[0]?.alert.ruleId,
          code: failure.code,
          error: failure.message,
        });
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: false, ...reason });
        return undefined;
      }
      if (failure.kind === 'configuration') {
        this.#logger.error('SNS refused the topic: check the topic, its policy and its KMS key', {
          code: failure.code,
          error: failure.message,
        });
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: true, ...reason });
        return reason;
      }
      for (const item of batch) {
        item.lastFailure = reason;
        retry.push(item);
      }
      return undefined;
    }

    const byId = new Map(batch.map((item) => [item.entry.Id, item]));
    for (const success of output.Successful ?? []) {
      const item = success.Id === undefined ? undefined : byId.get(success.Id);
      if (item === undefined) continue;
      byId.delete(success.Id as string);
      results[item.index] = {
        status: 'sent',
        fingerprint: item.alert.fingerprint,
        ...(success.MessageId === undefined ? {} : { messageId: success.MessageId }),
      };
    }
    for (const failure of output.Failed ?? []) {
      const item = failure.Id === undefined ? undefined : byId.get(failure.Id);
      if (item === undefined) continue;
      byId.delete(failure.Id as string);
      const code = failure.Code ?? 'Unknown';
      const message =
        `SNS refused the entry (${code}${failure.SenderFault ? ', sender fault' : ''}): ${failure.Message ?? ''}`.slice(
          0,
          500,
        );
      if (failure.SenderFault !== true) {
        item.lastFailure = { code, message };
        retry.push(item);
      } else {
        this.#logger.error('SNS refused an alert', { ruleId: item.alert.ruleId, code, error: message });
        results[item.index] = failedResult(item.alert, { retryable: false, code, message });
      }
    }
    for (const item of byId.values()) {
      item.lastFailure = {
        code: PublishFailureCode.missingResult,
        message: 'SNS answered without a result for this entry',
      };
      retry.push(item);
    }
    return undefined;
  }
}
