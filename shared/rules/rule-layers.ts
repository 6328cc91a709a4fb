import { type CompileProblem, requiredEventTypes } from './conditions.js';
import type { RuleWarningCode } from './lint/rule-warning.js';
import { didYouMean } from './name-suggestion.js';
import { compileExceptionOnce, compileRuleOnce } from './pack-compiler.js';
import type { PackedException, PackedRule, PackTest, RuleLayer, RuleOrigin, RulePack } from './rule-pack.js';
import {
  type ExceptionSpec,
  type ListEntrySpec,
  type MatchSpec,
  OVERRIDE_FIELDS,
  type RuleOverrideSpec,
  type RuleSpec,
  type RuleTestSpec,
  type ScalarValue,
} from './schema.js';

/** A path inside a rule file: keys and indexes from the document's root. */
type DocumentPath = readonly (string | number)[];

/** A problem found while putting layers together, before it is given a line and column. */
export interface PackProblem extends CompileProblem {
  file: string;
}

/** Something that is allowed but is probably a mistake, before it is given a line and column. */
export interface PackWarning {
  code: RuleWarningCode;
  file: string;
  path: (string | number)[];
  message: string;
  key?: boolean;
}

/** One parsed rule file of a layer. Sections that failed schema validation hold `undefined`. */
export interface PackSource {
  readonly file: string;
  readonly lists: Readonly<Record<string, ListEntrySpec | undefined>>;
  readonly rules: readonly (RuleSpec | undefined)[];
  readonly overrides?: readonly (RuleOverrideSpec | undefined)[] | undefined;
  readonly exceptions?: readonly (ExceptionSpec | undefined)[] | undefined;
  /** Where each rule of the file was written; the file alone when absent. */
  readonly originOf?: ((index: number) => RuleOrigin) | undefined;
  /** The 1-based line of the node at a document path, when the file is YAML. */
  readonly lineOf?: ((path: DocumentPath) => number | undefined) | undefined;
}

/** One layer: a name (`builtin`, or the path as given) and its files, in order. */
export interface LayerSource {
  readonly name: string;
  /** The pack shipped with this version: its rules need no tests from the user. */
  readonly builtin?: boolean | undefined;
  readonly files: readonly PackSource[];
}

export interface ComposeRuleLayersOptions {
  readonly layers: readonly LayerSource[];
  /** The version of atlas-audit-alerts whose built-in pack the layers build on. */
  readonly version?: string | undefined;
  /** Lists of files that failed earlier checks: their use is not reported a second time. */
  readonly unusableLists?: ReadonlySet<string> | undefined;
  /** The flag the layers were given with, named in advice to put builtin first (default `--rules`). */
  readonly layersFlag?: string | undefined;
}

/** Where a value of the effective rule was written. */
interface Location {
  readonly file: string;
  readonly path: DocumentPath;
}

/** A rule as the layers so far leave it, with where each of its parts came from. */
interface RuleState {
  spec: RuleSpec;
  readonly origin: RuleOrigin;
  readonly definition: Location;
  readonly layerIndex: number;
  readonly builtin: boolean;
  readonly layers: string[];
  readonly fieldOrigins: Map<string, Location>;
  readonly exceptionOrigins: Location[];
  /** Whether any layer gave it tests. */
  tested: boolean;
}

interface ListState {
  values: readonly ScalarValue[];
  readonly file: string;
  readonly layerIndex: number;
  readonly layerName: string;
}

/** A layer's exception, with what putting later layers together needs to know of it. */
interface ExceptionState {
  readonly packed: PackedException;
  readonly file: string;
  readonly path: DocumentPath;
  readonly layerIndex: number;
  /** The lists its match names. */
  readonly lists: ReadonlySet<string>;
  /** The rules in its scope. */
  readonly rules: readonly RuleState[];
}

/** The rules an exception applies to, resolved once for every exception of a layer written alike. */
interface ResolvedScope {
  readonly ids: ReadonlySet<string>;
  readonly rules: readonly RuleState[];
  /** The event types the rules can match, all together; `undefined` when one may match any. */
  readonly types: ReadonlySet<string> | undefined;
  /** Positions in `rules:` and `tags:` of the ids and tags that name no rule. */
  readonly unknownRules: readonly number[];
  readonly unknownTags: readonly number[];
  readonly allTags: ReadonlySet<string>;
}

