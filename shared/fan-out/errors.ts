/**
 * Errors of the fan-out: the dispatcher that sends one queue message per source and the worker that
 * polls the sources its messages name. Each carries a stable `code` for logs and metrics.
 */

/** Base class of every fan-out error. */
export class FanOutError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'FAN_OUT_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FanOutError';
  }
}

/** A queue message that is not a source message this version understands; it goes to the dead-letter queue. */
export class SourceMessageError extends FanOutError {
  override readonly code: string = 'FAN_OUT_BAD_MESSAGE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceMessageError';
  }
}

/** The queue refused some of a tick's source messages after a retry: those sources wait for the next tick. */
export class SourceDispatchError extends FanOutError {
  override readonly code: string = 'FAN_OUT_DISPATCH_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceDispatchError';
  }
}
