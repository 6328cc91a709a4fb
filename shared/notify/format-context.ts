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
  /**
   * Where the console links of an alert read through a connection other than `default` point, by its
   * name (`alert.context.connection`): an Ops Manager's own host. An alert of a connection not here
   * carries only its API link, never a link to another connection's console.
   */
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>;
}

/**
 * Where the console links of `alert` point: its connection's console, or `context.console` for an
 * alert of the top-level settings.
 *
 * @example
 * ```ts
 * eventLinks(alert.events.at(-1) ?? {}, consoleOf(context, alert));
 * ```
 */
export function consoleOf(
  context: FormatContext,
  alert: { context?: { connection?: string } | undefined },
): ConsoleLinkOptions | undefined {
  const connection = alert.context?.connection;
  return connection === undefined ? context.console : context.connectionConsoles?.get(connection);
}

/**
 * The context of one publish call: the clock's time now, and the console links when there are any.
 *
 * @example
 * ```ts
 * const context = formatContextAt(clock.now(), { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' });
 * ```
 */
export function formatContextAt(
  now: number,
  consoleLinks: ConsoleLinkOptions | undefined,
  connectionConsoles?: ReadonlyMap<string, ConsoleLinkOptions>,
): FormatContext {
  return {
    now,
    ...(consoleLinks === undefined ? {} : { console: consoleLinks }),
    ...(connectionConsoles === undefined ? {} : { connectionConsoles }),
  };
}
