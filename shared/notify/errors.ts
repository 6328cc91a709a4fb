/**
 * Errors of alert delivery. Delivery problems of single alerts never throw: notifiers report them as
 * failed {@link PublishResult}s. These are thrown only for what the caller got wrong (a notifier's
 * configuration) or when the caller asks for an exception (`assertValidSnsEntry`).
 */

/** Base class of every error thrown by `shared/notify`. */
export class NotifyError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'NOTIFY_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotifyError';
  }
}

/** A notifier was built with options it cannot work with (a topic ARN that is not one, a bad URL). */
export class NotifyConfigError extends NotifyError {
  override readonly code: string = 'NOTIFY_CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotifyConfigError';
  }
}

/** What an {@link InvalidSnsEntryError} knows beyond its message. */
export interface InvalidSnsEntryErrorOptions extends ErrorOptions {
  /** Every rule the entry breaks, one sentence each. */
  problems?: readonly string[];
}

/** An SNS entry breaks a rule of SNS, of AWS Chatbot or of this project's message format. */
export class InvalidSnsEntryError extends NotifyError {
  override readonly code: string = 'NOTIFY_ENTRY_INVALID';
  /** Every rule the entry breaks, one sentence each. */
  readonly problems: readonly string[];
  constructor(message: string, options?: InvalidSnsEntryErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InvalidSnsEntryError';
    this.problems = options?.problems ?? [];
  }
}
