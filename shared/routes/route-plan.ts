import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import { severityRank } from '../notify/alert.js';
import type { DigestEvery } from '../notify/digest-period.js';
import { digestTakes, planDigests } from './digest-route.js';
import {
  type CompiledPolicy,
  compileRouteMatch,
  digestClause,
  policyLimitProblem,
  type SnsFilterPolicy,
  toSnsFilterPolicy,
  unionPolicies,
} from './filter-policy.js';
import { filterPolicyMatches } from './filter-policy-match.js';
import type { DestinationKind, RouteSettings } from './route-settings.js';

/** One endpoint alerts are delivered to, and which routes send to it. */
export type Destination =
  | { readonly kind: 'email'; readonly address: string }
  | { readonly kind: 'slack'; readonly workspaceId: string; readonly channelId: string }
  /** The deployment's one EventBridge bus. */
  | { readonly kind: 'eventBridge' }
  /** The Security Hub of the account and region the poller runs in. */
  | { readonly kind: 'securityHub' };

/**
 * Destinations the poller delivers to itself, one each per deployment, beside the SNS topic whose
 * subscriptions deliver to email and Slack.
 */
export type AccountDestinationKind = Extract<Destination['kind'], 'eventBridge' | 'securityHub'>;

/** Whether a destination is delivered by the poller itself rather than by an SNS subscription. */
export function isAccountDestination(
  destination: Destination,
): destination is Extract<Destination, { kind: AccountDestinationKind }> {
  return destination.kind === 'eventBridge' || destination.kind === 'securityHub';
}

/** A destination with the filter policy of its one subscription: the union of its routes' policies. */
export interface DestinationPlan {
  destination: Destination;
  /** The routes that send to it, in the order they are configured. */
  routes: string[];
  policy: CompiledPolicy;
  /** What the subscription's filter policy is; `undefined` when it takes every alert. */
  filterPolicy: SnsFilterPolicy | undefined;
  /**
   * Each of its routes' policies, in the order of {@link routes} (`undefined`: every alert). The poller
   * evaluates these for the destinations it delivers to itself (see `isAccountDestination`), so their
   * union is never bound by what one SNS subscription holds.
   */
  routePolicies: Array<SnsFilterPolicy | undefined>;
}

/** A route setting SNS could not take, with where it is. */
export interface RouteProblem {
  /** Path below the routes list: `[2, 'match']`. */
  path: (string | number)[];
  message: string;
}

/** What a list of routes becomes: one subscription per destination, or the problems. */
export interface RoutePlan {
  destinations: DestinationPlan[];
  problems: RouteProblem[];
}

/**
 * A destination's identity: an address (case-insensitive, as SNS treats it) or a Slack channel.
 *
 * @example
 * ```ts
 * destinationKey({ kind: 'email', address: 'SecOps@example.com' }); // 'email:secops@example.com'
 * ```
 */
export function destinationKey(destination: Destination): string {
  switch (destination.kind) {
    case 'email':
      return `email:${destination.address.toLowerCase()}`;
    case 'slack':
      return `slack:${destination.workspaceId}/${destination.channelId}`;
    default:
      return destination.kind;
  }
}

/**
 * How a destination is named to a person: the address, or `Slack T012AB3CD/C0123ABCDEF`.
 */
export function describeDestination(destination: Destination): string {
  switch (destination.kind) {
    case 'email':
      return destination.address;
    case 'slack':
      return `Slack ${destination.workspaceId}/${destination.channelId}`;
    case 'eventBridge':
      return 'EventBridge';
    case 'securityHub':
      return 'Security Hub';
  }
}

/** Options of {@link routeDestinations}. */
export interface RouteDestinationOptions {
  /**
   * Whether any route of the deployment has a digest: then every email and Slack policy takes alerts
   * only (a severity floor of at least info), so no route takes another's digest messages. Default:
   * whether this route has one.
   */
  digests?: boolean;
}

/**
 * The destinations one route names, each with the policy of that route for it. With a digest, its
 * email and Slack take the route's alerts at or above `digest.below` (and their own floors) one by
 * one, and the route's digest messages.
 */
