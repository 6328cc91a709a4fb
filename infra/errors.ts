/** The base of every error the CDK app throws before it hands a stack to CloudFormation. */
export class InfraError extends Error {
  readonly code: string = 'INFRA_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InfraError';
  }
}

/** One wrong setting: where it is in the configuration, and what is wrong with it. */
export interface DeployConfigProblem {
  /** Dotted path from the configuration's root, such as `alerts.emails[1]`; empty for the root. */
  path: string;
  message: string;
  /** Where the configuration file sets it; absent when the `cdk.json` context does. */
  location?: { file: string; line: number; column: number };
}

export interface DeployConfigErrorOptions extends ErrorOptions {
  problems?: readonly DeployConfigProblem[];
}

/**
 * The deploy configuration is invalid. The message lists every wrong setting with its path, so one
 * `cdk synth` shows all of them at once.
 */
export class DeployConfigError extends InfraError {
  override readonly code = 'DEPLOY_CONFIG_INVALID';
  readonly problems: readonly DeployConfigProblem[];
  constructor(message: string, options?: DeployConfigErrorOptions) {
    super(message, options);
    this.name = 'DeployConfigError';
    this.problems = options?.problems ?? [];
  }
}

/**
 * The deploy configuration names no organization and no project, and does not say that is meant
 * (`sources.allowNone`): the deployed poller would fail every tick with nothing to poll.
 */
export class NothingToPollError extends InfraError {
  override readonly code = 'DEPLOY_NOTHING_TO_POLL';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NothingToPollError';
  }
}

/** The configuration file named by `--context config=…` cannot be read or parsed. */
export class DeployConfigFileError extends InfraError {
  override readonly code = 'DEPLOY_CONFIG_FILE_UNREADABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeployConfigFileError';
  }
}

/** The poller's environment would not fit Lambda's 4 KB limit on environment variables. */
export class PollerEnvironmentTooLargeError extends InfraError {
  override readonly code = 'POLLER_ENVIRONMENT_TOO_LARGE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PollerEnvironmentTooLargeError';
  }
}

/** A function's prebuilt bundle is not in the package (an incomplete install, or a checkout never built). */
export class LambdaBundlesMissingError extends InfraError {
  override readonly code = 'LAMBDA_BUNDLES_MISSING';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LambdaBundlesMissingError';
  }
}
