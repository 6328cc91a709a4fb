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
