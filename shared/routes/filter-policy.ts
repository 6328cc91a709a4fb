import { severityRank } from '../notify/alert.js';
import { ATLAS_ID, type RouteMatch } from './route-settings.js';

/**
 * The message attributes routes match on. Every alert carries them when it has the value (see
 * `buildMessageAttributes`); `tags` is a `String.Array`, the others `String` or `Number`.
 */
export const RouteAttribute = {
  severityRank: 'severityRank',
  connection: 'connection',
  orgId: 'orgId',
  orgName: 'orgName',
  groupId: 'groupId',
  groupName: 'groupName',
  ruleId: 'ruleId',
  tags: 'tags',
  /** Carried only by a route's digest messages: the route's name (see `digest-message.ts`). */
  digest: 'digest',
} as const;

export type RouteAttributeName = (typeof RouteAttribute)[keyof typeof RouteAttribute];

/** One attribute's condition: any of some strings, or a number at least some value. */
export type AttributeCondition =
  | { readonly kind: 'any-of'; readonly values: readonly string[] }
  | { readonly kind: 'at-least'; readonly value: number };

/** Conditions that must all hold, one per attribute. An empty clause holds for every message. */
export type PolicyClause = ReadonlyMap<RouteAttributeName, AttributeCondition>;

/**
 * A filter policy as clauses of which any may hold (`$or`). One empty clause is "every message": the
 * subscription gets no filter policy at all.
 */
export type CompiledPolicy = readonly PolicyClause[];

/** SNS: a filter policy has at most five keys (on each path of an `$or`). */
export const MAX_POLICY_KEYS = 5;
/** SNS: the values of a filter policy multiplied together (summed over the paths of an `$or`) are at most 150. */
export const MAX_POLICY_COMBINATIONS = 150;

/** A filter policy as SNS takes it (JSON). */
export type SnsFilterPolicy = Record<string, unknown>;

/**
 * The clauses of one route's match: its conditions, and for organizations and projects given partly by
 * id and partly by name, one clause per way of naming them (an alert's `orgId` or its `orgName`).
 *
 * @example
 * ```ts
 * compileRouteMatch({ projects: ['payments-prod'], minSeverity: 'high' });
 * // With `alertsOnly`, a route with no floor gets `severityRank >= 1`, which no digest message has.
 * // [Map { 'severityRank' => { kind: 'at-least', value: 4 }, 'groupName' => { kind: 'any-of', values: ['payments-prod'] } }]
 * ```
 */
export function compileRouteMatch(
  match: RouteMatch,
  floor?: RouteMatch['minSeverity'],
  options: { alertsOnly?: boolean } = {},
): CompiledPolicy {
  const common = new Map<RouteAttributeName, AttributeCondition>();
  const rank = Math.max(
    match.minSeverity === undefined ? 0 : severityRank(match.minSeverity),
    floor === undefined ? 0 : severityRank(floor),
  );
  // info is the lowest severity: a floor at info lets every alert through. Where digests share the
  // topic (`alertsOnly`), the floor is kept even at info: digest messages carry no severity, so it is
  // what keeps them from subscriptions that take every alert.
  if (rank > 1 || options.alertsOnly === true) {
    common.set(RouteAttribute.severityRank, { kind: 'at-least', value: Math.max(rank, 1) });
  }
  if (match.connections !== undefined) common.set(RouteAttribute.connection, anyOf(match.connections));
  if (match.rules !== undefined) common.set(RouteAttribute.ruleId, anyOf(match.rules));
  if (match.tags !== undefined) common.set(RouteAttribute.tags, anyOf(match.tags));
  let clauses: Map<RouteAttributeName, AttributeCondition>[] = [common];
  for (const [values, idKey, nameKey] of [
    [match.orgs, RouteAttribute.orgId, RouteAttribute.orgName],
    [match.projects, RouteAttribute.groupId, RouteAttribute.groupName],
  ] as const) {
    if (values === undefined) continue;
    const ids = values.filter((value) => ATLAS_ID.test(value));
    const names = values.filter((value) => !ATLAS_ID.test(value));
    const ways: [RouteAttributeName, readonly string[]][] = [];
    if (ids.length > 0) ways.push([idKey, ids]);
    if (names.length > 0) ways.push([nameKey, names]);
    clauses = clauses.flatMap((clause) => ways.map(([key, list]) => new Map(clause).set(key, anyOf(list))));
  }
  return clauses;
}

