import { readFileSync } from 'node:fs';
import { deserializeRulePack, type RulePack } from '../../shared/rules/rule-pack.js';
import { BundledRulePackMissingError } from './errors.js';

/**
 * The file beside a function's bundle that holds the serialized rule pack, as JSON: `cdk synth`
 * validates the rule layers and writes it next to the prebuilt `index.mjs` in the function's code (see
 * `infra/lambda-code.ts`), so one bundle, built once and shipped in the package, serves every rule set.
 */
export const RULE_PACK_FILE = 'rule-pack.json';

/**
 * The rule pack deployed with the function, read back and checked exactly as the loader checks rule
 * files. No YAML is read at run time; the file is read where the bundle is (`/var/task` in Lambda).
 *
 * @throws {BundledRulePackMissingError} outside a function's code built by the CDK app (the CLI and
 *   tests load rule files with `loadRulePack` instead).
 * @throws {RuleLoadError} if the file is not a valid pack (code assembled by hand).
 * @example
 * ```ts
 * const engine = createRuleEngine({ pack: loadBundledRulePack(), counters });
 * ```
 */
export function loadBundledRulePack(): RulePack {
  let text: string;
  try {
    text = readFileSync(new URL(`./${RULE_PACK_FILE}`, import.meta.url), 'utf8');
  } catch (error) {
    throw new BundledRulePackMissingError(
      `No rule pack is deployed with this code (${RULE_PACK_FILE} beside it cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}): the functions run only from the code \`cdk synth\` assembles, which adds the validated rules. Locally, load rule files with loadRulePack (or the CLI \`run\` command).`,
      { cause: error },
    );
  }
  return deserializeRulePack(JSON.parse(text) as unknown);
}
