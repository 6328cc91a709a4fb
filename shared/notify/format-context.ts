/**
 * What formatting needs to know beyond the alert: when the message is built, and where people open the
 * Atlas or Ops Manager console. The poller builds it from its configuration and clock.
 */

/**
 * The API generation the poller talks to. The same names as the poller configuration's `atlas.flavor`,
 * so the poller passes its setting through unchanged.
 */
export type AtlasFlavor = 'ops-manager' | 'atlas-v1' | 'atlas-v2';

/** Where the web console of the polled deployment lives. */
export interface ConsoleLinkOptions {
  flavor: AtlasFlavor;
  /** The console's base URL: `https://cloud.mongodb.com`, or an Ops Manager host such as `https://om.example.com:8080`. */
  baseUrl: string;
}

/** Everything a formatter takes besides the alert. */
export interface FormatContext {
  /**
   * When the message is built, in milliseconds since the Unix epoch, on the notifier's clock. Messages
   * give absolute times only, so no text depends on it.
   */
  now: number;
  /** Where console links point; without it, messages carry only the event's own API link. */
  console?: ConsoleLinkOptions;
}

/**
 * The context of one publish call: the clock's time now, and the console links when there are any.
 *
 * @example
 * ```ts
 * const context = formatContextAt(clock.now(), { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' });
 * ```
 */
export function formatContextAt(now: number, consoleLinks: ConsoleLinkOptions | undefined): FormatContext {
  return consoleLinks === undefined ? { now } : { now, console: consoleLinks };
}
