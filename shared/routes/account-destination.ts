import { buildMessageAttributes } from '../notify/message-attributes.js';
import type { Notifier, PublishResult } from '../notify/notifier.js';
import type { AlertDestination } from '../poll/alert-delivery.js';
import type { SnsFilterPolicy } from './filter-policy.js';
import { filterPolicyMatches } from './filter-policy-match.js';
import type { AccountDestinationKind } from './route-plan.js';

/** How each destination the poller delivers to itself is named in claims, logs and metrics. */
export const ACCOUNT_DESTINATION_NAMES: Readonly<Record<AccountDestinationKind, string>> = {
  eventBridge: 'eventbridge',
  securityHub: 'securityhub',
};

/**
 * Failure codes that say the destination itself is misconfigured (the bus missing, Security Hub not
 * enabled in the Region, IAM denying the call): nothing passes until a person fixes it.
 */
export const MISCONFIGURATION_CODES: ReadonlySet<string> = new Set([
  'ResourceNotFound',
  'AccessDenied',
  'InvalidAccess',
  'REGION_MISMATCH',
]);

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
 * A failure that says the destination is misconfigured ({@link MISCONFIGURATION_CODES}) fails the
 * alert there for good: holding the source's cursor for it would hold every later alert from email
 * and Slack too, for as long as nobody fixes it. The destination's `DestinationAlertsFailed` alarm
 * tells; throttling, server errors and the network still hold the cursor, and pass on their own.
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
  const name = ACCOUNT_DESTINATION_NAMES[options.kind];
  return {
    name,
    notifier: {
      publish: async (alerts, publishOptions) =>
        settleMisconfiguration(await options.notifier.publish(alerts, publishOptions)),
    },
    accepts: (alert) => {
      if (everything) return true;
      const attributes = buildMessageAttributes(alert);
      return policies.some((policy) => filterPolicyMatches(policy, attributes));
    },
  };
}

/** The notifier's results, with a misconfiguration made a failure for good (see `routedDestination`). */
function settleMisconfiguration(results: PublishResult[]): PublishResult[] {
  return results.map((result) =>
    result.status === 'failed' && result.retryable && MISCONFIGURATION_CODES.has(result.code)
      ? {
          ...result,
          retryable: false,
          message: `${result.message} (the destination is misconfigured: this alert is dropped there, email and Slack go on)`,
        }
      : result,
  );
}
