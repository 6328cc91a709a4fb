import { readdirSync, realpathSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { RuleLoadError, type RuleProblem, type LayerWarning as RuleWarning } from './errors.js';
import { layerOrderWarning } from './layer-order.js';
import {
  describeFsError,
  MAX_RULE_TEXT_BYTES,
  RULE_FILE_EXTENSIONS,
  readRuleFile,
} from './rule-file-reader.js';
import { composeRuleLayers, type LayerSource, type PackSource } from './rule-layers.js';
import type { RuleOrigin, RulePack } from './rule-pack.js';
import {
  type ExceptionSpec,
  type ListEntrySpec,
  type RuleFileSpec,
  type RuleOverrideSpec,
  type RuleSpec,
  ruleFileSchema,
} from './schema.js';
import { describeSchemaIssues } from './schema-issues.js';
import { positionAt, positionOf, type YamlSource } from './source-position.js';
import { findAliasExpansion, MAX_ALIAS_EXPANSION } from './yaml-aliases.js';
import { findExcessiveNesting, MAX_YAML_NESTING, type YamlNestingProblem } from './yaml-nesting.js';
import { explainYamlSyntax } from './yaml-syntax.js';

/** One rule file's text, with the name problems will give it. */
export interface RuleFileText {
  readonly file: string;
  readonly text: string;
}

export interface ParseRulePackOptions {
  readonly sources: readonly RuleFileText[];
  /** The layer's name, shown in alerts and test output; `rules` when absent. */
  readonly name?: string | undefined;
  /** The version of atlas-audit-alerts whose built-in pack it is. */
  readonly version?: string | undefined;
}

/** One layer's files as text. */
export interface RuleLayerText {
  /** `builtin`, or the path as the user gave it. */
  readonly name: string;
  readonly builtin?: boolean | undefined;
  readonly sources: readonly RuleFileText[];
}

export interface ParseRuleLayersOptions {
  readonly layers: readonly RuleLayerText[];
  /** The version of atlas-audit-alerts whose built-in pack the layers build on. */
  readonly version?: string | undefined;
  /** The flag the layers were given with, named in advice to put builtin first (default `--rules`). */
  readonly layersFlag?: string | undefined;
}

/** The word that names the built-in pack among rule paths, on the command line and in deploy settings. */
export const BUILTIN_LAYER = 'builtin';

export interface LoadRulePackOptions {
  /**
   * Layers, in order: each a rule file, or a directory whose `*.yaml` and `*.yml` files are read in
   * name order. `builtin` names the built-in pack (`builtinDirectory`).
   */
  readonly paths: readonly string[];
  /** The directory of the built-in pack, which `builtin` names. */
  readonly builtinDirectory?: string | undefined;
  /** A name for each layer, shown in alerts and test output; the path as given when absent. */
  readonly names?: readonly (string | undefined)[] | undefined;
  /** The version of atlas-audit-alerts whose built-in pack the layers build on. */
  readonly version?: string | undefined;
  /** The flag the layers were given with, named in advice to put builtin first (default `--rules`). */
  readonly layersFlag?: string | undefined;
}

/**
 * Bounds the number of YAML aliases as the YAML library counts them; {@link findAliasExpansion} bounds
 * what they expand to, which this count does not.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * Reads rule layers (files and directories, in order; `builtin` for the built-in pack) into a
 * validated pack. A later layer tunes an earlier one with `overrides`, `exceptions` and list
 * `{append}` / `{replace}`; see `composeRuleLayers`.
 *
 * @throws {RuleLoadError} carrying every problem found in every file (unreadable paths, YAML syntax,
 *   unknown keys, wrong types, duplicate ids, overrides of unknown rules, unknown lists, invalid
 *   regexes, CIDRs, durations, time zones and templates), each with its file, line and column;
 *   `message` shows them as `falco -V` does. Warnings do not throw: they are in `pack.warnings`.
 * @example
 * ```ts
 * const pack = await loadRulePack({ paths: ['builtin', 'my-rules/'], builtinDirectory: 'rules/' });
 * ```
 */
export async function loadRulePack(options: LoadRulePackOptions): Promise<RulePack> {
  return loadRulePackSync(options);
}

/**
 * {@link loadRulePack}, synchronously: for the CDK construct, whose constructor cannot wait (a CDK app
 * is built synchronously), and for what runs before anything else can (the rule files are small and
 * bounded; see {@link MAX_RULE_TEXT_BYTES}).
 *
 * @throws {RuleLoadError} as `loadRulePack` does.
 * @example
 * ```ts
 * const pack = loadRulePackSync({ paths: ['builtin', 'my-rules/'], builtinDirectory: 'rules/' });
 * ```
 */
export function loadRulePackSync(options: LoadRulePackOptions): RulePack {
  const problems: RuleProblem[] = [];
  const layers: RuleLayerText[] = [];
  const places = new Map<string, string>();
  let textBytes = 0;
  for (const [index, given] of options.paths.entries()) {
    const builtin = given === BUILTIN_LAYER;
    const name = options.names?.[index] ?? (builtin ? BUILTIN_LAYER : layerNameOf(given));
    let path = given;
    if (builtin) {
      if (options.builtinDirectory === undefined) {
        problems.push({
          code: 'READ_FAILED',
          file: given,
          path: [],
          message: 'builtin names the built-in rule pack, which is not available here: give a directory',
        });
        continue;
      }
      path = options.builtinDirectory;
    }
    const files: { path: string; inDirectory: boolean }[] = [];
    try {
      const place = realpathSync(path);
      const earlier = places.get(place);
      if (earlier !== undefined) {
        problems.push({
          code: 'DUPLICATE_LAYER',
          file: given,
          path: [],
          message: `this is the same place as the layer ${earlier}: give each layer once`,
        });
        continue;
      }
      places.set(place, name);
      const info = statSync(path);
      if (info.isDirectory()) {
        const names = readdirSync(path)
          .filter((entry) => RULE_FILE_EXTENSIONS.has(extname(entry)))
          .sort();
        if (names.length === 0) {
          problems.push({
            code: 'NO_RULE_FILES',
            file: path,
            path: [],
            message: 'this directory holds no .yaml or .yml rule file',
          });
        }
        files.push(...names.map((entry) => ({ path: join(path, entry), inDirectory: true })));
      } else {
        files.push({ path, inDirectory: false });
      }
    } catch (error) {
      problems.push({
        code: 'READ_FAILED',
        file: path,
        path: [],
        message: `cannot read: ${describeFsError(error)}`,
      });
      continue;
    }
    const sources: RuleFileText[] = [];
    for (const file of files) {
      if (textBytes > MAX_RULE_TEXT_BYTES) break;
      const read = readRuleFile(file.path, { refuseLinks: file.inDirectory });
      if (!read.ok) {
        problems.push({ code: 'READ_FAILED', file: file.path, path: [], message: read.message });
        continue;
      }
      textBytes += Buffer.byteLength(read.text);
      if (textBytes > MAX_RULE_TEXT_BYTES) {
        problems.push({
          code: 'READ_FAILED',
          file: file.path,
          path: [],
          message: `with this file the layers hold more than the ${MAX_RULE_TEXT_BYTES / 2 ** 20} MiB of rule text they may hold together: check that the layers are the ones you meant; no file after this one is read`,
        });
        break;
      }
      sources.push({ file: file.path, text: read.text });
    }
    layers.push({ name, builtin, sources });
  }
  const parseOptions = { layers, version: options.version, layersFlag: options.layersFlag };
  if (problems.length > 0) {
    // Report unreadable paths together with what is wrong in the files that could be read.
    try {
      parseRuleLayers(parseOptions);
    } catch (error) {
      if (error instanceof RuleLoadError) problems.push(...error.problems);
      else throw error;
    }
    throw RuleLoadError.fromProblems(problems);
  }
  return withLayerOrderWarning(parseRuleLayers(parseOptions), options);
}

/**
 * The pack with a warning when its first layer is not the built-in pack and holds fewer rules (see
 * {@link layerOrderWarning}); the built-in pack is read to count its rules only then.
 */
function withLayerOrderWarning(pack: RulePack, options: LoadRulePackOptions): RulePack {
  const [first] = options.paths;
  if (first === undefined || first === BUILTIN_LAYER || options.builtinDirectory === undefined) return pack;
  let builtinRuleCount: number | undefined;
  try {
    const builtin = loadRulePackSync({
      paths: [BUILTIN_LAYER],
      builtinDirectory: options.builtinDirectory,
    });
    builtinRuleCount = builtin.rules.length;
  } catch {
    // A built-in pack that does not load is reported where it is used; the order cannot be judged.
  }
  const warning = layerOrderWarning({ pack, builtinRuleCount, layersFlag: options.layersFlag });
  return warning === undefined ? pack : { ...pack, warnings: [warning, ...pack.warnings] };
}

/** A layer's name from its path as given: without a trailing separator. */
function layerNameOf(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  return trimmed === '' ? path : trimmed;
}

/**
 * Parses rule file texts into a validated pack of one layer, without touching the file system.
 *
 * @throws {RuleLoadError} as `loadRulePack` does.
 * @example
 * ```ts
 * const pack = parseRulePack({ sources: [{ file: 'inline.yaml', text: 'rules: []' }] });
 * ```
 */
export function parseRulePack(options: ParseRulePackOptions): RulePack {
  return parseRuleLayers({
    layers: [{ name: options.name ?? 'rules', sources: options.sources }],
    version: options.version,
  });
}

/**
 * Parses layers of rule file texts into a validated pack, without touching the file system.
 *
 * @throws {RuleLoadError} as `loadRulePack` does.
 * @example
 * ```ts
 * const pack = parseRuleLayers({
 *   layers: [
 *     { name: 'builtin', builtin: true, sources: builtinTexts },
 *     { name: 'mine', sources: [{ file: 'mine/tuning.yaml', text }] },
 *   ],
 * });
 * ```
 */
export function parseRuleLayers(options: ParseRuleLayersOptions): RulePack {
  const problems: RuleProblem[] = [];
  const yamlSources = new Map<string, YamlSource>();
  const unusableLists = new Set<string>();
  const layers: LayerSource[] = options.layers.map((layer) => ({
    name: layer.name,
    builtin: layer.builtin,
    files: parseLayerFiles(layer.sources, problems, yamlSources, unusableLists),
  }));
  const {
    pack,
    problems: packProblems,
    warnings,
  } = composeRuleLayers({
    layers,
    version: options.version,
    unusableLists,
    layersFlag: options.layersFlag,
  });
  const locate = (problem: {
    file: string;
    path: readonly (string | number)[];
    key?: boolean | undefined;
    needle?: string | undefined;
  }) => {
    const source = yamlSources.get(problem.file);
    return source === undefined
      ? {}
      : positionOf(source, { path: problem.path, key: problem.key, needle: problem.needle });
  };
  for (const problem of packProblems) {
    problems.push({
      code: problem.code,
      file: problem.file,
      path: problem.path,
      message: problem.message,
      ...locate(problem),
    });
  }
  const sources = options.layers.flatMap((layer) => layer.sources);
  if (problems.length > 0) throw RuleLoadError.fromProblems(sortProblems(problems, sources));
  const located = warnings.map(
    (warning): RuleWarning => ({
      severity: 'warning',
      code: warning.code,
      file: warning.file,
      path: warning.path,
      message: warning.message,
      ...locate(warning),
    }),
  );
  return { ...pack, warnings: sortProblems(located, sources) };
}

function parseLayerFiles(
  texts: readonly RuleFileText[],
  problems: RuleProblem[],
  yamlSources: Map<string, YamlSource>,
  unusableLists: Set<string>,
): PackSource[] {
  const packSources: PackSource[] = [];
  for (const { file, text } of texts) {
    const tooDeep = findExcessiveNesting(text);
    if (tooDeep !== undefined) {
      problems.push(nestingProblem(file, text, tooDeep));
      continue;
    }
    const lineCounter = new LineCounter();
    const document = parseDocument(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      strict: true,
    });
    const source: YamlSource = { file, text, document, lineCounter };
    yamlSources.set(file, source);
    const syntax = explainYamlSyntax({
      text,
      document,
      kind: 'rule file',
      oneDocument: 'split it into two files',
    });
    if (syntax !== undefined) {
      // Later syntax errors of a file mostly follow from the first one: report that one alone.
      problems.push({
        code: 'YAML_SYNTAX',
        file,
        path: [],
        message: syntax.message,
        ...positionAt(source, syntax.offset, syntax.length),
      });
      continue;
    }
    const aliasBomb = findAliasExpansion(document);
    if (aliasBomb !== undefined) {
      problems.push({
        code: 'YAML_SYNTAX',
        file,
        path: [],
        message: `the aliases of this file expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} nodes (here *${aliasBomb.anchor}, ${Number.isFinite(aliasBomb.anchorNodes) ? `${aliasBomb.anchorNodes.toLocaleString('en-US')} nodes` : 'a node that holds itself'}): name a list once and refer to it with {list: name}, or write the values out`,
        ...positionAt(source, aliasBomb.offset, aliasBomb.anchor.length + 1),
      });
      continue;
    }
    let data: unknown;
    try {
      data = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
    } catch (error) {
      // Aliases resolve only here: one naming no anchor, or too many expansions (an alias bomb).
      const message = firstLine(error instanceof Error ? error.message : String(error));
      const alias = /^Unresolved alias .*: (\S+)$/.exec(message)?.[1];
      const offset = alias === undefined ? -1 : text.indexOf(`*${alias}`);
      const found = alias !== undefined && offset !== -1;
      problems.push({
        code: 'YAML_SYNTAX',
        file,
        path: [],
        message,
        ...positionAt(source, found ? offset : 0, found ? alias.length + 1 : 1),
      });
      continue;
    }
    const lineOf = (path: readonly (string | number)[]): number | undefined => {
      const start = (source.document.getIn(path, true) as Node | undefined)?.range?.[0];
      return start === undefined ? undefined : source.lineCounter.linePos(start).line;
    };
    const parsed = ruleFileSchema.safeParse(data);
    if (parsed.success) {
      const spec = parsed.data;
      packSources.push({
        file,
        lists: spec.lists ?? {},
        rules: spec.rules ?? [],
        overrides: spec.overrides ?? [],
        exceptions: spec.exceptions ?? [],
        originOf: (index) => originOf(source, spec.rules?.[index], index),
        lineOf,
      });
      continue;
    }
    const failed = { rules: new Set<number>(), overrides: new Set<number>(), exceptions: new Set<number>() };
    let listsFailed = false;
    let fileFailed = false;
    for (const problem of describeSchemaIssues(parsed.error.issues, data)) {
      problems.push({
        code: 'SCHEMA',
        file,
        path: problem.path,
        message: problem.message,
        ...positionOf(source, { path: problem.path, key: problem.key }),
      });
      const [section, index] = problem.path;
      if (
        (section === 'rules' || section === 'overrides' || section === 'exceptions') &&
        typeof index === 'number'
      ) {
        failed[section].add(index);
      } else if (section === 'lists') listsFailed = true;
      else fileFailed = true;
    }
    // The parts that did validate are still checked further, so one run reports as much as it can.
    const sections = sectionsOf(data);
    if (fileFailed || listsFailed) for (const name of Object.keys(sections.lists)) unusableLists.add(name);
    const kept = <T>(section: 'rules' | 'overrides' | 'exceptions'): (T | undefined)[] =>
      fileFailed
        ? []
        : sections[section].map((item, index) => (failed[section].has(index) ? undefined : (item as T)));
    packSources.push({
      file,
      lists:
        fileFailed || listsFailed
          ? {}
          : (sections.lists as NonNullable<RuleFileSpec['lists']> as Record<string, ListEntrySpec>),
      rules: kept<RuleSpec>('rules'),
      overrides: kept<RuleOverrideSpec>('overrides'),
      exceptions: kept<ExceptionSpec>('exceptions'),
      originOf: (index) => originOf(source, sections.rules[index] as RuleSpec | undefined, index),
      lineOf,
    });
  }
  return packSources;
}

