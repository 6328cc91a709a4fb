import type { Logger } from '../shared/logger.js';

/** Options of {@link createStderrLogger}. */
export interface StderrLoggerOptions {
  stream: NodeJS.WritableStream;
  /** Also write debug and info lines. Default: warnings and errors only. */
  verbose?: boolean;
}

/**
 * The logger local runs pass to the poller: one plain line per entry on stderr (`warn: message
 * {"attribute":…}`), warnings and errors only unless `verbose`. The code that logs never puts a
 * credential into a message or an attribute, so none is filtered here.
 *
 * @example
 * ```ts
 * const logger = createStderrLogger({ stream: process.stderr, verbose: options.verbose === true });
 * ```
 */
export function createStderrLogger(options: StderrLoggerOptions): Logger {
  const { stream } = options;
  const write =
    (level: string) =>
    (message: string, attributes?: Record<string, unknown>): void => {
      const details =
        attributes === undefined || Object.keys(attributes).length === 0
          ? ''
          : ` ${JSON.stringify(attributes)}`;
      stream.write(`${level}: ${message}${details}\n`);
    };
  const quiet = (): void => {};
  return {
    debug: options.verbose ? write('debug') : quiet,
    info: options.verbose ? write('info') : quiet,
    warn: write('warn'),
    error: write('error'),
  };
}
