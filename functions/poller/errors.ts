/** The base of every error the poller's Lambda entry point throws itself. */
export class PollerError extends Error {
  readonly code: string = 'POLLER_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PollerError';
  }
}

/** The code runs outside the Lambda bundle, where no rule pack was compiled in. */
export class BundledRulePackMissingError extends PollerError {
  override readonly code = 'BUNDLED_RULE_PACK_MISSING';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BundledRulePackMissingError';
  }
}

/**
 * The function's configuration (`ATLAS_AUDIT_ALERTS_CONFIG`) is missing, not JSON, or not a
 * configuration the poller can run with. Deploying the stack again writes a valid one.
 */
export class PollerConfigError extends PollerError {
  override readonly code = 'POLLER_CONFIG_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PollerConfigError';
  }
}

/**
 * The Atlas credentials could not be read from Secrets Manager, or the secret does not hold them in a
 * shape the poller knows. The message names the secret's ARN, never a value from it.
 */
export class CredentialsSecretError extends PollerError {
  override readonly code: string = 'CREDENTIALS_SECRET_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CredentialsSecretError';
  }
}

/** Secrets Manager could not be asked for the secret: access denied, the secret is gone, or the call failed. */
export class CredentialsSecretUnreadableError extends CredentialsSecretError {
  override readonly code = 'CREDENTIALS_SECRET_UNREADABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CredentialsSecretUnreadableError';
  }
}
