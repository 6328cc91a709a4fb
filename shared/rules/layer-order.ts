import type { LayerWarning } from './errors.js';
import type { RulePack } from './rule-pack.js';

export interface LayerOrderWarningOptions {
  /** The pack as its layers compose it. */
  readonly pack: RulePack;
  /** How many rules the built-in pack holds, when it could be counted. */
  readonly builtinRuleCount: number | undefined;
  /** The flag the layers were given with, named in the fix (default `--rules`). */
  readonly layersFlag?: string | undefined;
}

/**
 * Warns when the first layer is not the built-in pack and holds fewer rules than it: the shape of a
 * layer list that left `builtin` out (`--rules my-rules`, `rules.directories: [my-rules]`), which
 * silently runs a handful of rules instead of the whole pack, or that put it later, where it cannot
 * be tuned. A first layer with as many rules as the pack (a pack of one's own) is left alone; a first
 * layer with overrides is refused by the loader already, with the same advice.
 *
 * @example
 * ```ts
 * const warning = layerOrderWarning({ pack, builtinRuleCount: 148 });
 * // mine: warning: builtin is not among the rule layers, so the 148 rules of the built-in pack are off ...
 * ```
 */
export function layerOrderWarning(options: LayerOrderWarningOptions): LayerWarning | undefined {
  const { pack, builtinRuleCount } = options;
  const flag = options.layersFlag ?? '--rules';
  const [first] = pack.layers;
  if (first === undefined || first.builtin) return undefined;
  const own = pack.rules.filter((rule) => rule.origin.layer === first.name).length;
  if (builtinRuleCount === undefined || own >= builtinRuleCount) return undefined;
  const names = pack.layers.map((layer) => layer.name);
  const userNames = pack.layers.filter((layer) => !layer.builtin).map((layer) => layer.name);
  const fix = `give builtin first: ${flag} builtin ${userNames.join(' ')}, or rules.directories: [builtin, ${userNames.join(', ')}]`;
  const runs = own === 1 ? `the 1 rule of ${first.name} runs` : `the ${own} rules of ${first.name} run`;
  const message = pack.layers.some((layer) => layer.builtin)
    ? `the rule layers are ${names.join(', ')}: builtin comes after ${first.name}, so ${first.name} cannot tune it (a layer changes only the layers before it); ${fix}`
    : `builtin is not among the rule layers (${names.join(', ')}), so the ${builtinRuleCount} rules of the built-in pack are off and only ${runs}; to tune the built-in pack, ${fix}`;
  return {
    severity: 'warning',
    code: 'LAYER_ORDER',
    file: first.name,
    path: [],
    message,
  };
}
