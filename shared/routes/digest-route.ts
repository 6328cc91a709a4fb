import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import { severityRank } from '../notify/alert.js';
import type { DigestEvery } from '../notify/digest-period.js';
import { compileRouteMatch, type SnsFilterPolicy, toSnsFilterPolicy } from './filter-policy.js';
import { filterPolicyMatches } from './filter-policy-match.js';
import type { RouteSettings } from './route-settings.js';

/** What the poller needs of a route's digest: which alerts it takes, and how often it is sent. */
export interface DigestPlan {
  route: string;
  every: DigestEvery;
  /** The severity rank alerts stay below to be digested (2 for low ... 4 for high). */
  belowRank: number;
  /** The route's match (the floors of its email and Slack apply to alerts sent one by one); `null` takes every alert. */
  policy: SnsFilterPolicy | null;
}

/**
 * The digests of a list of routes, in their order: one per route with a `digest` setting. A digest
 * takes the alerts its route matches below `below`; the floors of the route's email and Slack apply
 * to the alerts they receive one by one (an email floor of medium with a digest below medium: info
 * and low in the digest, medium and above one by one).
 *
 * @example
 * ```ts
 * planDigests([{ name: 'security', match: {}, email: { to: ['secops@example.com'] }, digest: { below: 'medium', every: 'daily' } }]);
 * // [{ route: 'security', every: 'daily', belowRank: 3, policy: null }]
 * ```
 */
export function planDigests(routes: readonly RouteSettings[]): DigestPlan[] {
  const plans: DigestPlan[] = [];
  for (const route of routes) {
    if (route.digest === undefined) continue;
    plans.push({
      route: route.name,
      every: route.digest.every,
      belowRank: severityRank(route.digest.below),
      policy: toSnsFilterPolicy(compileRouteMatch(route.match)) ?? null,
    });
  }
  return plans;
}

/**
 * Whether a digest takes an alert with these message attributes (see `buildMessageAttributes`).
 *
 * @example
 * ```ts
 * digestTakes(plan, buildMessageAttributes(alert)); // true for an info alert of a daily digest below low
 * ```
 */
export function digestTakes(
  plan: Pick<DigestPlan, 'belowRank' | 'policy'>,
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): boolean {
  const rank = Number(attributes.severityRank?.StringValue);
  if (!Number.isFinite(rank) || rank >= plan.belowRank) return false;
  return plan.policy === null || filterPolicyMatches(plan.policy, attributes);
}
