import { Writable } from 'node:stream';
import type { Clock } from '../shared/clock.js';
import { describeAlert } from '../shared/notify/alert-facts.js';
import { formatHeadline } from '../shared/notify/headline.js';
import {
  type Alert,
  ConsoleNotifier,
  type Notifier,
  type PublishOptions,
  type PublishResult,
  type Severity,
} from '../shared/notify/index.js';

/** Options of {@link DemoNotifier}. */
export interface DemoNotifierOptions {
  stream: NodeJS.WritableStream;
  clock: Clock;
  /** ANSI colours. */
  color: boolean;
  /** Whether an alert is printed in full (email and Slack preview) rather than on one line. */
  printInFull: (alert: Alert) => boolean;
}

const SEVERITY_COLOR: Readonly<Record<Severity, string>> = {
  critical: '\u001b[1;37;41m',
  high: '\u001b[1;31m',
  medium: '\u001b[1;33m',
  low: '\u001b[1;36m',
  info: '\u001b[1;37m',
};
const RESET = '\u001b[0m';

/**
 * The demo's notifier: some alerts as the console notifier prints them (the email, then the Slack
 * preview), the others on one line each (severity and headline: what, where, who), so a first tick of fifty alerts still
 * reads at a glance. Every alert goes through the console notifier either way, so each one is built
 * into the SNS entry and checked by the validator the Lambda's publisher runs, and the results are
 * that notifier's own.
 *
 * @example
 * ```ts
 * const notifier = new DemoNotifier({ stream: process.stdout, clock, color: true, printInFull: (alert) => alert.severity === 'critical' });
 * ```
 */
export class DemoNotifier implements Notifier {
  readonly #stream: NodeJS.WritableStream;
  readonly #full: ConsoleNotifier;
  readonly #checked: ConsoleNotifier;
  readonly #color: boolean;
  readonly #printInFull: (alert: Alert) => boolean;

  constructor(options: DemoNotifierOptions) {
    this.#stream = options.stream;
    this.#color = options.color;
    this.#printInFull = options.printInFull;
    this.#full = new ConsoleNotifier({ stream: options.stream, clock: options.clock, color: options.color });
    const discard = new Writable({
      write: (_chunk, _encoding, callback) => callback(),
    });
    this.#checked = new ConsoleNotifier({ stream: discard, clock: options.clock, color: false });
  }

  async publish(alerts: readonly Alert[], options: PublishOptions = {}): Promise<PublishResult[]> {
    const results: PublishResult[] = [];
    for (const alert of alerts) {
      if (this.#printInFull(alert)) {
        this.#stream.write('\n');
        const [result] = await this.#full.publish([alert], options);
        this.#stream.write('\n');
        results.push(result as PublishResult);
        continue;
      }
      const [result] = await this.#checked.publish([alert], options);
      if (result?.status === 'sent') this.#stream.write(`${this.#line(alert)}\n`);
      results.push(result as PublishResult);
    }
    return results;
  }

  #line(alert: Alert): string {
    const label = alert.severity.toUpperCase().padEnd(8);
    const severity = this.#color ? `${SEVERITY_COLOR[alert.severity]}${label}${RESET}` : label;
    return `  ${severity}  ${printable(formatHeadline(alert, describeAlert(alert)))}`;
  }
}

/** Event values reach the terminal: control characters (escape sequences) are shown, not obeyed. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');
}
