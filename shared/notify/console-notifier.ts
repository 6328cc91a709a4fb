import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert, Severity } from './alert.js';
import { chatbotNotificationSchema } from './chatbot-notification.js';
import { assertConsoleLinks } from './event-links.js';
import { type ConsoleLinkOptions, formatContextAt } from './format-context.js';
import { type Notifier, PublishFailureCode, type PublishOptions, type PublishResult } from './notifier.js';
import { failedResult, type PreparedEntry, prepareEntries } from './prepare-entries.js';
import { renderSlackPreview } from './slack-preview.js';
import type { SnsMessageBody } from './sns-entry.js';

export interface ConsoleNotifierOptions {
  /** Where alerts are printed, such as `process.stdout`. */
  stream: NodeJS.WritableStream;
  clock: Clock;
  /** Where console links in messages point. */
  console?: ConsoleLinkOptions;
  /** Where the console links of each connection's alerts point, by connection (see `FormatContext`). */
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
  /** ANSI colours. Default: only when `stream` is a TTY. */
  color?: boolean;
  logger?: Logger;
}

const SEVERITY_COLOR: Readonly<Record<Severity, string>> = {
  critical: '\u001b[1;37;41m',
  high: '\u001b[1;31m',
  medium: '\u001b[1;33m',
  low: '\u001b[1;36m',
  info: '\u001b[1;37m',
};
const RESET = '\u001b[0m';
const WIDTH = 100;

/**
 * Prints each alert for a person at a terminal, for local runs and the demo: the email exactly as SNS
 * would deliver it (subject, then text), then a preview of how Slack shows the Chatbot notification. It
 * prints what the SNS notifier would send: the same entry, checked by the same validator; an invalid
 * entry is not printed and fails like it would in the Lambda. Colour only on a TTY.
 *
 * @example
 * ```ts
 * const notifier = new ConsoleNotifier({ stream: process.stdout, clock: systemClock });
 * await notifier.publish(alerts);
 * ```
 */
export class ConsoleNotifier implements Notifier {
  readonly #stream: NodeJS.WritableStream;
  readonly #clock: Clock;
  readonly #console: ConsoleLinkOptions | undefined;
  readonly #connectionConsoles: ReadonlyMap<string, ConsoleLinkOptions> | undefined;
  readonly #color: boolean;
  readonly #logger: Logger;

  /** @throws {NotifyConfigError} when the console base URL is not an http(s) URL. */
  constructor(options: ConsoleNotifierOptions) {
    assertConsoleLinks(options.console);
    this.#stream = options.stream;
    this.#clock = options.clock;
    this.#console = options.console;
    for (const links of options.connectionConsoles?.values() ?? []) assertConsoleLinks(links);
    this.#connectionConsoles = options.connectionConsoles;
    this.#color = options.color ?? (options.stream as { isTTY?: boolean }).isTTY === true;
    this.#logger = options.logger ?? silentLogger;
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    const context = formatContextAt(this.#clock.now(), this.#console, this.#connectionConsoles);
    const { prepared, results } = prepareEntries(alerts, {
      context,
      entryId: (_, index) => `alert-${index}`,
      logger: this.#logger,
    });
    for (const item of prepared) {
      if (options.signal?.aborted) {
        results[item.index] = failedResult(item.alert, {
          retryable: true,
          code: PublishFailureCode.aborted,
          message: 'publishing was aborted before this alert was printed',
        });
        continue;
      }
      try {
        await write(this.#stream, this.#render(item));
        results[item.index] = { status: 'sent', fingerprint: item.alert.fingerprint };
      } catch (error) {
        results[item.index] = failedResult(item.alert, {
          retryable: true,
          code: PublishFailureCode.writeFailed,
          message: `printing the alert failed: ${String(error).slice(0, 300)}`,
        });
      }
    }
    return results as PublishResult[];
  }

  #render({ alert, entry }: PreparedEntry): string {
    const body = JSON.parse(entry.Message) as SnsMessageBody;
    const notification = chatbotNotificationSchema.parse(JSON.parse(body.default));
    const rule = '\u2550'.repeat(WIDTH);
    const subject = this.#color ? `${SEVERITY_COLOR[alert.severity]}${entry.Subject}${RESET}` : entry.Subject;
    return [
      rule,
      `Subject: ${subject}`,
      '\u2500'.repeat(WIDTH),
      body.email.trimEnd(),
      '',
      renderSlackPreview(notification, { color: this.#color, width: WIDTH }),
    ].join('\n');
  }
}

/**
 * Writes and waits for the stream to take the text. The error listener stays until it fires once: a
 * failed write also emits `error`, which would otherwise crash the process.
 */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    stream.once('error', onError);
    stream.write(text, (error?: Error | null) => {
      if (error) {
        reject(error);
        return;
      }
      stream.off('error', onError);
      resolve();
    });
  });
}
