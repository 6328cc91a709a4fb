import { buildMessageAttributes } from '../notify/message-attributes.js';
import type { Notifier } from '../notify/notifier.js';
import type { AlertDestination } from '../poll/alert-delivery.js';
import type { SnsFilterPolicy } from './filter-policy.js';
import { filterPolicyMatches } from './filter-policy-match.js';
import type { AccountDestinationKind } from './route-plan.js';

/** How each destination the poller delivers to itself is named in claims, logs and metrics. */
export const ACCOUNT_DESTINATION_NAMES: Readonly<Record<AccountDestinationKind, string>> = {
  eventBridge: 'eventbridge',
  securityHub: 'securityhub',
};

/** Options of {@link routedDestination}. */
export interface RoutedDestinationOptions {
  kind: AccountDestinationKind;
  notifier: Notifier;
  /** The filter policies of the routes that name it; `null` takes every alert. */
  policies: ReadonlyArray<SnsFilterPolicy | null>;
}

/**
 * A destination that takes an alert when any of its routes' filter policies takes the alert's message
 * attributes, evaluated as SNS evaluates the subscriptions of email and Slack: a route means the same
 * whichever destinations it names.
 *
 * @example
 * ```ts
 * const destination = routedDestination({ kind: 'eventBridge', notifier, policies: [{ severityRank: [{ numeric: ['>=', 4] }] }] });
 * destination.accepts(criticalAlert); // true
 * ```
 */
export function routedDestination(options: RoutedDestinationOptions): AlertDestination {
  const policies = options.policies.map((policy) => policy ?? undefined);
  const everything = policies.includes(undefined);
  return {
    name: ACCOUNT_DESTINATION_NAMES[options.kind],
    notifier: options.notifier,
    accepts: (alert) => {
      if (everything) return true;
      const attributes = buildMessageAttributes(alert);
      return policies.some((policy) => filterPolicyMatches(policy, attributes));
    },
  };
}
