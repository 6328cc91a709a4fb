/**
 * The keys Powertools Logger writes on every line itself (its `ReservedKeys`, and the Lambda context
 * and trace keys its formatter adds). An attribute named `level`, `message`, `sampling_rate`, `service`
 * or `timestamp` is dropped with a warning line in its place, and one named after a context key
 * overwrites that key: either way the line no longer says what it was written to say. Name a cause
 * `error`, `detail` or `reason`.
 */
export const RESERVED_LOG_KEYS = [
  'level',
  'message',
  'sampling_rate',
  'service',
  'timestamp',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'tenant_id',
] as const;

/** A key the logger writes itself: never an attribute. */
export type ReservedLogKey = (typeof RESERVED_LOG_KEYS)[number];

/**
 * The attributes of a log line: any key but a {@link ReservedLogKey}, which fails to compile.
 *
 * @example
 * ```ts
 * logger.error('source failed', { source, errorCode, error: failure.message }); // compiles
 * logger.error('source failed', { source, message: failure.message }); // does not: `message` is reserved
 * ```
 */
export type LogAttributes = { readonly [key: string]: unknown } & {
  readonly [key in ReservedLogKey]?: never;
};

/**
 * The structured logger that code in `shared/` writes to. Powertools' `Logger` satisfies it in the
 * Lambda; the CLI passes one that writes JSON lines or plain text to stderr; tests pass a recorder.
 * Callers never put credentials into a message or an attribute, nor a reserved key into the attributes.
 */
export interface Logger {
  debug(message: string, attributes?: LogAttributes): void;
  info(message: string, attributes?: LogAttributes): void;
  warn(message: string, attributes?: LogAttributes): void;
  error(message: string, attributes?: LogAttributes): void;
}

/** A logger that drops everything: the default where the caller passes none. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
