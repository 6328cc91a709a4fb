import { SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import { type Severity, severityRank } from '../../shared/notify/alert.js';

/**
 * The message attribute every alert carries: its severity as a Number, 1 (info) to 5 (critical), so a
 * subscription can ask for "this severity or above" with one numeric filter.
 */
export const SEVERITY_RANK_ATTRIBUTE = 'severityRank';

/**
 * The filter policy of a subscription that receives alerts of `severity` and above.
 *
 * @example
 * ```ts
 * new EmailSubscription('secops@example.com', { filterPolicy: severityAtLeast('high') });
 * ```
 */
export function severityAtLeast(severity: Severity): Record<string, SubscriptionFilter> {
  return {
    [SEVERITY_RANK_ATTRIBUTE]: SubscriptionFilter.numericFilter({
      greaterThanOrEqualTo: severityRank(severity),
    }),
  };
}
