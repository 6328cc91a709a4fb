/**
 * Errors the simulator throws at its callers (tests, the CLI, benchmarks). What it answers to HTTP
 * clients is not an exception: see `api-problem.ts`.
 */

/** Base of every error the simulator throws. */
export class SimulatorError extends Error {
  readonly code: string = 'SIMULATOR_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimulatorError';
  }
}

/** The seed data (a file or an object) is not valid JSON or breaks the seed schema. */
export class SeedValidationError extends SimulatorError {
  override readonly code = 'SIMULATOR_SEED_INVALID';
  /** One line per problem, each naming the field path (`projects[2].orgId: ...`). */
  readonly issues: readonly string[];

  constructor(message: string, options?: ErrorOptions & { issues?: readonly string[] }) {
    super(message, options);
    this.name = 'SeedValidationError';
    this.issues = options?.issues ?? [];
  }
}

/** An option passed to `startSimulator` or to one of its methods is out of range or inconsistent. */
export class SimulatorOptionsError extends SimulatorError {
  override readonly code = 'SIMULATOR_INVALID_OPTIONS';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimulatorOptionsError';
  }
}

/** An event handed to `addEvent` / `addEvents` cannot be stored (unknown scope, bad date, duplicate id). */
export class SimulatorEventError extends SimulatorError {
  override readonly code = 'SIMULATOR_INVALID_EVENT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimulatorEventError';
  }
}

/** The HTTP server could not listen (port taken, address not available). */
export class SimulatorStartError extends SimulatorError {
  override readonly code = 'SIMULATOR_START_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimulatorStartError';
  }
}