export function routeDestinations(
  route: RouteSettings,
  options: RouteDestinationOptions = {},
): Array<{ destination: Destination; kind: DestinationKind; policy: CompiledPolicy }> {
  const out: Array<{ destination: Destination; kind: DestinationKind; policy: CompiledPolicy }> = [];
  const alertsOnly = options.digests ?? route.digest !== undefined;
  const messagePolicy = (floor: RouteSettings['match']['minSeverity']): CompiledPolicy => {
    if (route.digest === undefined) return compileRouteMatch(route.match, floor, { alertsOnly });
    const below = route.digest.below;
    const raised = floor === undefined || severityRank(floor) < severityRank(below) ? below : floor;
    return [...compileRouteMatch(route.match, raised, { alertsOnly }), ...digestClause(route.name)];
  };
  if (route.email !== undefined) {
    const policy = messagePolicy(route.email.minSeverity);
    for (const address of route.email.to) {
      out.push({ destination: { kind: 'email', address }, kind: 'email', policy });
    }
  }
  if (route.slack !== undefined) {
    const { workspaceId, channelId, minSeverity } = route.slack;
    out.push({
      destination: { kind: 'slack', workspaceId, channelId },
      kind: 'slack',
      policy: messagePolicy(minSeverity),
    });
  }
  for (const kind of ['eventBridge', 'securityHub'] as const) {
    const settings = route[kind];
    if (settings !== undefined) {
      out.push({ destination: { kind }, kind, policy: compileRouteMatch(route.match, settings.minSeverity) });
    }
  }
  return out;
}

/**
 * Plans the subscriptions of a list of routes: one per destination (SNS subscribes an endpoint to a
 * topic once), whose filter policy takes what any of its routes takes. A route whose own policy is
 * beyond SNS's limits, or a destination whose union is, is a problem at that route.
 *
 * @example
 * ```ts
 * const plan = planRoutes(routes);
 * if (plan.problems.length > 0) throw ...;
 * for (const { destination, filterPolicy } of plan.destinations) subscribe(destination, filterPolicy);
 * ```
 */
export function planRoutes(routes: readonly RouteSettings[]): RoutePlan {
  const problems: RouteProblem[] = [];
  const byKey = new Map<
    string,
    { destination: Destination; routes: string[]; policies: CompiledPolicy[]; firstRoute: number }
  >();
  const digests = routes.some((route) => route.digest !== undefined);
  routes.forEach((route, index) => {
    for (const { destination, kind, policy } of routeDestinations(route, { digests })) {
      const problem = policyLimitProblem(policy);
      if (problem !== undefined) {
        problems.push({ path: [index, 'match'], message: `route ${route.name} (${kind}): ${problem}` });
        continue;
      }
      const key = destinationKey(destination);
      const entry = byKey.get(key) ?? { destination, routes: [], policies: [], firstRoute: index };
      if (!entry.routes.includes(route.name)) entry.routes.push(route.name);
      entry.policies.push(policy);
      byKey.set(key, entry);
    }
  });
  const destinations: DestinationPlan[] = [];
  for (const entry of byKey.values()) {
    const policy = unionPolicies(entry.policies);
    const problem = isAccountDestination(entry.destination) ? undefined : policyLimitProblem(policy);
    if (problem !== undefined) {
      problems.push({
        path: [entry.firstRoute],
        message: `${describeDestination(entry.destination)} is in routes ${entry.routes.join(', ')}, whose matches together make one subscription: ${problem}`,
      });
      continue;
    }
    destinations.push({
      destination: entry.destination,
      routes: entry.routes,
      policy,
      filterPolicy: toSnsFilterPolicy(policy),
      routePolicies: entry.policies.map(toSnsFilterPolicy),
    });
  }
  return { destinations, problems };
}

/** Which routes take an alert, and at which of their destinations. */
export interface RouteDecision {
  route: string;
  /** The route's destinations this alert reaches (a destination's own floor may leave some out). */
  reaches: Destination[];
  /** Set when the route's digest takes the alert: its email and Slack tell it in the digest, this often. */
  digest?: DigestEvery;
}

/**
 * The routes an alert with these message attributes reaches, each with the destinations it reaches
 * there: every route's filter policies evaluated as SNS evaluates them (see `filterPolicyMatches`).
 *
 * @example
 * ```ts
 * routeAlert(routes, buildMessageAttributes(alert)).map((decision) => decision.route); // ['security', 'payments']
 * ```
 */
export function routeAlert(
  routes: readonly RouteSettings[],
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): RouteDecision[] {
  const decisions: RouteDecision[] = [];
  const digests = routes.some((route) => route.digest !== undefined);
  for (const route of routes) {
    const reaches = routeDestinations(route, { digests })
      .filter(({ policy }) => filterPolicyMatches(toSnsFilterPolicy(policy), attributes))
      .map(({ destination }) => destination);
    const digest = planDigests([route])[0];
    const digested = digest !== undefined && digestTakes(digest, attributes);
    if (reaches.length > 0 || digested) {
      decisions.push({ route: route.name, reaches, ...(digested ? { digest: digest.every } : {}) });
    }
  }
  return decisions;
}
