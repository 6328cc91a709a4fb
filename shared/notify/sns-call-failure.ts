/**
 * What an error thrown by a whole `PublishBatch` call means for the entries it carried.
 *
 * - `transient`: throttling, an SNS server error, a network failure or timeout. Retry with backoff.
 * - `entries`: SNS refused the request because of what it carried (an invalid parameter, a request too
 *   long). Entries sent alone tell which one is at fault; a lone entry refused so is never sent.
 * - `configuration`: the topic, its permissions or its KMS key are wrong (not found, not authorised, key
 *   disabled). Nothing will pass until someone fixes it, so nothing more is tried in this call, but the
 *   alerts stay retryable: they will go out on a later tick once it is fixed.
 * - `aborted`: the caller's signal aborted the call.
 */
export type SnsCallFailureKind = 'transient' | 'entries' | 'configuration' | 'aborted';

export interface SnsCallFailure {
  kind: SnsCallFailureKind;
  /** The SNS error code without its `Exception` suffix (`Throttled`, `AuthorizationError`), or the error name. */
  code: string;
  message: string;
}

const TRANSIENT = new Set([
  'ThrottledException',
  'ThrottlingException',
  'Throttling',
  'KMSThrottlingException',
  'InternalErrorException',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
]);

const ENTRIES = new Set([
  'InvalidParameterException',
  'InvalidParameterValueException',
  'ValidationException',
  'BatchRequestTooLongException',
  'TooManyEntriesInBatchRequestException',
  'BatchEntryIdsNotDistinctException',
  'InvalidBatchEntryIdException',
  'EmptyBatchRequestException',
]);

/**
 * Classifies an error thrown by `SNSClient.send(PublishBatchCommand)`.
 *
 * @example
 * ```ts
 * classifySnsCallError(new ThrottledException({ message: 'Rate exceeded', $metadata: {} })).kind; // 'transient'
 * ```
 */
export function classifySnsCallError(error: unknown, signal?: AbortSignal): SnsCallFailure {
  const details = error instanceof Error ? (error as Error & SdkErrorFields) : undefined;
  const name = details?.name ?? 'UnknownError';
  const code = name.replace(/Exception$/, '');
  const message = `${name}: ${details?.message ?? String(error)}`.slice(0, 500);
  if (signal?.aborted || name === 'AbortError') return { kind: 'aborted', code: 'ABORTED', message };
  if (TRANSIENT.has(name) || details?.$fault === 'server' || details?.$retryable !== undefined) {
    return { kind: 'transient', code, message };
  }
  if (ENTRIES.has(name)) return { kind: 'entries', code, message };
  // An SDK error without a fault side never got an answer from SNS: the network failed.
  if (details?.$fault === undefined) return { kind: 'transient', code, message };
  return { kind: 'configuration', code, message };
}

/** Fields the AWS SDK sets on the errors it throws. */
interface SdkErrorFields {
  $fault?: 'client' | 'server';
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number };
}
