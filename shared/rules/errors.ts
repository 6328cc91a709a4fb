import type { RuleWarning, RuleWarningCode } from './lint/rule-warning.js';
import type { RulePackFootprint } from './pack-footprint.js';
import { formatRuleProblems } from './problem-format.js';

/** What kind of problem a rule file has: stable strings for logs, tests and tooling. */
export type RuleProblemCode =
  | 'READ_FAILED'
  | 'NO_RULE_FILES'
  | 'YAML_SYNTAX'
  | 'SCHEMA'
  | 'DUPLICATE_ID'
  | 'DUPLICATE_LIST'
  | 'DUPLICATE_LAYER'
  | 'UNKNOWN_LIST'
  | 'INVALID_LIST_CHANGE'
  | 'UNKNOWN_RULE'
  | 'INVALID_OVERRIDE'
  | 'INVALID_LIST_VALUE'
  | 'INVALID_FIELD_PATH'
  | 'INVALID_REGEX'
  | 'UNSUPPORTED_REGEX'
  | 'INVALID_CIDR'
  | 'INVALID_DURATION'
  | 'INVALID_TIME_ZONE'
  | 'INVALID_HOURS'
  | 'INVALID_TEMPLATE'
  | 'INVALID_CONDITION'
  | 'INVALID_TEST'
  /** A warning made an error by `--strict` or `rules.strict`. */
  | RuleWarningCode;

/**
 * One problem found in a rule file. `line` and `column` are 1-based and present when the problem comes
 * from a YAML file; `path` locates it inside the document either way (`rules[3].match.opType`).
 */
export interface RuleProblem {
  code: RuleProblemCode;
  /** The rule file, as the caller named it, or `<serialized rule pack>`. */
  file: string;
  /** Keys and indexes from the document's root to the offending node. */
  path: readonly (string | number)[];
  message: string;
  line?: number;
  column?: number;
  /** The source line the problem is on, without its line break. */
  sourceLine?: string;
  /** How many characters of `sourceLine` the caret underlines, from `column`. */
  length?: number;
  /** What to do about it, when there is more to say than the message: a "did you mean". */
  hint?: string;
}

/**
 * A warning of a rule layer found while the layers are put together (a user rule with no tests, an
 * exception that can never match): a {@link RuleWarning} marked as such, so that it prints among
 * problems as a warning.
 */
export interface LayerWarning extends RuleWarning {
  severity: 'warning';
}

/** The base of every error the rule engine throws. */
export class RuleError extends Error {
  readonly code: string = 'RULE_ERROR';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RuleError';
  }
}

export interface RuleLoadErrorOptions extends ErrorOptions {
  /** Every problem found, in file order. */
  problems?: readonly RuleProblem[];
}

/**
 * Rule files that cannot be used: every problem found, each with its file, line and column. The
 * message lists them all, with the offending line and a caret, so a failing `cdk synth` or CLI run
 * shows the whole picture at once.
 */
export class RuleLoadError extends RuleError {
  override readonly code = 'RULE_LOAD_FAILED';
  readonly problems: readonly RuleProblem[];
  constructor(message: string, options?: RuleLoadErrorOptions) {
    super(message, options);
    this.name = 'RuleLoadError';
    this.problems = options?.problems ?? [];
  }

  /**
   * Builds the error for a list of problems, with a message that shows them all.
   *
   * @example
   * ```ts
   * throw RuleLoadError.fromProblems(problems);
   * ```
   */
  static fromProblems(problems: readonly RuleProblem[]): RuleLoadError {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    return new RuleLoadError(
      `Rule files are invalid (${count}); fix them, then check with \`atlas-audit-alerts rules validate\`:\n${formatRuleProblems(problems)}`,
      { problems },
    );
  }
}

/** The figures of a rule pack that would not fit its function. */
export interface RulePackTooLargeErrorOptions extends ErrorOptions {
  readonly footprint: RulePackFootprint;
  /** The most heap the pack may hold in the function, in bytes. */
  readonly budgetBytes: number;
  readonly memoryMiB: number;
}

/**
 * A rule pack that is valid but, loaded, holds more of the function's heap than a tick can spare:
 * the function would run out of memory at its cold start or in its first ticks, on every invocation.
 */
export class RulePackTooLargeError extends RuleError {
  override readonly code = 'RULE_PACK_TOO_LARGE';
  readonly footprint: RulePackFootprint;
  readonly budgetBytes: number;
  readonly memoryMiB: number;
  constructor(message: string, options: RulePackTooLargeErrorOptions) {
    super(message, options);
    this.name = 'RulePackTooLargeError';
    this.footprint = options.footprint;
    this.budgetBytes = options.budgetBytes;
    this.memoryMiB = options.memoryMiB;
  }
}

/**
 * The counter store, or the first-seen store as a whole, failed while the rules evaluated a batch.
 * The batch's alerts are not returned: evaluate the same events again once the store answers
 * (counting is idempotent, and an event read again is still the first to see its value).
 */
export class RuleStateError extends RuleError {
  override readonly code = 'RULE_STATE_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RuleStateError';
  }
}

/**
 * The store did not keep one record of a first-seen rule (DynamoDB refused its item, say): the events
 * of that group were not judged by that rule and raise no first-seen alert this time, or the rule's
 * learning start was not kept. Every other rule, and every other group of the rule, went on. The
 * engine reports it (see `EvaluateOptions.onStateError`) rather than throwing it.
 */
export class FirstSeenStateError extends RuleError {
  override readonly code = 'FIRST_SEEN_STATE_FAILED';
  readonly ruleId: string;
  /** The events the rule did not judge (none for a learning start). */
  readonly eventIds: readonly string[];
  constructor(message: string, options: ErrorOptions & { ruleId: string; eventIds: readonly string[] }) {
    super(message, options);
    this.name = 'FirstSeenStateError';
    this.ruleId = options.ruleId;
    this.eventIds = options.eventIds;
  }
}

/**
 * A rule threw while it evaluated one event, or an event could not be evaluated at all. The engine
 * skips that event for that rule only (every other rule still evaluates it) and reports the failure
 * instead of throwing, so one hostile event never stalls the source it came from.
 */
export class RuleEvaluationError extends RuleError {
  override readonly code = 'RULE_EVALUATION_FAILED';
  /** The rule that threw; undefined when the event could not be evaluated by any rule. */
  readonly ruleId: string | undefined;
  /** The event's id (or content hash); undefined when the event is not an object. */
  readonly eventId: string | undefined;
  constructor(
    message: string,
    options: ErrorOptions & { ruleId?: string | undefined; eventId?: string | undefined },
  ) {
    super(message, options);
    this.name = 'RuleEvaluationError';
    this.ruleId = options.ruleId;
    this.eventId = options.eventId;
  }
}