/** A test waiting for the pack of its layer. */
interface PendingTest {
  readonly ruleId: string;
  readonly spec: RuleTestSpec;
  readonly index: number;
  readonly file: string;
  readonly line: number | undefined;
}

/**
 * Puts rule layers together, in order, into the effective pack. Each layer may define lists and
 * rules, change lists of earlier layers (`{append}` / `{replace}`), override rules of earlier layers
 * field by field, and add exceptions scoped by rule ids or tags. Every layer's inline tests run
 * against the rules as that layer leaves them, so the built-in tests always test the shipped rules.
 *
 * Checks what one file alone cannot show: duplicate rule ids and list names (with the `overrides` or
 * `append` form to use instead), overrides of unknown rules (with a "did you mean"), lists used but
 * never defined, and everything compiling a rule checks, each reported where it was written.
 *
 * @example
 * ```ts
 * const { pack, problems, warnings } = composeRuleLayers({
 *   layers: [{ name: 'builtin', builtin: true, files: builtinFiles }, { name: 'mine', files: myFiles }],
 * });
 * ```
 */
export function composeRuleLayers(options: ComposeRuleLayersOptions): {
  pack: RulePack;
  problems: PackProblem[];
  warnings: PackWarning[];
} {
  const problems: PackProblem[] = [];
  const warnings: PackWarning[] = [];
  const seen = new Set<string>();
  const report = (problem: PackProblem): void => {
    const key = `${problem.file}\u0000${JSON.stringify(problem.path)}\u0000${problem.code}\u0000${problem.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push(problem);
  };
  const unusable = options.unusableLists ?? new Set<string>();
  const flag = options.layersFlag ?? '--rules';
  const lists = new Map<string, ListState>();
  const rules = new Map<string, RuleState>();
  const exceptions: ExceptionState[] = [];
  const tests: PackTest[] = [];
  const layersSoFar: RuleLayer[] = [];
  const files: string[] = [];
  let pack = emptyPack(options.version);

  options.layers.forEach((layer, layerIndex) => {
    const builtin = layer.builtin === true;
    layersSoFar.push({ name: layer.name, builtin, files: layer.files.map((source) => source.file) });
    files.push(...layer.files.map((source) => source.file));
    const changedLists = new Set<string>();
    for (const source of layer.files) {
      applyLists(
        source,
        layer,
        layerIndex,
        lists,
        changedLists,
        report,
        builtinFirstAdvice(layersSoFar, flag),
      );
    }
    const compileLists = (): Map<string, readonly ScalarValue[]> => {
      const map = new Map([...lists].map(([name, state]) => [name, state.values]));
      for (const name of unusable) if (!map.has(name)) map.set(name, []);
      return map;
    };
    const stageLists = compileLists();

    const pending: PendingTest[] = [];
    for (const source of layer.files) {
      source.rules.forEach((spec, index) => {
        if (spec === undefined) return;
        const definition: Location = { file: source.file, path: ['rules', index] };
        const first = rules.get(spec.id);
        if (first !== undefined) {
          report(duplicateRuleProblem(spec.id, first, definition, layerIndex, options.layers));
          compileInto(
            spec,
            stageLists,
            (path) => ({ ...definition, path: [...definition.path, ...path] }),
            report,
          );
          return;
        }
        const origin = source.originOf?.(index) ?? { file: source.file };
        rules.set(spec.id, {
          spec,
          origin: { ...origin, layer: layer.name },
          definition,
          layerIndex,
          builtin,
          layers: [layer.name],
          fieldOrigins: new Map(),
          exceptionOrigins: (spec.exceptions ?? []).map((_, exceptionIndex) => ({
            file: source.file,
            path: ['rules', index, 'exceptions', exceptionIndex],
          })),
          tested: (spec.tests?.length ?? 0) > 0,
        });
        (spec.tests ?? []).forEach((test, testIndex) => {
          pending.push({
            ruleId: spec.id,
            spec: test,
            index: testIndex,
            file: source.file,
            line: origin.testLines?.[testIndex] ?? origin.line,
          });
        });
      });
    }

    for (const source of layer.files) {
      (source.overrides ?? []).forEach((override, index) => {
        if (override === undefined) return;
        const at: Location = { file: source.file, path: ['overrides', index] };
        const state = rules.get(override.rule);
        if (state === undefined) {
          report({
            code: 'UNKNOWN_RULE',
            file: source.file,
            path: [...at.path, 'rule'],
            message: `no earlier layer defines a rule "${override.rule}"${didYouMean(override.rule, rules.keys())}: overrides change rules of earlier layers${builtinFirstAdvice(layersSoFar, flag)}; to add a rule, write it under rules:`,
          });
          return;
        }
        if (state.layerIndex === layerIndex) {
          report({
            code: 'INVALID_OVERRIDE',
            file: source.file,
            path: [...at.path, 'rule'],
            message: `rule "${override.rule}" is defined in this layer (${where(state)}): change it there; overrides change rules of earlier layers`,
          });
          return;
        }
        applyOverride(state, override, at, layer.name);
        checkExceptionTypes(
          state,
          override.exceptions ?? [],
          (exceptionIndex) => [...at.path, 'exceptions', exceptionIndex],
          source.file,
          stageLists,
          warnings,
        );
        (override.tests ?? []).forEach((test, testIndex) => {
          pending.push({
            ruleId: state.spec.id,
            spec: test,
            index: testIndex,
            file: source.file,
            line: source.lineOf?.([...at.path, 'tests', testIndex]),
          });
        });
        if ((override.tests?.length ?? 0) > 0) state.tested = true;
        // The tests of an override are checked as the rule's own would be, where they are written.
        if (override.tests !== undefined) {
          compileInto(
            { ...state.spec, tests: override.tests },
            stageLists,
            (path) => mapPath(state, path, at),
            report,
          );
        }
      });
    }

    const scopes = new Map<string, Map<string, ResolvedScope>>();
    for (const source of layer.files) {
      (source.exceptions ?? []).forEach((exception, index) => {
        if (exception === undefined) return;
        const at: DocumentPath = ['exceptions', index];
        const context = { lists: stageLists, problems: [] as CompileProblem[] };
        compileExceptionOnce(exception.match, [...at, 'match'], context);
        for (const problem of context.problems) report({ ...problem, file: source.file });
        // Keyed by the texts of its ids and tags, each made once per array: a serialized pack's
        // exceptions share their scope's array of (maybe thousands of) ids.
        const byTags = scopes.get(scopeKey(exception.rules)) ?? new Map<string, ResolvedScope>();
        scopes.set(scopeKey(exception.rules), byTags);
        let scope = byTags.get(scopeKey(exception.tags));
        if (scope === undefined) {
          scope = resolveScope(exception, rules, stageLists);
          byTags.set(scopeKey(exception.tags), scope);
          for (const state of scope.rules) addLayer(state, layer.name);
        }
        warnAboutScope(exception, at, source.file, scope, rules, warnings);
        if (scope.rules.length === 0) return;
        exceptions.push({
          packed: {
            name: exception.name,
            match: exception.match,
            scope: scope.ids,
            origin: { file: source.file, path: [...at, 'match'] },
          },
          file: source.file,
          path: [...at, 'match'],
          layerIndex,
          lists: listsNamed(exception.match),
          rules: scope.rules,
        });
        const types = scope.types;
        const exceptionTypes = requiredEventTypes(exception.match, stageLists);
        if (types !== undefined && exceptionTypes !== undefined && disjoint(types, exceptionTypes)) {
          warnings.push({
            code: 'EXCEPTION_NEVER_MATCHES',
            file: source.file,
            path: [...at, 'match', 'eventTypeName'],
            message: `exception "${exception.name}" matches only event types that none of the rules it applies to match, so it never applies: check its eventTypeName`,
          });
        }
      });
    }

    if (changedLists.size > 0) {
      for (const state of rules.values()) {
        const named = listsNamed([state.spec.match, state.spec.exceptions ?? []]);
        for (const name of changedLists) {
          if (named.has(name)) {
            addLayer(state, layer.name);
            break;
          }
        }
      }
      for (const exception of exceptions) {
        if (![...changedLists].some((name) => exception.lists.has(name))) continue;
        for (const state of exception.rules) addLayer(state, layer.name);
        // A list changed under an earlier layer's exception: it must still compile with the new values.
        if (exception.layerIndex < layerIndex) {
          const context = { lists: stageLists, problems: [] as CompileProblem[] };
          compileExceptionOnce(exception.packed.match, [...exception.path], context);
          for (const problem of context.problems) report({ ...problem, file: exception.file });
        }
      }
    }
    for (const state of rules.values()) {
      compileInto(state.spec, stageLists, (path) => mapPath(state, path), report);
    }
    pack = {
      rules: [...rules.values()].map(
        (state): PackedRule => ({
          spec: state.spec,
          origin: state.origin,
          layers: [...state.layers],
          exceptionOrigins: [...state.exceptionOrigins],
        }),
      ),
      lists: new Map(Array.from(lists, ([name, state]) => [name, state.values] as const)),
      exceptions: exceptions.map((exception) => exception.packed),
      files: [...files],
      layers: [...layersSoFar],
      version: options.version,
      tests: [],
      warnings: [],
    };
    const stage = pack;
    for (const test of pending) {
      tests.push({
        ruleId: test.ruleId,
        name: test.spec.name,
        layer: layer.name,
        file: test.file,
        line: test.line,
        spec: test.spec,
        index: test.index,
        pack: stage,
      });
    }
  });

  for (const state of rules.values()) {
    if (state.builtin || state.tested) continue;
    warnings.push({
      code: 'UNTESTED_RULE',
      file: state.definition.file,
      path: [...state.definition.path, 'id'],
      message: `rule "${state.spec.id}" has no tests: add tests: with an event it alerts on and one it does not, so that \`rules test\` shows when a change stops it firing`,
    });
  }
  return { pack: { ...pack, tests, warnings: [] }, problems, warnings };
}

