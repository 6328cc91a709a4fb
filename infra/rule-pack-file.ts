import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { RULE_PACK_FILE } from '../functions/poller/bundled-rule-pack.js';
import { BUILT_IN_RULES_DIRECTORY, PACKAGE_VERSION } from '../shared/package-files.js';
import {
  BUILTIN_LAYER,
  checkRulePackFootprint,
  loadRulePackSync,
  measureRulePackFootprint,
  RuleLoadError,
  serializeRulePack,
} from '../shared/rules/index.js';
import { type RuleWarning, rulePackWarnings, splitWarnings } from '../shared/rules/lint/index.js';

export interface BuildRulePackFileOptions {
  /**
   * Rule layers in order: directories or files relative to `baseDirectory`, `builtin` for the pack
   * shipped in the package.
   */
  paths: readonly string[];
  /** The directory relative layer paths are resolved against: the CDK app's (where `cdk.json` is). */
  baseDirectory: string;
  /** Where the file is written; a stable place, so that unchanged rules give unchanged function code. */
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

export interface RulePackFile {
  /** The JSON file deployed beside each function's bundle (`rule-pack.json`). */
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
 * Lambda will read it, and writes it as `rule-pack.json`, which the functions read beside their bundle:
 * the Lambda reads no YAML and a broken rule never reaches AWS. Synchronous, as a construct is built.
 *
 * The pack is also checked for warnings against the event catalog (the Lambda never loads it), and
 * loaded as the function loads it, to measure the heap it holds against the function's memory. The
 * built-in layer is the package's own, and alerts carry the package's version.
 *
 * @throws {RuleLoadError} with every problem in the rule files as file:line:column, the line and a caret,
 *   and the warnings the strictness makes errors (by default unknown event types and fields of user
 *   layers), each with its hint.
 * @throws {RulePackTooLargeError} when the loaded pack would hold more than a quarter of the heap of
 *   the smallest function that loads it.
 * @example
 * ```ts
 * const file = buildRulePackFile({ paths: ['builtin', 'my-rules'], baseDirectory: process.cwd(), outputDirectory: 'cdk.out/rules' });
 * ```
 */
export function buildRulePackFile({
  paths,
  baseDirectory,
  outputDirectory,
  strict,
  memory = { memoryMiB: 256, setting: 'poller.memoryMiB' },
}: BuildRulePackFileOptions): RulePackFile {
  const pack = loadRulePackSync({
    paths: paths.map((path) => (path === BUILTIN_LAYER ? path : shownPath(resolve(baseDirectory, path)))),
    names: [...paths],
    builtinDirectory: shownPath(BUILT_IN_RULES_DIRECTORY),
    version: PACKAGE_VERSION,
  });
  const { errors, warnings } = splitWarnings({ pack, warnings: rulePackWarnings(pack), strict });
  if (errors.length > 0) throw RuleLoadError.fromProblems(errors);
  // Reads the serialized pack back and compiles it exactly as the function will.
  const footprint = measureRulePackFootprint(pack);
  checkRulePackFootprint(footprint, { memoryMiB: memory.memoryMiB, memorySetting: memory.setting });
  const text = JSON.stringify(serializeRulePack(pack));
  mkdirSync(outputDirectory, { recursive: true });
  const path = join(outputDirectory, RULE_PACK_FILE);
  if (readIfPresent(path) !== text) writeFileSync(path, text);
  return {
    path,
    ruleCount: pack.rules.length,
    bytes: Buffer.byteLength(text),
    heapBytes: footprint.heapBytes,
    warnings,
    layers: pack.layers.map((layer) => layer.name),
  };
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
