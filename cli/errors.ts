/** Exit codes of the `atlas-audit-alerts` command. */
export const ExitCode = {
  ok: 0,
  /** A check failed: invalid rule files, a failing rule test. */
  failed: 1,
  /** The command line was wrong. */
  usage: 2,
  /** Atlas refused the credentials or their permissions. */
  auth: 3,
  /** Atlas does not know the org, project, key or event. */
  notFound: 4,
  /** The network failed, or Atlas kept rate limiting after every retry. */
  network: 5,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly exitCode = ExitCode.usage;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/** A command that ran but whose outcome is a failure (exit 1), with its message already printed. */
export class CommandFailed extends Error {
  readonly exitCode: ExitCodeValue;
  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failed) {
    super(message);
    this.name = 'CommandFailed';
    this.exitCode = exitCode;
  }
}
