import { loadEventCatalog } from '../catalog/event-catalog.js';
import type { RulePack } from '../rule-pack.js';
import { lintRulePack } from './lint-rule-pack.js';
import { RuleSources } from './rule-sources.js';
import type { RuleWarning } from './rule-warning.js';

/**
 * Every warning of a loaded pack: the loader's own (such as a rule with no inline test) followed by
 * the lint's against the event catalog, placed at lines and columns of the pack's files. What
 * `rules validate`, `run` and `cdk synth` print, and what `--strict` turns into errors.
 *
 * @example
 * ```ts
 * const warnings = rulePackWarnings(loadRulePackSync({ paths }));
 * ```
 */
export function rulePackWarnings(pack: RulePack): RuleWarning[] {
  return [
    ...(pack.warnings as readonly RuleWarning[]),
    ...lintRulePack(pack, { catalog: loadEventCatalog(), sources: RuleSources.read(pack.files) }),
  ];
}
