import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  BUILTIN_LAYER,
  checkRulePackFootprint,
  loadRulePack,
  measureRulePackFootprint,
  RuleLoadError,
  serializeRulePack,
} from '../shared/rules/index.js';
import { type RuleWarning, rulePackWarnings, splitWarnings } from '../shared/rules/lint/index.js';
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
  /**
   * Which warnings fail as errors (`rules.strict`): every one (`true`), none (`false`), or by default
   * unknown event types and fields in user layers (see `splitWarnings`).
   */
  strict?: boolean | undefined;
  /**
   * The smallest memory of the functions that load the pack, and the setting that sets it: a pack that,
   * loaded, holds more than a quarter of that function's heap fails the build. Default: 256 MiB.
   */
  memory?: { readonly memoryMiB: number; readonly setting: string } | undefined;
}

export interface RulePackModule {
  /** The module to inject into the poller bundle. */
  path: string;
  /** How many rules the pack holds. */
  ruleCount: number;
  /** The size of the serialized pack in bytes. */
  bytes: number;
  /** The heap the pack holds once loaded, in bytes, as measured here. */
  heapBytes: number;
  /** What `rules validate` warns about and does not fail on; empty with `strict: true`. */
  warnings: readonly RuleWarning[];
  /** The layers, in order, as `rules.directories` names them. */
  layers: readonly string[];
}

/**
 * Loads and validates the rule layers, checks that their serialized form reads back exactly as the
 * Lambda will read it, and writes it as a module exporting {@link RULE_PACK_GLOBAL}: esbuild injects it
 * into the poller bundle, so the Lambda reads no YAML and a broken rule never reaches AWS.
 *
 * The pack is also checked for warnings against the event catalog (the Lambda never loads it), and
 * loaded as the function loads it, to measure the heap it holds against the function's memory.
 *
 * @throws {RuleLoadError} with every problem in the rule files as file:line:column, the line and a caret,
 *   and the warnings the strictness makes errors (by default unknown event types and fields of user
 *   layers), each with its hint.
 * @throws {RulePackTooLargeError} when the loaded pack would hold more than a quarter of the heap of
 *   the smallest function that loads it.
 * @example
 * ```ts
 * const module = await buildRulePackModule({ paths: ['builtin', 'my-rules'], projectRoot, outputDirectory: 'cdk.out/rule-pack' });
 * ```
 */
export async function buildRulePackModule({
  paths,
  projectRoot,
  outputDirectory,
  strict,
  memory = { memoryMiB: 256, setting: 'poller.memoryMiB' },
}: BuildRulePackModuleOptions): Promise<RulePackModule> {
  const pack = await loadRulePack({
    paths: paths.map((path) => (path === BUILTIN_LAYER ? path : shownPath(resolve(projectRoot, path)))),
    names: [...paths],
    builtinDirectory: shownPath(resolve(projectRoot, 'rules')),
    version: packageVersion(projectRoot),
  });
  const { errors, warnings } = splitWarnings({ pack, warnings: await rulePackWarnings(pack), strict });
  if (errors.length > 0) throw RuleLoadError.fromProblems(errors);
  // Reads the serialized pack back and compiles it exactly as the function will.
  const footprint = measureRulePackFootprint(pack);
  checkRulePackFootprint(footprint, { memoryMiB: memory.memoryMiB, memorySetting: memory.setting });
  const text = JSON.stringify(serializeRulePack(pack));
  const source = `export const ${RULE_PACK_GLOBAL} = ${JSON.stringify(text)};\n`;
  mkdirSync(outputDirectory, { recursive: true });
  const path = join(outputDirectory, 'rule-pack.mjs');
  if (readIfPresent(path) !== source) writeFileSync(path, source);
  return {
    path,
    ruleCount: pack.rules.length,
    bytes: Buffer.byteLength(text),
    heapBytes: footprint.heapBytes,
    warnings,
    layers: pack.layers.map((layer) => layer.name),
  };
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
