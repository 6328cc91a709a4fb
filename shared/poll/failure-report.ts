import { AtlasError } from '../atlas/errors.js';

/** What a summary says about an error. */
export interface FailureReport {
  /** Atlas's `errorCode` when it gave one, else the error's own `code`, else `UNEXPECTED_ERROR`. */
  errorCode: string;
  /** The error's message: the project's errors say what happened and what to do, and hold no secret. */
  message: string;
  /** HTTP status of the Atlas answer, if the error came from one. */
  httpStatus?: number;
  /** Atlas refused the credentials (401) or their permissions (403). */
  authFailure: boolean;
  /** How long Atlas asked to wait (`Retry-After` of a 429), in milliseconds, when it said. */
  retryAfterMs?: number;
}

/**
 * Turns an error that stopped a source, a discovery or an inventory into what the tick reports.
 *
 * @example
 * ```ts
 * describeFailure(error); // { errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST', httpStatus: 403, authFailure: true, ... }
 * ```
 */
export function describeFailure(error: unknown): FailureReport {
  if (error instanceof AtlasError) {
    const status = error.status;
    return {
      errorCode: error.errorCode ?? error.code,
      message: error.message,
      ...(status === undefined ? {} : { httpStatus: status }),
      authFailure: status === 401 || status === 403,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      errorCode: typeof code === 'string' && code !== '' ? code : 'UNEXPECTED_ERROR',
      message: error.message,
      authFailure: false,
    };
  }
  return { errorCode: 'UNEXPECTED_ERROR', message: String(error), authFailure: false };
}
