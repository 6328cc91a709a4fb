/**
 * The structured logger that code in `shared/` writes to. Powertools' `Logger` satisfies it in the
 * Lambda; the CLI passes one that writes JSON lines or plain text to stderr; tests pass a recorder.
 * Callers never put credentials into a message or an attribute.
 */
export interface Logger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/** A logger that drops everything: the default where the caller passes none. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
