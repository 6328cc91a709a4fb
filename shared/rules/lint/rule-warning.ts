import type { RuleProblem } from '../errors.js';

/**
 * What kind of warning a rule pack has: mistakes that leave a rule valid but make it silently never
 * fire (or fire less than meant). Stable strings for logs, tests and tooling.
 */
export type RuleWarningCode =
  /** An `eventTypeName` value that is no known event type. */
  | 'UNKNOWN_EVENT_TYPE'
  /** A field path that no known event of the types the rule matches can carry. */
  | 'UNKNOWN_FIELD'
  /** A template placeholder naming such a field. */
  | 'UNKNOWN_TEMPLATE_FIELD'
  /** A named list that nothing uses. */
  | 'UNUSED_LIST'
  /** A CIDR block with host bits set, such as `192.0.2.5/24`. */
  | 'CIDR_HOST_BITS'
  /** A rule of a user layer without inline tests. */
  | 'UNTESTED_RULE'
  /** An exception that can never match the rules it scopes. */
  | 'EXCEPTION_NEVER_MATCHES'
  /** A first layer that is not `builtin` and holds fewer rules than it: the built-in pack is left out. */
  | 'LAYER_ORDER';

/**
 * One warning: where (file, document path, and line and column when the file is YAML), what, and a
 * hint saying what to do. It has the shape of a {@link RuleProblem}, so the same formatter prints it and
 * `--strict` turns it into an error as it is.
 */
export interface RuleWarning extends RuleProblem {
  code: RuleWarningCode;
  /** Set on warnings of rule layers, which print among problems marked as warnings. */
  severity?: 'warning';
}
