import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  type PutEventsResponse,
} from '@aws-sdk/client-eventbridge';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert } from './alert.js';
import {
  alertDetailType,
  buildAlertDetail,
  DetailType,
  EVENT_SOURCE,
  type SourceHealthDetail,
} from './alert-detail.js';
import { chunkBatches } from './batch-chunks.js';
import { NotifyConfigError } from './errors.js';
import { assertConsoleLinks } from './event-links.js';
import { type ConsoleLinkOptions, formatContextAt } from './format-context.js';
import { type Notifier, PublishFailureCode, type PublishOptions, type PublishResult } from './notifier.js';
import { failedResult } from './prepare-entries.js';
import { RetryBackoff, type RetryOptions } from './retry-backoff.js';
import { classifySnsCallError } from './sns-call-failure.js';

/** `PutEvents` takes at most 10 entries. */
export const MAX_PUT_EVENTS_ENTRIES = 10;
/** `PutEvents` takes at most 256 KB, every entry counted (see {@link putEventsEntryBytes}). */
export const MAX_PUT_EVENTS_BYTES = 256 * 1024;

/**
 * Entry error codes of `PutEvents` that sending the same entry again may get past: the others
 * (`MalformedDetail`, `InvalidArgument`, `NotAuthorizedForSourceException`...) never will.
 */
const RETRYABLE_ENTRY_CODES = new Set([
  'InternalFailure',
  'InternalException',
  'ThrottlingException',
  'Throttling',
  'ServiceUnavailable',
]);

/** A bus name (`default`, `atlas-audit-alerts-alerts`) or a bus ARN (another account's). */
const BUS =
  /^(?:[/.\-_A-Za-z0-9]{1,256}|arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[/.\-_A-Za-z0-9]{1,256})$/;

/** How the notifier sends again what the service did not take (see `RetryBackoff`). */
export type EventBridgeRetryOptions = RetryOptions;

export interface EventBridgeNotifierOptions {
  /** Created once per container by the caller. */
  client: EventBridgeClient;
  /** The bus: `default`, a name, or an ARN. */
  busName: string;
  clock: Clock;
  /** Where the console links of the details point (see `FormatContext`). */
  console?: ConsoleLinkOptions;
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
  retry?: EventBridgeRetryOptions;
  logger?: Logger;
  /** Jitter source in [0, 1); tests pass a fixed one. Default `Math.random`. */
  random?: () => number;
}

interface Pending {
  index: number;
  alert: Alert;
  entry: PutEventsRequestEntry;
  lastFailure?: { code: string; message: string };
}

/**
 * Puts alerts on an EventBridge bus with `PutEvents`: one entry per alert, `source`
 * {@link EVENT_SOURCE}, detail-type `Atlas Audit Alert` (or `Atlas Audit Alert Resolved` for a posture
 * finding fixed), and the detail of `buildAlertDetail` (docs/eventbridge.md). Entries go 10 and 256 KB
 * a call. The answer's `Entries` are read one by one: an entry refused for what it holds fails for
 * good, alone; throttled and internal failures, and whole calls that were throttled, failed on the
 * server or the network, are sent again in up to `maxAttempts` rounds with backoff and jitter. A bus
 * that is missing or forbidden stops the call, and its alerts stay retryable for a later tick, as the
 * SNS notifier does for its topic: the source's cursor waits, and the watermark lag alarm tells.
 *
 * @example
 * ```ts
 * const notifier = new EventBridgeNotifier({ client: new EventBridgeClient({}), busName: 'default', clock: systemClock });
 * const results = await notifier.publish(alerts, { signal });
 * ```
 */
export class EventBridgeNotifier implements Notifier {
  readonly #client: EventBridgeClient;
  readonly #busName: string;
  readonly #clock: Clock;
  readonly #console: ConsoleLinkOptions | undefined;
  readonly #connectionConsoles: ReadonlyMap<string, ConsoleLinkOptions> | undefined;
  readonly #logger: Logger;
  readonly #retry: RetryBackoff;

