import {
  AtlasAuthError,
  AtlasConfigError,
  AtlasError,
  AtlasForbiddenError,
  AtlasNetworkError,
  AtlasNotFoundError,
  AtlasRateLimitError,
  AtlasRequestError,
  AtlasResponseError,
  AtlasServerError,
} from '../shared/atlas/errors.js';
import { ExitCode, type ExitCodeValue } from './errors.js';

/**
 * The exit code for an error that reached the top of the command: the error's own `exitCode` where
 * it has one; for Atlas errors, 2 for options refused before sending, 3 for refused credentials or
 * permissions, 4 for an unknown id, 5 for network failures and rate limits or server failures that
 * outlasted the retries; else 1.
 *
 * @example
 * ```ts
 * exitCodeFor(new AtlasNotFoundError('...')); // 4
 * ```
 */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof AtlasError) {
    return atlasExitCode(error);
  }
  if (typeof error === 'object' && error !== null && 'exitCode' in error) {
    const code = (error as { exitCode: unknown }).exitCode;
    if (typeof code === 'number' && (Object.values(ExitCode) as number[]).includes(code)) {
      return code as ExitCodeValue;
    }
  }
  return ExitCode.failed;
}

function atlasExitCode(error: AtlasError): ExitCodeValue {
  if (error instanceof AtlasAuthError || error instanceof AtlasForbiddenError) {
    return ExitCode.auth;
  }
  if (error instanceof AtlasNotFoundError) {
    return ExitCode.notFound;
  }
  if (
    error instanceof AtlasNetworkError ||
    error instanceof AtlasRateLimitError ||
    (error instanceof AtlasServerError && error.retryable) ||
    (error instanceof AtlasResponseError && error.retryable)
  ) {
    return ExitCode.network;
  }
  if (
    error instanceof AtlasConfigError ||
    (error instanceof AtlasRequestError && error.status === undefined)
  ) {
    return ExitCode.usage;
  }
  return ExitCode.failed;
}
