import type { AtlasEvent } from '../atlas/types.js';
import { type CompileProblem, compileMatch, type Predicate } from './conditions.js';
import { RuleLoadError } from './errors.js';
import { type CompiledRule, compileRule } from './rule-compiler.js';
import type { RulePack } from './rule-pack.js';
import type { MatchSpec, RuleSpec, ScalarValue } from './schema.js';

type Lists = ReadonlyMap<string, readonly ScalarValue[]>;

/**
 * Rules compiled without a problem, by spec, with the lists they were compiled against. Putting layers
 * together compiles every rule to check it; the engine built from that pack then takes the same
 * closures instead of compiling everything again, which halves the work of a cold start. Specs are
 * never changed once made (a layer that changes a rule makes a new spec), and a compiled rule depends
 * on its spec and its lists alone.
 */
const compiledRules = new WeakMap<RuleSpec, { readonly lists: Lists; readonly rule: CompiledRule }>();
/** Exceptions compiled without a problem, by match, likewise. */
const compiledExceptions = new WeakMap<MatchSpec, { readonly lists: Lists; readonly predicate: Predicate }>();
/** Pairs of list maps found to hold the same arrays under the same names. */
const sameListPairs = new WeakMap<Lists, WeakMap<Lists, boolean>>();

export interface CompileRulePackOptions {
  readonly pack: RulePack;
  /** Compile only these rules (and the exceptions whose scope holds one); every rule when absent. */
  readonly ruleIds?: ReadonlySet<string> | undefined;
}

/**
 * Compiles the rules of a pack into closures, each rule once, and each exception of the layers'
 * `exceptions:` once for all the rules in its scope: a rule holds the compiled exceptions of each
 * scope it is in, by reference. So a thousand exceptions over a thousand rules compile a thousand
 * matches and hold a few thousand references, where a copy per rule compiled a million.
 *
 * @throws {RuleLoadError} when a rule or an exception does not compile (a pack built by hand);
 *   `composeRuleLayers` reports those where they were written.
 * @example
 * ```ts
 * const rules = compileRulePack({ pack });
 * const alerting = rules.filter((rule) => rule.matches(event));
 * ```
 */
export function compileRulePack(options: CompileRulePackOptions): CompiledRule[] {
  const { pack, ruleIds } = options;
  const problems: CompileProblem[] = [];
  const context = { lists: pack.lists, problems };
  const specs = pack.rules
    .map((rule) => rule.spec)
    .filter((spec) => ruleIds === undefined || ruleIds.has(spec.id));
  const compiled = specs.map((spec) => compileRuleOnce(spec, context));
  // The compiled exceptions of each scope holding a rule compiled; `undefined` for the other scopes.
  const scopes = new Map<ReadonlySet<string>, Predicate[] | undefined>();
  pack.exceptions.forEach((exception, index) => {
    if (!scopes.has(exception.scope)) {
      scopes.set(exception.scope, overlaps(exception.scope, ruleIds) ? [] : undefined);
    }
    const group = scopes.get(exception.scope);
    if (group === undefined) return;
    group.push(compileExceptionOnce(exception.match, ['exceptions', index, 'match'], context));
  });
  if (problems.length > 0) {
    throw RuleLoadError.fromProblems(
      problems.map((problem) => ({
        code: problem.code,
        file: '<rule pack>',
        path: problem.path,
        message: problem.message,
      })),
    );
  }
  const groups = [...scopes].flatMap(([scope, group]) => (group === undefined ? [] : [{ scope, group }]));
  if (groups.length === 0) return compiled;
  return compiled.map((rule) => {
    const applying = groups.filter(({ scope }) => scope.has(rule.id)).map(({ group }) => group);
    if (applying.length === 0) return rule;
    const own = rule.matches;
    return { ...rule, matches: (event: AtlasEvent) => own(event) && !applying.some(anyMatches(event)) };
  });
}

/** Whether a scope holds one of the rules compiled (any rule, when all are). */
function overlaps(scope: ReadonlySet<string>, ruleIds: ReadonlySet<string> | undefined): boolean {
  if (ruleIds === undefined) return scope.size > 0;
  const [smaller, larger] = scope.size <= ruleIds.size ? [scope, ruleIds] : [ruleIds, scope];
  for (const id of smaller) if (larger.has(id)) return true;
  return false;
}

function anyMatches(event: AtlasEvent): (group: readonly Predicate[]) => boolean {
  return (group) => group.some((exception) => exception(event));
}

/**
 * Compiles a rule spec as `compileRule` does, or gives the rule compiled from the same spec and lists
 * before. A compile that found a problem is not kept, so each caller sees its problems.
 *
 * @example
 * ```ts
 * const context = { lists, problems: [] };
 * const rule = compileRuleOnce(spec, context);
 * ```
 */
export function compileRuleOnce(
  spec: RuleSpec,
  context: { readonly lists: Lists; readonly problems: CompileProblem[] },
): CompiledRule {
  const known = compiledRules.get(spec);
  if (known !== undefined && sameLists(known.lists, context.lists)) return known.rule;
  const before = context.problems.length;
  const rule = compileRule(spec, context);
  if (context.problems.length === before) compiledRules.set(spec, { lists: context.lists, rule });
  return rule;
}

/**
 * Compiles an exception's match as `compileMatch` does, or gives the predicate compiled from the same
 * match and lists before; as {@link compileRuleOnce}.
 *
 * @example
 * ```ts
 * const excepted = compileExceptionOnce(exception.match, ['exceptions', 0, 'match'], context);
 * ```
 */
export function compileExceptionOnce(
  match: MatchSpec,
  path: (string | number)[],
  context: { readonly lists: Lists; readonly problems: CompileProblem[] },
): Predicate {
  const known = compiledExceptions.get(match);
  if (known !== undefined && sameLists(known.lists, context.lists)) return known.predicate;
  const before = context.problems.length;
  const predicate = compileMatch(match, path, context);
  if (context.problems.length === before) compiledExceptions.set(match, { lists: context.lists, predicate });
  return predicate;
}

function sameLists(a: Lists, b: Lists): boolean {
  if (a === b) return true;
  let known = sameListPairs.get(a);
  const answer = known?.get(b);
  if (answer !== undefined) return answer;
  let same = a.size === b.size;
  if (same) for (const [name, values] of a) if (b.get(name) !== values) same = false;
  if (known === undefined) {
    known = new WeakMap();
    sameListPairs.set(a, known);
  }
  known.set(b, same);
  return same;
}
