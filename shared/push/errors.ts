/**
 * Errors of the push receiver (Atlas webhooks that wake a poll). Each carries a stable `code` for logs
 * and metrics. None ever carries a webhook secret or a signature.
 */

/** Base class of every push error. */
export class PushError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'PUSH_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PushError';
  }
}

/** The receiver's settings are missing or wrong: it cannot start. */
export class PushConfigError extends PushError {
  override readonly code: string = 'PUSH_CONFIG_INVALID';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PushConfigError';
  }
}

/** A connection's webhook secret could not be read, or holds nothing usable. */
export class WebhookSecretError extends PushError {
  override readonly code: string = 'PUSH_SECRET_UNREADABLE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WebhookSecretError';
  }
}
