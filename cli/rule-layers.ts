import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_LAYER, loadRulePack, type RulePack } from '../shared/rules/index.js';

/** The directory of the rule pack shipped with the command: what the layer `builtin` names. */
export const BUILT_IN_RULES = fileURLToPath(new URL('../rules/', import.meta.url));

/** The layers used when none is given: the built-in pack alone. */
export const DEFAULT_RULE_LAYERS: readonly string[] = [BUILTIN_LAYER];

/** The version of atlas-audit-alerts, and so of its built-in pack, from package.json. */
export const PACK_VERSION: string | undefined = readPackageVersion();

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
    builtinDirectory: shownPath(BUILT_IN_RULES),
    version: PACK_VERSION,
  });
}

/** Messages name the built-in files as the person running the command sees them: relative to where they are. */
function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere === '' || fromHere.startsWith('..') || isAbsolute(fromHere) ? path : `${fromHere}/`;
}

function readPackageVersion(): string | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const version = (manifest as { version?: unknown } | null)?.version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
