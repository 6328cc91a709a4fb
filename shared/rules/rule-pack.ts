import type { CompileProblem } from './conditions.js';
import { RuleLoadError, type RuleProblem } from './errors.js';
import { compileRule } from './rule-compiler.js';
import {
  type RuleFileSpec,
  type RuleSpec,
  type ScalarValue,
  SERIALIZED_PACK_FORMAT,
  type SerializedRulePackSpec,
  serializedRulePackSchema,
} from './schema.js';
import { describeSchemaIssues } from './schema-issues.js';

/** Where a rule was written. */
export interface RuleOrigin {
  readonly file: string;
  /** 1-based line of the rule, when it comes from a YAML file. */
  readonly line?: number | undefined;
  /** 1-based line of each inline test, in order. */
  readonly testLines?: readonly (number | undefined)[] | undefined;
}

/** A rule of a pack: its spec as written, and where. */
export interface PackedRule {
  readonly spec: RuleSpec;
  readonly origin: RuleOrigin;
}

/**
 * A validated set of rules and named lists: every rule compiles, ids are unique, every list named
 * exists. `createRuleEngine` compiles it into closures; `serializeRulePack` turns it into JSON.
 */
export interface RulePack {
  /** In file order, then in order within each file: the order alerts come out in for one event. */
  readonly rules: readonly PackedRule[];
  readonly lists: ReadonlyMap<string, readonly ScalarValue[]>;
  readonly files: readonly string[];
}

/** A problem found while assembling a pack, before it is given a line and column. */
export interface PackProblem extends CompileProblem {
  file: string;
}

/** One parsed rule file, as input to `assembleRulePack`. */
export interface PackSource {
  readonly file: string;
  readonly lists: NonNullable<RuleFileSpec['lists']>;
  /** The file's rules by index; `undefined` for a rule that failed schema validation. */
  readonly rules: readonly (RuleSpec | undefined)[];
  /** Where each rule of the file was written; the file alone when absent. */
  readonly originOf?: ((index: number) => RuleOrigin) | undefined;
}

/**
 * Puts parsed rule files together into a pack and checks what one file alone cannot show: duplicate
 * rule ids and list names, lists used but never defined, and everything compiling a rule checks
 * (paths, regexes, CIDRs, durations, time zones, templates, tests). `unusableLists` names lists of
 * files that failed earlier checks, so that their use is not reported a second time.
 *
 * @example
 * ```ts
 * const { pack, problems } = assembleRulePack([{ file: 'rules.yaml', lists: spec.lists ?? {}, rules: spec.rules ?? [] }]);
 * ```
 */
export function assembleRulePack(
  sources: readonly PackSource[],
  unusableLists: ReadonlySet<string> = new Set(),
): { pack: RulePack; problems: PackProblem[] } {
  const problems: PackProblem[] = [];
  const lists = new Map<string, readonly ScalarValue[]>();
  const listFiles = new Map<string, string>();
  for (const source of sources) {
    for (const [name, values] of Object.entries(source.lists)) {
      const first = listFiles.get(name);
      if (first !== undefined) {
        problems.push({
          code: 'DUPLICATE_LIST',
          file: source.file,
          path: ['lists', name],
          key: true,
          message: `list "${name}" is already defined in ${first}: list names are shared by all rule files, so rename one or merge them`,
        });
        continue;
      }
      lists.set(name, values);
      listFiles.set(name, source.file);
    }
  }
  const compileLists = new Map(lists);
  for (const name of unusableLists) if (!compileLists.has(name)) compileLists.set(name, []);

  const rules: PackedRule[] = [];
  const ruleFiles = new Map<string, string>();
  for (const source of sources) {
    source.rules.forEach((spec, index) => {
      if (spec === undefined) return;
      const first = ruleFiles.get(spec.id);
      if (first !== undefined) {
        problems.push({
          code: 'DUPLICATE_ID',
          file: source.file,
          path: ['rules', index, 'id'],
          message: `rule id "${spec.id}" is already used in ${first}: rule ids must be unique across all rule files`,
        });
      } else {
        ruleFiles.set(spec.id, source.file);
      }
      const context = { lists: compileLists, problems: [] as CompileProblem[] };
      compileRule(spec, context);
      for (const problem of context.problems) {
        problems.push({ ...problem, file: source.file, path: ['rules', index, ...problem.path] });
      }
      rules.push({ spec, origin: source.originOf?.(index) ?? { file: source.file } });
    });
  }
  return { pack: { rules, lists, files: sources.map((source) => source.file) }, problems };
}

/**
 * The pack as a JSON-safe object, without inline tests: what `cdk synth` writes into the Lambda
 * bundle once the YAML files have been validated. `deserializeRulePack` reads it back.
 *
 * @example
 * ```ts
 * await writeFile('dist/rule-pack.json', JSON.stringify(serializeRulePack(pack)));
 * ```
 */
export function serializeRulePack(pack: RulePack): SerializedRulePackSpec {
  return {
    format: SERIALIZED_PACK_FORMAT,
    version: 1,
    lists: Object.fromEntries([...pack.lists].map(([name, values]) => [name, [...values]])),
    rules: pack.rules.map(({ spec }) => withoutTests(spec)),
  };
}

/** The name serialized packs go by in problems. */
export const SERIALIZED_PACK_FILE = '<serialized rule pack>';

/**
 * Reads a serialized pack back, checking it exactly as the YAML loader checks rule files, so a pack
 * edited by hand or written by another version cannot reach the engine broken. No YAML is read.
 *
 * @throws {RuleLoadError} when the object is not a valid pack; problems carry document paths.
 * @example
 * ```ts
 * import bundled from './rule-pack.json' with { type: 'json' };
 * const pack = deserializeRulePack(bundled);
 * ```
 */
export function deserializeRulePack(json: unknown): RulePack {
  const parsed = serializedRulePackSchema.safeParse(json);
  if (!parsed.success) {
    throw RuleLoadError.fromProblems(
      describeSchemaIssues(parsed.error.issues, json).map(
        (problem): RuleProblem => ({
          code: 'SCHEMA',
          file: SERIALIZED_PACK_FILE,
          path: problem.path,
          message: problem.message,
        }),
      ),
    );
  }
  const { pack, problems } = assembleRulePack([
    { file: SERIALIZED_PACK_FILE, lists: parsed.data.lists, rules: parsed.data.rules },
  ]);
  if (problems.length > 0) {
    throw RuleLoadError.fromProblems(
      problems.map((problem) => ({
        code: problem.code,
        file: problem.file,
        path: problem.path,
        message: problem.message,
      })),
    );
  }
  return pack;
}

function withoutTests(spec: RuleSpec): RuleSpec {
  const copy: RuleSpec = { ...spec };
  delete copy.tests;
  return structuredClone(copy);
}