/** Problems in the order of the files given, then of lines and columns. */
function sortProblems<T extends RuleProblem | RuleWarning>(
  problems: readonly T[],
  sources: readonly RuleFileText[],
): T[] {
  const fileOrder = new Map(sources.map((source, index) => [source.file, index]));
  return [...problems].sort(
    (a, b) =>
      (fileOrder.get(a.file) ?? -1) - (fileOrder.get(b.file) ?? -1) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

function sectionsOf(data: unknown): {
  lists: Record<string, unknown>;
  rules: unknown[];
  overrides: unknown[];
  exceptions: unknown[];
} {
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const lists =
    typeof record.lists === 'object' && record.lists !== null && !Array.isArray(record.lists)
      ? record.lists
      : {};
  const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  return {
    lists: lists as Record<string, unknown>,
    rules: listOf(record.rules),
    overrides: listOf(record.overrides),
    exceptions: listOf(record.exceptions),
  };
}

function originOf(source: YamlSource, spec: RuleSpec | undefined, index: number): RuleOrigin {
  const lineOf = (node: unknown): number | undefined => {
    const start = (node as Node | undefined)?.range?.[0];
    return start === undefined ? undefined : source.lineCounter.linePos(start).line;
  };
  const ruleNode = source.document.getIn(['rules', index], true);
  const testsNode = source.document.getIn(['rules', index, 'tests'], true);
  const testCount = spec?.tests?.length ?? 0;
  const testLines = Array.from({ length: testCount }, (_, test) =>
    isSeq(testsNode) ? lineOf(testsNode.items[test]) : undefined,
  );
  return { file: source.file, line: isMap(ruleNode) ? lineOf(ruleNode) : undefined, testLines };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * The problem of a file that nests too deeply, found before parsing (the parser would exhaust the
 * stack). The line shown stops a little after the spot: such lines are often thousands of characters.
 */
function nestingProblem(file: string, text: string, tooDeep: YamlNestingProblem): RuleProblem {
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    lineCounter.addNewLine(index + 1);
  }
  const position = positionAt({ file, text, document: parseDocument(''), lineCounter }, tooDeep.offset, 1);
  return {
    code: 'YAML_SYNTAX',
    file,
    path: [],
    message: `lists and mappings nest more than ${MAX_YAML_NESTING} levels deep here: a rule file needs about ten; check that this is the file you meant`,
    ...position,
    sourceLine: position.sourceLine.slice(0, position.column + 20),
  };
}