/**
 * The advice a refusal of a name no earlier layer defines gives when no earlier layer is the built-in
 * pack: the usual cause is a layer list that left `builtin` out (`--rules my-rules`), and the fix is to
 * give it first. `layers` ends with the layer being composed; empty when a builtin layer comes before.
 */
function builtinFirstAdvice(layers: readonly RuleLayer[], flag: string): string {
  const current = layers.at(-1);
  if (current === undefined || layers.slice(0, -1).some((layer) => layer.builtin)) return '';
  const before = layers.length === 1 ? 'no layer comes before it' : 'no layer before it is builtin';
  const names = layers.map((layer) => layer.name);
  return `; ${before}: to tune the built-in pack, give builtin first (${flag} builtin ${names.join(' ')}, or rules.directories: [builtin, ${names.join(', ')}])`;
}

function emptyPack(version: string | undefined): RulePack {
  return {
    rules: [],
    lists: new Map(),
    exceptions: [],
    files: [],
    layers: [],
    version,
    tests: [],
    warnings: [],
  };
}

function applyLists(
  source: PackSource,
  layer: LayerSource,
  layerIndex: number,
  lists: Map<string, ListState>,
  changed: Set<string>,
  report: (problem: PackProblem) => void,
  advice: string,
): void {
  for (const [name, entry] of Object.entries(source.lists)) {
    if (entry === undefined) continue;
    const prior = lists.get(name);
    const path = ['lists', name];
    if (Array.isArray(entry)) {
      if (prior === undefined) {
        lists.set(name, { values: entry, file: source.file, layerIndex, layerName: layer.name });
      } else if (prior.layerIndex < layerIndex) {
        report({
          code: 'DUPLICATE_LIST',
          file: source.file,
          path,
          key: true,
          message: `list "${name}" is already defined in ${prior.file} (layer ${prior.layerName}): to add values write ${name}: { append: [...] }, to change them all ${name}: { replace: [...] }`,
        });
      } else {
        report({
          code: 'DUPLICATE_LIST',
          file: source.file,
          path,
          key: true,
          message: `list "${name}" is already defined in ${prior.file}: list names are shared by all rule files, so rename one or merge them`,
        });
      }
      continue;
    }
    const operation = 'append' in entry ? 'append' : 'replace';
    if (prior === undefined || prior.layerIndex === layerIndex) {
      report({
        code: prior === undefined ? 'UNKNOWN_LIST' : 'INVALID_LIST_CHANGE',
        file: source.file,
        path,
        key: true,
        message:
          prior === undefined
            ? `no earlier layer defines a list "${name}" to ${operation} to${didYouMean(name, lists.keys())}${advice === '' ? ':' : `${advice};`} to define a new list, write ${name}: [...]`
            : `list "${name}" is defined in this layer (${prior.file}): change it there; append and replace change lists of earlier layers`,
      });
      continue;
    }
    prior.values = 'append' in entry ? [...prior.values, ...entry.append] : entry.replace;
    changed.add(name);
  }
}

