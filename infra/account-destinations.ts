import type { SnsFilterPolicy } from '../shared/routes/filter-policy.js';
import { isAccountDestination, planRoutes } from '../shared/routes/route-plan.js';
import type { DeployConfig } from './config.js';
import { deliveryRoutes } from './delivery-routes.js';

/** The routes' filter policies of each destination the poller delivers to itself; `null` takes every alert. */
export interface AccountDestinationPolicies {
  eventBridge?: Array<SnsFilterPolicy | null>;
  securityHub?: Array<SnsFilterPolicy | null>;
}

/** The name the stack gives the bus it creates (`eventBridge.bus: create`). */
export const CREATED_BUS = 'create';

/**
 * Which of EventBridge and Security Hub the routes send to, each with its routes' filter policies,
 * in the order the routes are configured.
 *
 * @example
 * ```ts
 * accountDestinationPolicies({ alerts: { emails: [], emailMinSeverity: 'medium', securityHub: {} }, routes: [] });
 * // { securityHub: [null] }
 * ```
 */
export function accountDestinationPolicies(
  config: Pick<DeployConfig, 'alerts' | 'routes'>,
): AccountDestinationPolicies {
  const policies: AccountDestinationPolicies = {};
  for (const plan of planRoutes(deliveryRoutes(config)).destinations) {
    const { destination } = plan;
    if (!isAccountDestination(destination)) continue;
    policies[destination.kind] = plan.routePolicies.map((policy) => policy ?? null);
  }
  return policies;
}
