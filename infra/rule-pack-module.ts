import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  BUILTIN_LAYER,
  deserializeRulePack,
  loadRulePack,
  serializeRulePack,
} from '../shared/rules/index.js';
import { RULE_PACK_GLOBAL } from './bundling.js';

export interface BuildRulePackModuleOptions {
  /**
   * Rule layers in order: directories or files relative to `projectRoot`, `builtin` for the pack
   * shipped in `projectRoot/rules`.
   */
  paths: readonly string[];
  /** The directory holding `package.json` (whose version the pack carries) and the built-in `rules/`. */
  projectRoot: string;
  /** Where the module is written; a stable place, so that unchanged rules give an unchanged bundle. */
  outputDirectory: string;
}

export interface RulePackModule {
  /** The module to inject into the poller bundle. */
  path: string;
  /** How many rules the pack holds. */
  ruleCount: number;
  /** The size of the serialized pack in bytes. */
  bytes: number;
}

/**
 * Loads and validates the rule layers, checks that their serialized form reads back exactly as the
 * Lambda will read it, and writes it as a module exporting {@link RULE_PACK_GLOBAL}: esbuild injects it
 * into the poller bundle, so the Lambda reads no YAML and a broken rule never reaches AWS.
 *
 * @throws {RuleLoadError} with every problem in the rule files as file:line:column, the line and a caret.
 * @example
 * ```ts
 * const module = await buildRulePackModule({ paths: ['builtin', 'my-rules'], projectRoot, outputDirectory: 'cdk.out/rule-pack' });
 * ```
 */
export async function buildRulePackModule({
  paths,
  projectRoot,
  outputDirectory,
}: BuildRulePackModuleOptions): Promise<RulePackModule> {
  const pack = await loadRulePack({
    paths: paths.map((path) => (path === BUILTIN_LAYER ? path : shownPath(resolve(projectRoot, path)))),
    names: [...paths],
    builtinDirectory: shownPath(resolve(projectRoot, 'rules')),
    version: packageVersion(projectRoot),
  });
  const serialized = serializeRulePack(pack);
  const text = JSON.stringify(serialized);
  deserializeRulePack(JSON.parse(text));
  const source = `export const ${RULE_PACK_GLOBAL} = ${JSON.stringify(text)};\n`;
  mkdirSync(outputDirectory, { recursive: true });
  const path = join(outputDirectory, 'rule-pack.mjs');
  if (readIfPresent(path) !== source) writeFileSync(path, source);
  return { path, ruleCount: pack.rules.length, bytes: Buffer.byteLength(text) };
}

/** The version in `package.json`: alerts carry it, so a reader knows which pack raised them. */
function packageVersion(projectRoot: string): string | undefined {
  const text = readIfPresent(join(projectRoot, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const version = (JSON.parse(text) as { version?: unknown } | null)?.version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** Problems name files as the person running `cdk synth` would: relative to where they are. */
function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere === '' || fromHere.startsWith('..') || isAbsolute(fromHere) ? path : fromHere;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