function applyOverride(state: RuleState, override: RuleOverrideSpec, at: Location, layerName: string): void {
  const spec: RuleSpec = { ...state.spec };
  const record = spec as unknown as Record<string, unknown>;
  for (const field of OVERRIDE_FIELDS) {
    const value = override[field];
    if (value === undefined) continue;
    record[field] = value;
    state.fieldOrigins.set(field, { file: at.file, path: [...at.path, field] });
  }
  if (override.exceptions !== undefined) {
    spec.exceptions = [...(spec.exceptions ?? []), ...override.exceptions];
    override.exceptions.forEach((_, index) => {
      state.exceptionOrigins.push({ file: at.file, path: [...at.path, 'exceptions', index] });
    });
  }
  state.spec = spec;
  addLayer(state, layerName);
}

/** Scope texts already made, by the array written: every exception of a serialized pack shares one. */
const scopeKeys = new WeakMap<readonly string[], string>();

/** A text that is the same for two exceptions exactly when they name the same rules (or tags). */
function scopeKey(names: readonly string[] | undefined): string {
  if (names === undefined) return '';
  let key = scopeKeys.get(names);
  if (key === undefined) {
    key = JSON.stringify(names);
    scopeKeys.set(names, key);
  }
  return key;
}

/** The rules an exception applies to, as the layers so far leave them. */
function resolveScope(
  exception: ExceptionSpec,
  rules: ReadonlyMap<string, RuleState>,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
): ResolvedScope {
  const allTags = new Set<string>();
  if (exception.tags !== undefined)
    for (const state of rules.values()) for (const tag of state.spec.tags ?? []) allTags.add(tag);
  const unknownRules: number[] = [];
  (exception.rules ?? []).forEach((id, index) => {
    if (!rules.has(id)) unknownRules.push(index);
  });
  const unknownTags: number[] = [];
  (exception.tags ?? []).forEach((tag, index) => {
    if (!allTags.has(tag)) unknownTags.push(index);
  });
  let scoped: RuleState[];
  if (exception.rules === undefined && exception.tags === undefined) scoped = [...rules.values()];
  else {
    const ids = new Set(exception.rules ?? []);
    const tags = new Set(exception.tags ?? []);
    scoped = [...rules.values()].filter(
      (state) => ids.has(state.spec.id) || (state.spec.tags ?? []).some((tag) => tags.has(tag)),
    );
  }
  let types: Set<string> | undefined = new Set<string>();
  for (const state of scoped) {
    const ruleTypes = requiredEventTypes(state.spec.match, lists);
    if (ruleTypes === undefined) {
      types = undefined;
      break;
    }
    for (const type of ruleTypes) types.add(type);
  }
  return {
    ids: new Set(scoped.map((state) => state.spec.id)),
    rules: scoped,
    types,
    unknownRules,
    unknownTags,
    allTags,
  };
}

