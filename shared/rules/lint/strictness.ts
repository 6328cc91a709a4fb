import type { RulePack } from '../rule-pack.js';
import type { RuleWarning, RuleWarningCode } from './rule-warning.js';

/** The warnings of a name no event has: a misspelt event type or field makes a rule silently never fire. */
export const UNKNOWN_NAME_CODES: ReadonlySet<RuleWarningCode> = new Set([
  'UNKNOWN_EVENT_TYPE',
  'UNKNOWN_FIELD',
  'UNKNOWN_TEMPLATE_FIELD',
]);

export interface SplitWarningsOptions {
  readonly pack: RulePack;
  /** Every warning of the pack (`rulePackWarnings`). */
  readonly warnings: readonly RuleWarning[];
  /**
   * `true`: every warning is an error (`--strict`, `rules.strict: true`). `false`: none is
   * (`--no-strict`, `rules.strict: false`). Unset, the default: unknown event types and fields in the
   * files of user layers are errors, since a typo there silently loses a detection; the built-in pack's
   * warnings and the other kinds stay warnings.
   */
  readonly strict?: boolean | undefined;
}

/**
 * Splits a pack's warnings into those that fail the check (`rules validate`, `cdk synth`) and those
 * that are only shown, as the strictness says; the latter are marked `severity: 'warning'`, so that
 * `formatRuleProblems` prints both kinds together.
 *
 * @example
 * ```ts
 * const { errors, warnings } = splitWarnings({ pack, warnings: rulePackWarnings(pack) });
 * if (errors.length > 0) throw RuleLoadError.fromProblems([...errors, ...warnings]);
 * ```
 */
export function splitWarnings(options: SplitWarningsOptions): {
  errors: RuleWarning[];
  warnings: RuleWarning[];
} {
  const { pack, strict } = options;
  if (strict === true) return { errors: options.warnings.map(asError), warnings: [] };
  if (strict === false) return { errors: [], warnings: options.warnings.map(asWarning) };
  const userFiles = new Set(pack.layers.filter((layer) => !layer.builtin).flatMap((layer) => layer.files));
  const errors: RuleWarning[] = [];
  const warnings: RuleWarning[] = [];
  for (const warning of options.warnings) {
    if (UNKNOWN_NAME_CODES.has(warning.code) && userFiles.has(warning.file)) errors.push(asError(warning));
    else warnings.push(asWarning(warning));
  }
  return { errors, warnings };
}

/** Marked as a warning, so that it prints as one among problems. */
function asWarning(warning: RuleWarning): RuleWarning {
  return { ...warning, severity: 'warning' };
}

/** The warning as a problem: printed without the `warning:` mark. */
function asError({ severity: _severity, ...problem }: RuleWarning): RuleWarning {
  return problem;
}
