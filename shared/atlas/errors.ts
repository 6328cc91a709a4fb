/**
 * Errors of the Atlas client. Every one extends {@link AtlasError}, carries a stable `code` for logs and
 * metrics, and says what happened, for which request, and what to do. None ever holds a credential: the
 * client builds messages from the method, the path without its query, the status and Atlas's own error
 * fields, with every known secret scrubbed from text a server sent.
 */

/** What an {@link AtlasError} knows about the request that failed, beyond its message. */
export interface AtlasErrorOptions extends ErrorOptions {
  /** HTTP status of Atlas's answer; absent when no answer came (network) or before sending. */
  status?: number;
  /** Atlas's `errorCode` (`IP_ADDRESS_NOT_ON_ACCESS_LIST`, `RATE_LIMITED`...) or OAuth's `error`. */
  errorCode?: string;
  /** HTTP method of the request. */
  method?: string;
  /** Request path, without its query string. */
  path?: string;
  /** Whether a later attempt may succeed (rate limits, server and network failures). */
  retryable?: boolean;
  /** How long Atlas asked the client to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** How many HTTP attempts were made before giving up. */
  attempts?: number;
}

/** Base class of every error the Atlas client throws. */
export class AtlasError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'ATLAS_ERROR';
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly attempts: number | undefined;

  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AtlasError';
    this.status = options?.status;
    this.errorCode = options?.errorCode;
    this.method = options?.method;
    this.path = options?.path;
    this.retryable = options?.retryable ?? false;
    this.retryAfterMs = options?.retryAfterMs;
    this.attempts = options?.attempts;
  }
}

/** Atlas refused the credentials (401) after they were sent, or refused the service account secret. */
export class AtlasAuthError extends AtlasError {
  override readonly code: string = 'ATLAS_AUTH';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasAuthError';
  }
}

/** Atlas knows the caller but refuses this request (403): a missing role, or an IP not on the access list. */
export class AtlasForbiddenError extends AtlasError {
  override readonly code: string = 'ATLAS_FORBIDDEN';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasForbiddenError';
  }
}

/** Atlas does not know the org, project, API key or event (404). */
export class AtlasNotFoundError extends AtlasError {
  override readonly code: string = 'ATLAS_NOT_FOUND';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasNotFoundError';
  }
}

/** Atlas kept answering 429 until the attempts or the deadline ran out. */
export class AtlasRateLimitError extends AtlasError {
  override readonly code: string = 'ATLAS_RATE_LIMITED';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, { retryable: true, ...options });
    this.name = 'AtlasRateLimitError';
  }
}

/** The server does not serve the requested API version: 406 (no such version) or 410 (retired). */
export class AtlasVersionError extends AtlasError {
  override readonly code: string = 'ATLAS_VERSION';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasVersionError';
  }
}

/** Atlas failed (5xx), on every attempt for the retryable statuses. */
export class AtlasServerError extends AtlasError {
  override readonly code: string = 'ATLAS_SERVER';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasServerError';
  }
}

/** No answer came: connection refused or reset, DNS failure, timeout, body cut short. */
export class AtlasNetworkError extends AtlasError {
  override readonly code: string = 'ATLAS_NETWORK';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, { retryable: true, ...options });
    this.name = 'AtlasNetworkError';
  }
}

/** Atlas answered with a body the client cannot use: not JSON, or not the documented shape. */
export class AtlasResponseError extends AtlasError {
  override readonly code: string = 'ATLAS_RESPONSE';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasResponseError';
  }
}

/** The request is invalid: caught before sending (a bad id, `itemsPerPage` out of range) or a 400. */
export class AtlasRequestError extends AtlasError {
  override readonly code: string = 'ATLAS_REQUEST';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasRequestError';
  }
}

/** The client's options are invalid (a malformed base URL, a retry policy out of range). */
export class AtlasConfigError extends AtlasError {
  override readonly code: string = 'ATLAS_CONFIG';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasConfigError';
  }
}

/** The base URL is plain `http://` to a host that is not loopback, and `allowInsecureHttp` is off. */
export class AtlasInsecureUrlError extends AtlasConfigError {
  override readonly code: string = 'ATLAS_INSECURE_URL';
  constructor(message: string, options?: AtlasErrorOptions) {
    super(message, options);
    this.name = 'AtlasInsecureUrlError';
  }
}