/** Warns about the ids and tags of an exception's scope that name no rule. */
function warnAboutScope(
  exception: ExceptionSpec,
  at: DocumentPath,
  file: string,
  scope: ResolvedScope,
  rules: ReadonlyMap<string, RuleState>,
  warnings: PackWarning[],
): void {
  for (const index of scope.unknownRules) {
    const id = exception.rules?.[index] ?? '';
    warnings.push({
      code: 'EXCEPTION_NEVER_MATCHES',
      file,
      path: [...at, 'rules', index],
      message: `exception "${exception.name}" names rule "${id}", which no layer so far defines${didYouMean(id, rules.keys())}: it applies to no rule of that id`,
    });
  }
  for (const index of scope.unknownTags) {
    const tag = exception.tags?.[index] ?? '';
    warnings.push({
      code: 'EXCEPTION_NEVER_MATCHES',
      file,
      path: [...at, 'tags', index],
      message: `exception "${exception.name}" names tag "${tag}", which no rule so far carries${didYouMean(tag, scope.allTags)}: it applies to no rule through it`,
    });
  }
}

/** Warns about per-rule exceptions that name only event types the rule never matches. */
function checkExceptionTypes(
  state: RuleState,
  exceptions: readonly MatchSpec[],
  pathOf: (index: number) => (string | number)[],
  file: string,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
  warnings: PackWarning[],
): void {
  exceptions.forEach((exception, index) => {
    if (!disjointTypes(state.spec.match, exception, lists)) return;
    warnings.push({
      code: 'EXCEPTION_NEVER_MATCHES',
      file,
      path: [...pathOf(index), 'eventTypeName'],
      message: `this exception matches only event types that rule "${state.spec.id}" never matches, so it never applies: check its eventTypeName`,
    });
  });
}

