import { deserializeRulePack, type RulePack } from '../../shared/rules/rule-pack.js';
import { BundledRulePackMissingError } from './errors.js';

/**
 * The serialized rule pack, as JSON text. `cdk synth` validates the rule files and esbuild injects this
 * global into the poller bundle (see `infra/bundling.ts`); anywhere else it is not defined.
 */
declare const __ATLAS_AUDIT_ALERTS_RULE_PACK__: string | undefined;

/**
 * The rule pack compiled into the Lambda bundle at synth, read back and checked exactly as the loader
 * checks rule files. No YAML is read at run time.
 *
 * @throws {BundledRulePackMissingError} outside a bundle built by the CDK app (the CLI and tests load
 *   rule files with `loadRulePack` instead).
 * @throws {RuleLoadError} if the bundled pack is not a valid pack (a bundle built by hand).
 * @example
 * ```ts
 * const engine = createRuleEngine({ pack: loadBundledRulePack(), counters });
 * ```
 */
export function loadBundledRulePack(): RulePack {
  if (typeof __ATLAS_AUDIT_ALERTS_RULE_PACK__ !== 'string') {
    throw new BundledRulePackMissingError(
      'No rule pack is compiled into this code: the poller handler runs only from the bundle `cdk synth` builds, which injects the validated rules. Locally, load rule files with loadRulePack (or the CLI `run` command).',
    );
  }
  return deserializeRulePack(JSON.parse(__ATLAS_AUDIT_ALERTS_RULE_PACK__) as unknown);
}