function anyOf(values: readonly string[]): AttributeCondition {
  return { kind: 'any-of', values: [...new Set(values)] };
}

/**
 * Several policies as one: a message that any of them takes. Used where several routes send to one
 * destination (SNS subscribes an endpoint to a topic once). A policy that takes everything makes the
 * whole union take everything; clauses that appear twice are kept once.
 *
 * @example
 * ```ts
 * unionPolicies([compileRouteMatch({ minSeverity: 'high' }), compileRouteMatch({ tags: ['data-explorer'] })]).length; // 2
 * ```
 */
export function unionPolicies(policies: readonly CompiledPolicy[]): CompiledPolicy {
  const clauses: PolicyClause[] = [];
  const seen = new Set<string>();
  for (const policy of policies) {
    for (const clause of policy) {
      if (clause.size === 0) return [clause];
      const key = JSON.stringify(clauseJson(clause));
      if (seen.has(key)) continue;
      seen.add(key);
      clauses.push(clause);
    }
  }
  return clauses;
}

/** Why a policy is beyond what SNS accepts, or `undefined` when it is within its limits. */
export function policyLimitProblem(policy: CompiledPolicy): string | undefined {
  let combinations = 0;
  for (const clause of policy) {
    if (clause.size > MAX_POLICY_KEYS) {
      return `it matches on ${clause.size} attributes (${[...clause.keys()].join(', ')}) where SNS allows ${MAX_POLICY_KEYS}: match on fewer of connections, orgs, projects, rules, tags and minSeverity, or split the route`;
    }
    let product = 1;
    for (const condition of clause.values())
      product *= condition.kind === 'any-of' ? condition.values.length : 1;
    combinations += product;
  }
  if (combinations > MAX_POLICY_COMBINATIONS) {
    return `its lists multiply to ${combinations} combinations where SNS allows ${MAX_POLICY_COMBINATIONS}: list fewer values (a tag shared by the rules instead of each rule id, say), or split the route`;
  }
  return undefined;
}

/**
 * The policy as SNS takes it: `undefined` for a policy that takes every message (no filter), one
 * object for one clause, `{"$or": [...]}` for several.
 *
 * @example
 * ```ts
 * toSnsFilterPolicy(compileRouteMatch({ minSeverity: 'high' })); // { severityRank: [{ numeric: ['>=', 4] }] }
 * ```
 */
export function toSnsFilterPolicy(policy: CompiledPolicy): SnsFilterPolicy | undefined {
  if (policy.length === 0) throw new RangeError('a compiled policy has at least one clause');
  if (policy.some((clause) => clause.size === 0)) return undefined;
  if (policy.length === 1) return clauseJson(policy[0] as PolicyClause);
  return { $or: policy.map(clauseJson) };
}

function clauseJson(clause: PolicyClause): SnsFilterPolicy {
  const json: SnsFilterPolicy = {};
  for (const [key, condition] of [...clause].sort(([a], [b]) => a.localeCompare(b))) {
    json[key] = condition.kind === 'any-of' ? [...condition.values] : [{ numeric: ['>=', condition.value] }];
  }
  return json;
}

/**
 * The clause that takes a route's digest messages: their `digest` attribute names the route.
 *
 * @example
 * ```ts
 * toSnsFilterPolicy(digestClause('security')); // { digest: ['security'] }
 * ```
 */
export function digestClause(route: string): CompiledPolicy {
  return [new Map([[RouteAttribute.digest, anyOf([route])]])];
}