/** Whether the two matches require event types that have none in common. */
function disjointTypes(
  rule: MatchSpec,
  exception: MatchSpec,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
): boolean {
  const ruleTypes = requiredEventTypes(rule, lists);
  const exceptionTypes = requiredEventTypes(exception, lists);
  return ruleTypes !== undefined && exceptionTypes !== undefined && disjoint(ruleTypes, exceptionTypes);
}

function addLayer(state: RuleState, name: string): void {
  if (!state.layers.includes(name)) state.layers.push(name);
}

function disjoint(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const value of b) if (a.has(value)) return false;
  return true;
}

/**
 * The names of the lists a match (or anything holding matches) refers to, as `{list: name}` or
 * `list_empty: name`.
 */
function listsNamed(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) listsNamed(item, into);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.list === 'string' && Object.keys(record).length === 1) into.add(record.list);
    if (typeof record.list_empty === 'string') into.add(record.list_empty);
    for (const item of Object.values(record)) listsNamed(item, into);
  }
  return into;
}

/** Where a problem at a path of the effective rule was written. */
function mapPath(state: RuleState, path: readonly (string | number)[], tests?: Location): Location {
  const [field, index] = path;
  if (field === 'tests' && tests !== undefined) return { file: tests.file, path: [...tests.path, ...path] };
  if (field === 'exceptions' && typeof index === 'number') {
    const origin = state.exceptionOrigins[index];
    if (origin !== undefined) return { file: origin.file, path: [...origin.path, ...path.slice(2)] };
  }
  const origin = typeof field === 'string' ? state.fieldOrigins.get(field) : undefined;
  if (origin !== undefined) return { file: origin.file, path: [...origin.path, ...path.slice(1)] };
  return { file: state.definition.file, path: [...state.definition.path, ...path] };
}

function compileInto(
  spec: RuleSpec,
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
  locate: (path: readonly (string | number)[]) => Location,
  report: (problem: PackProblem) => void,
): void {
  const context = { lists, problems: [] as CompileProblem[] };
  compileRuleOnce(spec, context);
  for (const problem of context.problems) {
    const location = locate(problem.path);
    report({ ...problem, file: location.file, path: [...location.path] });
  }
}

function where(state: RuleState): string {
  return state.origin.line === undefined ? state.origin.file : `${state.origin.file}:${state.origin.line}`;
}

function duplicateRuleProblem(
  id: string,
  first: RuleState,
  definition: Location,
  layerIndex: number,
  layers: readonly LayerSource[],
): PackProblem {
  const path = [...definition.path, 'id'];
  if (first.layerIndex === layerIndex) {
    return {
      code: 'DUPLICATE_ID',
      file: definition.file,
      path,
      message: `rule id "${id}" is already used in ${where(first)}: rule ids must be unique across all rule files`,
    };
  }
  return {
    code: 'DUPLICATE_ID',
    file: definition.file,
    path,
    message: `rule "${id}" is already defined in ${where(first)} (layer ${layers[first.layerIndex]?.name ?? '?'}): to change it from this layer, write "overrides: [{ rule: ${id}, severity: high }]" with only the fields that change, instead of a copy of the rule`,
  };
}
