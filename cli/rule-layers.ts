import { isAbsolute, relative } from 'node:path';
import { BUILT_IN_RULES_DIRECTORY, PACKAGE_VERSION } from '../shared/package-files.js';
import { BUILTIN_LAYER, loadRulePack, type RulePack } from '../shared/rules/index.js';

/** The layers used when none is given: the built-in pack alone. */
export const DEFAULT_RULE_LAYERS: readonly string[] = [BUILTIN_LAYER];

/**
 * Loads rule layers as the command line names them: paths in order, `builtin` for the built-in pack,
 * the built-in pack alone when none is given. Alerts carry the package version.
 *
 * @throws {RuleLoadError} with every problem of every layer, as `loadRulePack` does.
 * @example
 * ```ts
 * const pack = await loadRuleLayers(['builtin', 'my-rules']);
 * ```
 */
export async function loadRuleLayers(paths: readonly string[], layersFlag?: string): Promise<RulePack> {
  return loadRulePack({
    paths: paths.length === 0 ? DEFAULT_RULE_LAYERS : paths,
    layersFlag,
    builtinDirectory: shownPath(BUILT_IN_RULES_DIRECTORY),
    version: PACKAGE_VERSION,
  });
}

/** Messages name the built-in files as the person running the command sees them: relative to where they are. */
function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere === '' || fromHere.startsWith('..') || isAbsolute(fromHere) ? path : `${fromHere}/`;
}
