import type { RouteSettings } from '../shared/routes/route-settings.js';
import type { DeployConfig } from './config.js';

/** What {@link deliveryRoutes} reads: the `alerts` settings (their `digest` defaults to none) and `routes`. */
export interface DeliveryRoutesConfig {
  alerts: Omit<DeployConfig['alerts'], 'digest'> & { digest?: DeployConfig['alerts']['digest'] };
  routes: DeployConfig['routes'];
}

/** The name of the route the deployment's `alerts` settings make: every alert, at their floors. */
export const DEFAULT_ROUTE = 'default';

/**
 * The routes alerts are delivered by: the one the `alerts` settings make (named `default`, matching
 * every alert, with their severity floors: emails, Slack, EventBridge, Security Hub), when they name a
 * destination, then
 * the `routes` list in its order.
 *
 * @example
 * ```ts
 * deliveryRoutes({ alerts: { emails: ['secops@example.com'], emailMinSeverity: 'medium' }, routes: [] });
 * // [{ name: 'default', match: {}, email: { to: ['secops@example.com'], minSeverity: 'medium' } }]
 * ```
 */
export function deliveryRoutes(config: DeliveryRoutesConfig): RouteSettings[] {
  const { emails, emailMinSeverity, slack, eventBridge, securityHub, digest } = config.alerts;
  if (!hasDefaultRoute(config)) return [...config.routes];
  const route: RouteSettings = { name: DEFAULT_ROUTE, match: {} };
  if (emails.length > 0) route.email = { to: [...emails], minSeverity: emailMinSeverity };
  if (slack !== undefined) route.slack = { ...slack };
  // A digest needs email or Slack to go to: a default route of EventBridge or Security Hub alone has none.
  if (digest !== false && digest !== undefined && (route.email !== undefined || route.slack !== undefined)) {
    route.digest = { ...digest };
  }
  if (eventBridge !== undefined) route.eventBridge = { ...eventBridge };
  if (securityHub !== undefined) route.securityHub = { ...securityHub };
  return [route, ...config.routes];
}

/**
 * Where a path below the list {@link deliveryRoutes} returns is set: under `alerts` for the default
 * route, else under `routes`.
 */
export function deliveryRoutePath(
  config: DeliveryRoutesConfig,
  path: readonly (string | number)[],
): (string | number)[] {
  const [index, ...rest] = path;
  if (typeof index !== 'number') return ['routes', ...path];
  if (!hasDefaultRoute(config)) return ['routes', index, ...rest];
  return index === 0 ? ['alerts'] : ['routes', index - 1, ...rest];
}

/** Whether the `alerts` settings name a destination, and so make the route named `default`. */
export function hasDefaultRoute(config: Pick<DeliveryRoutesConfig, 'alerts'>): boolean {
  const { emails, slack, eventBridge, securityHub } = config.alerts;
  return emails.length > 0 || slack !== undefined || eventBridge !== undefined || securityHub !== undefined;
}
