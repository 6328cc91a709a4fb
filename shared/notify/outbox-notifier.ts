import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert } from './alert.js';
import { NotifyConfigError } from './errors.js';
import { assertConsoleLinks } from './event-links.js';
import { fingerprintDigest } from './fingerprint-digest.js';
import { type ConsoleLinkOptions, formatContextAt } from './format-context.js';
import { type Notifier, PublishFailureCode, type PublishOptions, type PublishResult } from './notifier.js';
import { appendWholeLines } from './outbox-append.js';
import { failedResult, prepareEntries } from './prepare-entries.js';

export interface OutboxNotifierOptions {
  /** The JSON Lines file alerts are appended to; its folder is created when missing. */
  path: string;
  clock: Clock;
  /** Where console links in messages point. */
  console?: ConsoleLinkOptions;
  /** Where the console links of each connection's alerts point, by connection (see `FormatContext`). */
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
  logger?: Logger;
}

/**
 * Appends each alert to a local file, one JSON line per alert, holding the exact `PublishBatch` entry the
 * SNS notifier would send (`Id`, `Subject`, `Message`, `MessageStructure`, `MessageAttributes`, as the SDK
 * takes them), after the same validator. The `Id` is `alert-<fingerprint digest>-<position in the call>`,
 * so the lines of one alert are easy to find. One append per call, all or nothing: the lines of a call
 * land together and are on disk before they are reported sent, or none of them stays (see
 * {@link appendWholeLines}).
 *
 * @example
 * ```ts
 * const notifier = new OutboxNotifier({ path: '.atlas-audit-alerts/outbox.jsonl', clock: systemClock });
 * await notifier.publish(alerts);
 * ```
 */
export class OutboxNotifier implements Notifier {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #console: ConsoleLinkOptions | undefined;
  readonly #connectionConsoles: ReadonlyMap<string, ConsoleLinkOptions> | undefined;
  readonly #logger: Logger;

  /** @throws {NotifyConfigError} when the path is empty or the console base URL is not an http(s) URL. */
  constructor(options: OutboxNotifierOptions) {
    if (options.path.trim() === '') {
      throw new NotifyConfigError(
        'the outbox path is empty: pass a file path such as .atlas-audit-alerts/outbox.jsonl',
      );
    }
    assertConsoleLinks(options.console);
    this.#path = options.path;
    this.#clock = options.clock;
    this.#console = options.console;
    for (const links of options.connectionConsoles?.values() ?? []) assertConsoleLinks(links);
    this.#connectionConsoles = options.connectionConsoles;
    this.#logger = options.logger ?? silentLogger;
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    const context = formatContextAt(this.#clock.now(), this.#console, this.#connectionConsoles);
    const { prepared, results } = prepareEntries(alerts, {
      context,
      entryId: (alert, index) => `alert-${fingerprintDigest(alert.fingerprint)}-${index}`,
      logger: this.#logger,
    });
    if (prepared.length === 0) return results as PublishResult[];
    if (options.signal?.aborted) {
      for (const item of prepared) {
        results[item.index] = failedResult(item.alert, {
          retryable: true,
          code: PublishFailureCode.aborted,
          message: 'publishing was aborted before this alert was written',
        });
      }
      return results as PublishResult[];
    }
    const lines = prepared.map(({ entry }) => `${JSON.stringify(entry)}\n`).join('');
    try {
      await mkdir(dirname(this.#path), { recursive: true });
      await appendWholeLines(this.#path, lines);
      for (const item of prepared)
        results[item.index] = { status: 'sent', fingerprint: item.alert.fingerprint };
    } catch (error) {
      this.#logger.error('writing the outbox failed', { path: this.#path, error: String(error) });
      for (const item of prepared) {
        results[item.index] = failedResult(item.alert, {
          retryable: true,
          code: PublishFailureCode.writeFailed,
          message: `appending to the outbox ${this.#path} failed: ${String(error).slice(0, 300)}`,
        });
      }
    }
    return results as PublishResult[];
  }
}
