/**
 * What a failure of `BatchImportFindings` means for the findings it carried, for a whole call (an error
 * thrown) and for one finding (an entry of `FailedFindings`).
 *
 * - `transient`: throttling (`LimitExceededException` is how Security Hub says it), a server error, a
 *   network failure or timeout, a finding Security Hub failed on inside (`InternalFailure`). Sent
 *   again in a later round, with backoff.
 * - `findings` (whole call) / `invalid` (one finding): Security Hub refused what was sent
 *   (`InvalidInput`: the finding breaks the ASFF schema; a finding too large). Entries of a refused
 *   batch are sent alone to find the one at fault; a finding refused alone never will pass, and fails
 *   for good.
 * - `configuration`: Security Hub is not enabled in the account and Region, the account has not
 *   subscribed to its own `default` product, or IAM denies the call (`InvalidAccess`,
 *   `AccessDenied`). Nothing will pass until a person fixes it, so nothing more is tried in the call,
 *   but the alerts stay retryable: the source holds its place and the next tick tries again once it
 *   is fixed, so no alert is lost to a misconfiguration, and the `WatermarkLag` alarm tells someone.
 * - `aborted`: the caller's signal aborted the call.
 */
export type SecurityHubFailureKind = 'transient' | 'findings' | 'invalid' | 'configuration' | 'aborted';

export interface SecurityHubFailure {
  kind: SecurityHubFailureKind;
  /** The error name without its `Exception` suffix (`LimitExceeded`, `InvalidAccess`), or the error code of a finding. */
  code: string;
  message: string;
}

const TRANSIENT = new Set([
  'InternalException',
  'InternalServerException',
  'InternalFailure',
  'LimitExceededException',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'ExpiredTokenException',
]);

const FINDINGS = new Set([
  'InvalidInputException',
  'ValidationException',
  'SerializationException',
  'RequestEntityTooLargeException',
]);

/** `FailedFindings` codes that mean the finding itself can never be imported. */
const INVALID_FINDING_CODES = new Set([
  'InvalidInput',
  'InvalidInputException',
  'ValidationException',
  'FindingSizeExceeded',
]);

/** `FailedFindings` codes that mean the account, not the finding, is at fault. */
const CONFIGURATION_FINDING_CODES = new Set([
  'InvalidAccess',
  'InvalidAccessException',
  'AccessDenied',
  'AccessDeniedException',
]);

/**
 * Classifies an error thrown by `SecurityHubClient.send(BatchImportFindingsCommand)`.
 *
 * @example
 * ```ts
 * classifySecurityHubCallError(new LimitExceededException({ message: 'Rate exceeded', $metadata: {} })).kind; // 'transient'
 * ```
 */
export function classifySecurityHubCallError(error: unknown, signal?: AbortSignal): SecurityHubFailure {
  const details = error instanceof Error ? (error as Error & SdkErrorFields) : undefined;
  const name = details?.name ?? 'UnknownError';
  const code = name.replace(/Exception$/, '');
  const message = `${name}: ${details?.message ?? String(error)}`.slice(0, 500);
  if (signal?.aborted || name === 'AbortError') return { kind: 'aborted', code: 'ABORTED', message };
  if (TRANSIENT.has(name) || details?.$fault === 'server' || details?.$retryable !== undefined) {
    return { kind: 'transient', code, message };
  }
  if (FINDINGS.has(name)) return { kind: 'findings', code, message };
  // An SDK error without a fault side never got an answer from Security Hub: the network failed.
  if (details?.$fault === undefined) return { kind: 'transient', code, message };
  return { kind: 'configuration', code, message };
}

/**
 * Classifies one entry of a `BatchImportFindings` answer's `FailedFindings`. A code not known here is
 * taken as transient: the finding is sent again, and stays retryable if it never passes.
 *
 * @example
 * ```ts
 * classifyFailedFinding({ Id: 'f1', ErrorCode: 'InvalidInput', ErrorMessage: 'Finding does not adhere to Amazon Finding Format' }).kind; // 'invalid'
 * ```
 */
export function classifyFailedFinding(failed: {
  ErrorCode?: string | undefined;
  ErrorMessage?: string | undefined;
}): SecurityHubFailure {
  const code = typeof failed.ErrorCode === 'string' && failed.ErrorCode !== '' ? failed.ErrorCode : 'Unknown';
  const message = `Security Hub refused the finding (${code}): ${failed.ErrorMessage ?? ''}`.slice(0, 500);
  if (INVALID_FINDING_CODES.has(code)) return { kind: 'invalid', code, message };
  if (CONFIGURATION_FINDING_CODES.has(code)) return { kind: 'configuration', code, message };
  return { kind: 'transient', code, message };
}

/** Fields the AWS SDK sets on the errors it throws. */
interface SdkErrorFields {
  $fault?: 'client' | 'server';
  $retryable?: { throttling?: boolean };
}