  /** @throws {NotifyConfigError} when the bus, a console base URL or a retry setting is invalid. */
  constructor(options: EventBridgeNotifierOptions) {
    if (!BUS.test(options.busName)) {
      throw new NotifyConfigError(
        `"${options.busName.slice(0, 300)}" is not an event bus name or ARN: pass default, a bus name such as atlas-audit-alerts, or arn:aws:events:eu-west-1:123456789012:event-bus/security`,
      );
    }
    assertConsoleLinks(options.console);
    for (const links of options.connectionConsoles?.values() ?? []) assertConsoleLinks(links);
    this.#retry = new RetryBackoff(options.retry, options.random);
    this.#client = options.client;
    this.#busName = options.busName;
    this.#clock = options.clock;
    this.#console = options.console;
    this.#connectionConsoles = options.connectionConsoles;
    this.#logger = options.logger ?? silentLogger;
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    const { signal } = options;
    const context = formatContextAt(this.#clock.now(), this.#console, this.#connectionConsoles);
    const results: Array<PublishResult | undefined> = new Array(alerts.length);
    let pending: Pending[] = [];
    alerts.forEach((alert, index) => {
      try {
        pending.push({ index, alert, entry: this.#entry(alert, context) });
      } catch (error) {
        this.#logger.error('an alert could not be built into an EventBridge entry', {
          ruleId: alert.ruleId,
          fingerprint: alert.fingerprint,
          error: error instanceof Error ? error.message : String(error),
        });
        results[index] = failedResult(alert, {
          retryable: false,
          code: PublishFailureCode.formatFailed,
          message: 'building the EventBridge entry failed',
        });
      }
    });

    for (let attempt = 1; pending.length > 0; attempt++) {
      const round = await this.#sendRound(pending, results, signal);
      pending = round.retry;
      if (pending.length === 0 || round.stopped || signal?.aborted || attempt >= this.#retry.maxAttempts)
        break;
      const delayMs = this.#retry.delayAfter(attempt);
      this.#logger.warn('EventBridge did not take every alert; sending the rest again', {
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
          ? 'publishing was aborted before EventBridge took this alert'
          : `EventBridge did not take this alert: ${item.lastFailure?.message ?? 'no answer'}`,
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

  /**
   * Puts source health entries (detail-type `Atlas Audit Source Health`) on the bus, in one round:
   * they say how the poller is doing, not what happened in Atlas, so one that fails is counted and
   * logged, never retried on a later tick (the next change of health sends its own). Never throws.
   */
  async publishHealth(
    details: readonly SourceHealthDetail[],
    options: PublishOptions = {},
  ): Promise<{ sent: number; failed: number }> {
    let sent = 0;
    const entries = details.map((detail) => ({
      EventBusName: this.#busName,
      Source: EVENT_SOURCE,
      DetailType: DetailType.sourceHealth,
      Detail: JSON.stringify(detail),
      Time: new Date(detail.at),
    }));
    const batches = chunkBatches(entries, {
      maxEntries: MAX_PUT_EVENTS_ENTRIES,
      maxBytes: MAX_PUT_EVENTS_BYTES,
      bytesOf: putEventsEntryBytes,
    });
    for (const batch of batches) {
      try {
        const output = await this.#client.send(
          new PutEventsCommand({ Entries: batch }),
          options.signal === undefined ? {} : { abortSignal: options.signal },
        );
        sent += (output.Entries ?? []).filter(
          (entry) => entry.EventId !== undefined && entry.ErrorCode === undefined,
        ).length;
      } catch (error) {
        this.#logger.warn('source health entries were not put on the bus', {
          entries: batch.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    const failed = entries.length - sent;
    if (failed > 0 && sent > 0)
      this.#logger.warn('EventBridge refused some source health entries', { failed });
    return { sent, failed };
  }

  #entry(alert: Alert, context: ReturnType<typeof formatContextAt>): PutEventsRequestEntry {
    const detailType = alertDetailType(alert);
    const overhead = Buffer.byteLength(EVENT_SOURCE) + Buffer.byteLength(detailType);
    const detail = buildAlertDetail(alert, context, MAX_PUT_EVENTS_BYTES - overhead - 1_024);
    return {
      EventBusName: this.#busName,
      Source: EVENT_SOURCE,
      DetailType: detailType,
      Detail: JSON.stringify(detail),
      Time: new Date(alert.raisedAt),
    };
  }

  /** Sends every pending entry once; returns those worth another round. */
  async #sendRound(
    pending: readonly Pending[],
    results: Array<PublishResult | undefined>,
    signal: AbortSignal | undefined,
  ): Promise<{ retry: Pending[]; stopped: boolean }> {
    const batches = chunkBatches(pending, {
      maxEntries: MAX_PUT_EVENTS_ENTRIES,
      maxBytes: MAX_PUT_EVENTS_BYTES,
      bytesOf: (item) => putEventsEntryBytes(item.entry),
    });
    const retry: Pending[] = [];
    let stopped: { code: string; message: string } | undefined;
    for (const batch of batches) {
      if (stopped !== undefined) {
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: true, ...stopped });
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

  /** Sends one batch and sorts its entries into results and `retry`; returns a failure that stops the call. */
  async #sendBatch(
    batch: readonly Pending[],
    results: Array<PublishResult | undefined>,
    retry: Pending[],
    signal: AbortSignal | undefined,
  ): Promise<{ code: string; message: string } | undefined> {
    let output: PutEventsResponse;
    try {
      output = await this.#client.send(
        new PutEventsCommand({ Entries: batch.map((item) => item.entry) }),
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
        this.#logger.error('EventBridge refused an alert', {
          ruleId: batch[0]?.alert.ruleId,
          code: failure.code,
          error: failure.message,
        });
        for (const item of batch)
          results[item.index] = failedResult(item.alert, { retryable: false, ...reason });
        return undefined;
      }
      if (failure.kind === 'configuration') {
        this.#logger.error(
          'EventBridge refused the bus: check its name, its policy and the events:PutEvents grant',
          {
            code: failure.code,
            error: failure.message,
          },
        );
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

    // Entries come back in the order they were sent, one per entry.
    const answers = output.Entries ?? [];
    batch.forEach((item, position) => {
      const answer = answers[position];
      if (answer?.EventId !== undefined && answer.ErrorCode === undefined) {
        results[item.index] = {
          status: 'sent',
          fingerprint: item.alert.fingerprint,
          messageId: answer.EventId,
        };
        return;
      }
      if (answer === undefined) {
        item.lastFailure = {
          code: PublishFailureCode.missingResult,
          message: 'EventBridge answered without a result for this entry',
        };
        retry.push(item);
        return;
      }
      const code = answer.ErrorCode ?? 'Unknown';
      const message = `EventBridge refused the entry (${code}): ${answer.ErrorMessage ?? ''}`.slice(0, 500);
      if (RETRYABLE_ENTRY_CODES.has(code)) {
        item.lastFailure = { code, message };
        retry.push(item);
        return;
      }
      this.#logger.error('EventBridge refused an alert', { ruleId: item.alert.ruleId, code, error: message });
      results[item.index] = failedResult(item.alert, { retryable: false, code, message });
    });
    return undefined;
  }
}

/**
 * The size EventBridge counts for an entry against the 256 KB of a `PutEvents` call: 14 bytes for
 * its `Time`, and the UTF-8 bytes of its source, detail-type, detail and resources.
 *
 * @example
 * ```ts
 * putEventsEntryBytes({ Source: 'a', DetailType: 'b', Detail: '{}' }); // 4
 * ```
 */
export function putEventsEntryBytes(entry: PutEventsRequestEntry): number {
  return (
    (entry.Time === undefined ? 0 : 14) +
    Buffer.byteLength(entry.Source ?? '') +
    Buffer.byteLength(entry.DetailType ?? '') +
    Buffer.byteLength(entry.Detail ?? '') +
    (entry.Resources ?? []).reduce((sum, resource) => sum + Buffer.byteLength(resource), 0)
  );
}
