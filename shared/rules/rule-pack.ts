import { RuleLoadError, type RuleProblem, type LayerWarning as RuleWarning } from './errors.js';
import { composeRuleLayers } from './rule-layers.js';
import {
  type ExceptionSpec,
  type MatchSpec,
  type RuleSpec,
  type RuleTestSpec,
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
  /** The layer that defined it. */
  readonly layer?: string | undefined;
}

/** A rule of a pack: its effective spec, where it was defined, and which layers shaped it. */
export interface PackedRule {
  readonly spec: RuleSpec;
  readonly origin: RuleOrigin;
  /** The layers that defined or changed the rule, in order: `['builtin']` for a shipped rule as is. */
  readonly layers: readonly string[];
  /**
   * Where each of `spec.exceptions` was written: the rule's own, an override's, or a layer's
   * `exceptions:` entry (its `match`), as a file and a document path. Absent in a serialized pack.
   */
  readonly exceptionOrigins?: readonly ExceptionOrigin[] | undefined;
}

/** Where an exception of an effective rule was written. */
export interface ExceptionOrigin {
  readonly file: string;
  /** The path of the exception's match block in that file, such as `['exceptions', 0, 'match']`. */
  readonly path: readonly (string | number)[];
}

/**
 * An exception of a layer's `exceptions:` section. It is kept, compiled and serialized once, and shared
 * by every rule in its scope: a thousand exceptions over a thousand rules cost a thousand matches, not
 * a million copies. A rule's own exceptions (and those its overrides add) stay in its spec.
 */
export interface PackedException {
  /** What it is for, as written. */
  readonly name: string;
  readonly match: MatchSpec;
  /**
   * The ids of the rules it applies to, resolved when its layer was put together: the rules it names,
   * those with a tag it names, or every rule of its layer and the earlier ones. The exceptions written
   * with the same scope in one layer share one set.
   */
  readonly scope: ReadonlySet<string>;
  /** Where its match is written, for the linter; a pack read back from the bundle has none. */
  readonly origin?: { readonly file: string; readonly path: readonly (string | number)[] } | undefined;
}

/** One layer of a pack: `builtin` or the path as given, and its files. */
export interface RuleLayer {
  readonly name: string;
  readonly builtin: boolean;
  readonly files: readonly string[];
}

/** An inline test, with the pack it runs against: the rules as its layer leaves them. */
export interface PackTest {
  readonly ruleId: string;
  readonly name: string;
  /** The layer the test comes from. */
  readonly layer: string;
  readonly file: string;
  /** 1-based line of the test in its file, when known. */
  readonly line: number | undefined;
  readonly spec: RuleTestSpec;
  /** Its position among the tests written with it. */
  readonly index: number;
  readonly pack: RulePack;
}

/**
 * A validated set of rules and named lists: every rule compiles, ids are unique, every list named
 * exists. `createRuleEngine` compiles it into closures; `serializeRulePack` turns it into JSON.
 */
export interface RulePack {
  /** In layer order, then file order, then order within each file: the order alerts come out in. */
  readonly rules: readonly PackedRule[];
  readonly lists: ReadonlyMap<string, readonly ScalarValue[]>;
  /** The layers' `exceptions:`, in order, each shared by the rules in its scope. */
  readonly exceptions: readonly PackedException[];
  readonly files: readonly string[];
  readonly layers: readonly RuleLayer[];
  /** The version of atlas-audit-alerts whose built-in pack it builds on, when known. */
  readonly version?: string | undefined;
  /** Every layer's inline tests, each with the pack of its layer. */
  readonly tests: readonly PackTest[];
  /** What is allowed but probably a mistake, each with its file, line and column. */
  readonly warnings: readonly RuleWarning[];
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
  const scopeIndexes = new Map<ReadonlySet<string>, number>();
  const exceptionScopes: string[][] = [];
  const exceptions = pack.exceptions.map((exception) => {
    let scope = scopeIndexes.get(exception.scope);
    if (scope === undefined) {
      scope = exceptionScopes.push([...exception.scope]) - 1;
      scopeIndexes.set(exception.scope, scope);
    }
    return { name: exception.name, scope, match: structuredClone(exception.match) };
  });
  return {
    format: SERIALIZED_PACK_FORMAT,
    version: 3,
    ...(pack.version === undefined ? {} : { packVersion: pack.version }),
    lists: Object.fromEntries([...pack.lists].map(([name, values]) => [name, [...values]])),
    rules: pack.rules.map(({ spec }) => withoutTests(spec)),
    ruleLayers: Object.fromEntries(pack.rules.map(({ spec, layers }) => [spec.id, [...layers]])),
    exceptions,
    exceptionScopes,
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
  const { data } = parsed;
  const scopeProblems: RuleProblem[] = [];
  const exceptions = data.exceptions.map((exception, index): ExceptionSpec => {
    const rules = data.exceptionScopes[exception.scope];
    if (rules === undefined) {
      scopeProblems.push({
        code: 'SCHEMA',
        file: SERIALIZED_PACK_FILE,
        path: ['exceptions', index, 'scope'],
        message: `scope ${exception.scope} is not one of the ${data.exceptionScopes.length} exceptionScopes`,
      });
    }
    // The scope's array itself, shared by its exceptions: the layers put it together once for all.
    return { name: exception.name, rules: rules ?? [], match: exception.match };
  });
  if (scopeProblems.length > 0) throw RuleLoadError.fromProblems(scopeProblems);
  const { pack, problems } = composeRuleLayers({
    layers: [
      {
        name: SERIALIZED_PACK_FILE,
        builtin: true,
        files: [{ file: SERIALIZED_PACK_FILE, lists: data.lists, rules: data.rules, exceptions }],
      },
    ],
    version: data.packVersion,
  });
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
  return {
    ...pack,
    rules: pack.rules.map((rule) => ({ ...rule, layers: data.ruleLayers[rule.spec.id] ?? rule.layers })),
  };
}

function withoutTests(spec: RuleSpec): RuleSpec {
  const copy: RuleSpec = { ...spec };
  delete copy.tests;
  return structuredClone(copy);
}
