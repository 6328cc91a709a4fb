import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, Logger } from '../../shared/logger.js';

/** Powertools' Logger behind the logger interface `shared/` writes to. */
export function sharedLogger(logger: PowertoolsLogger): Logger {
  const forward =
    (write: (message: string, ...attributes: LogAttributes[]) => void) =>
    (message: string, attributes?: LogAttributes): void => {
      if (attributes === undefined) write(message);
      else write(message, attributes);
    };
  return {
    debug: forward(logger.debug.bind(logger)),
    info: forward(logger.info.bind(logger)),
    warn: forward(logger.warn.bind(logger)),
    error: forward(logger.error.bind(logger)),
  };
}
