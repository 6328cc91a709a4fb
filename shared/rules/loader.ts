import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { RuleLoadError, type RuleProblem } from './errors.js';
import { assembleRulePack, type PackSource, type RuleOrigin, type RulePack } from './rule-pack.js';
import { type RuleFileSpec, type RuleSpec, ruleFileSchema } from './schema.js';
import { describeSchemaIssues } from './schema-issues.js';
import { positionAt, positionOf, type YamlSource } from './source-position.js';
import { yamlErrorMessage } from './yaml-message.js';
import { findExcessiveNesting, MAX_YAML_NESTING, type YamlNestingProblem } from './yaml-nesting.js';

/** One rule file's text, with the name problems will give it. */
export interface RuleFileText {
  readonly file: string;
  readonly text: string;
}

export interface ParseRulePackOptions {
  readonly sources: readonly RuleFileText[];
}

export interface LoadRulePackOptions {
  /** Rule files, or directories whose `*.yaml` and `*.yml` files are read in name order. */
  readonly paths: readonly string[];
}

const RULE_FILE_EXTENSIONS = new Set(['.yaml', '.yml']);

/** Bounds YAML alias expansion, so a hostile file cannot blow up into gigabytes ("billion laughs"). */
const MAX_ALIAS_COUNT = 100;

/**
 * Reads rule files and directories into a validated pack.
 *
 * @throws {RuleLoadError} carrying every problem found in every file (unreadable paths, YAML syntax,
 *   unknown keys, wrong types, duplicate ids, unknown lists, invalid regexes, CIDRs, durations, time
 *   zones and templates), each with its file, line and column; `message` shows them as `falco -V` does.
 * @example
 * ```ts
 * const pack = await loadRulePack({ paths: ['rules/', 'my-rules/extra.yaml'] });
 * ```
 */
export async function loadRulePack(options: LoadRulePackOptions): Promise<RulePack> {
  const problems: RuleProblem[] = [];
  const files: string[] = [];
  for (const path of options.paths) {
    try {
      const info = await stat(path);
      if (info.isDirectory()) {
        const names = (await readdir(path)).filter((name) => RULE_FILE_EXTENSIONS.has(extname(name))).sort();
        if (names.length === 0) {
          problems.push({
            code: 'NO_RULE_FILES',
            file: path,
            path: [],
            message: 'this directory holds no .yaml or .yml rule file',
          });
        }
        files.push(...names.map((name) => join(path, name)));
      } else {
        files.push(path);
      }
    } catch (error) {
      problems.push({
        code: 'READ_FAILED',
        file: path,
        path: [],
        message: `cannot read: ${describeFsError(error)}`,
      });
    }
  }
  const sources: RuleFileText[] = [];
  for (const file of [...new Set(files)]) {
    try {
      sources.push({ file, text: await readFile(file, 'utf8') });
    } catch (error) {
      problems.push({
        code: 'READ_FAILED',
        file,
        path: [],
        message: `cannot read: ${describeFsError(error)}`,
      });
    }
  }
  if (problems.length > 0) {
    // Report unreadable paths together with what is wrong in the files that could be read.
    try {
      parseRulePack({ sources });
    } catch (error) {
      if (error instanceof RuleLoadError) problems.push(...error.problems);
      else throw error;
    }
    throw RuleLoadError.fromProblems(problems);
  }
  return parseRulePack({ sources });
}

/**
 * Parses rule file texts into a validated pack, without touching the file system.
 *
 * @throws {RuleLoadError} as `loadRulePack` does.
 * @example
 * ```ts
 * const pack = parseRulePack({ sources: [{ file: 'inline.yaml', text: 'rules: []' }] });
 * ```
 */
export function parseRulePack(options: ParseRulePackOptions): RulePack {
  const problems: RuleProblem[] = [];
  const yamlSources = new Map<string, YamlSource>();
  const packSources: PackSource[] = [];
  const unusableLists = new Set<string>();
  for (const { file, text } of options.sources) {
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
    const [syntaxError] = document.errors;
    if (syntaxError !== undefined) {
      // Later syntax errors of a file mostly follow from the first one: report that one alone.
      const position = positionAt(
        source,
        syntaxError.pos[0],
        Math.max(1, syntaxError.pos[1] - syntaxError.pos[0]),
      );
      problems.push({
        code: 'YAML_SYNTAX',
        file,
        path: [],
        message: yamlErrorMessage(
          syntaxError.message,
          'a rule file holds one document; split it into two files',
        ),
        ...position,
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
    const parsed = ruleFileSchema.safeParse(data);
    if (parsed.success) {
      const spec = parsed.data;
      packSources.push({
        file,
        lists: spec.lists ?? {},
        rules: spec.rules ?? [],
        originOf: (index) => originOf(source, spec.rules?.[index], index),
      });
      continue;
    }
    const failedRules = new Set<number>();
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
      if (section === 'rules' && typeof index === 'number') failedRules.add(index);
      else if (section === 'lists') listsFailed = true;
      else fileFailed = true;
    }
    // The rules that did validate are still checked further, so one run reports as much as it can.
    const { lists, rules } = sectionsOf(data);
    if (fileFailed || listsFailed) for (const name of Object.keys(lists)) unusableLists.add(name);
    packSources.push({
      file,
      lists: fileFailed || listsFailed ? {} : (lists as NonNullable<RuleFileSpec['lists']>),
      rules: fileFailed
        ? []
        : rules.map((rule, index) => (failedRules.has(index) ? undefined : (rule as RuleSpec))),
      originOf: (index) => originOf(source, rules[index] as RuleSpec | undefined, index),
    });
  }
  const { pack, problems: packProblems } = assembleRulePack(packSources, unusableLists);
  for (const problem of packProblems) {
    const source = yamlSources.get(problem.file);
    const position =
      source === undefined
        ? {}
        : positionOf(source, { path: problem.path, key: problem.key, needle: problem.needle });
    problems.push({
      code: problem.code,
      file: problem.file,
      path: problem.path,
      message: problem.message,
      ...position,
    });
  }
  if (problems.length > 0) throw RuleLoadError.fromProblems(sortProblems(problems, options.sources));
  return pack;
}

/** Problems in the order of the files given, then of lines and columns. */
function sortProblems(problems: readonly RuleProblem[], sources: readonly RuleFileText[]): RuleProblem[] {
  const fileOrder = new Map(sources.map((source, index) => [source.file, index]));
  return [...problems].sort(
    (a, b) =>
      (fileOrder.get(a.file) ?? -1) - (fileOrder.get(b.file) ?? -1) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

function sectionsOf(data: unknown): { lists: Record<string, unknown>; rules: unknown[] } {
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const lists =
    typeof record.lists === 'object' && record.lists !== null && !Array.isArray(record.lists)
      ? record.lists
      : {};
  return { lists: lists as Record<string, unknown>, rules: Array.isArray(record.rules) ? record.rules : [] };
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

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
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
