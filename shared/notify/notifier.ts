import type { Alert } from './alert.js';

/**
 * The port the poller delivers alerts through. The SNS notifier runs in the Lambda; the console and
 * outbox notifiers run locally. All three share this contract:
 *
 * - `publish` resolves with one result per alert, in the order of `alerts`, each naming the alert by its
 *   fingerprint. It rejects only on a programming error, never because delivery failed.
 * - `sent` means delivered (SNS accepted it, or it was written); only `sent` alerts may be marked SENT.
 * - `failed` says whether publishing the same alert again later may succeed (`retryable`): an alert that
 *   breaks the message rules never will; one that met throttling, an outage or an abort may.
 */
export interface Notifier {
  publish(alerts: readonly Alert[], options?: PublishOptions): Promise<PublishResult[]>;
}

export interface PublishOptions {
  /** Stops retries and waits; alerts not yet delivered come back failed and retryable (`ABORTED`). */
  signal?: AbortSignal;
}

/** The alert was delivered. */
export interface PublishSent {
  status: 'sent';
  fingerprint: string;
  /** The SNS message id, where the notifier has one. */
  messageId?: string;
}

/** The alert was not delivered. */
export interface PublishFailed {
  status: 'failed';
  fingerprint: string;
  /** Whether publishing it again later may succeed. */
  retryable: boolean;
  /** Stable reason: one of {@link PublishFailureCode}, or the SNS error code (`InternalError`, `KMSThrottling`...). */
  code: string;
  /** What happened, for logs: never the message content. */
  message: string;
}

export type PublishResult = PublishSent | PublishFailed;

/** Failure codes of this project's own (the others are SNS error codes). */
export const PublishFailureCode = {
  /** The entry breaks a rule of SNS, Chatbot or the message format (see `validateSnsEntry`). */
  invalidEntry: 'INVALID_ENTRY',
  /** Formatting the alert threw: a bug, reported per alert so the others still go out. */
  formatFailed: 'FORMAT_FAILED',
  /** The caller's signal aborted before the alert was delivered. */
  aborted: 'ABORTED',
  /** SNS answered without saying what happened to the entry. */
  missingResult: 'MISSING_RESULT',
  /** Writing the local outbox or console stream failed. */
  writeFailed: 'WRITE_FAILED',
} as const;
