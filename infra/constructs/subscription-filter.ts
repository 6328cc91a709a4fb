import type { CfnSubscription, Subscription } from 'aws-cdk-lib/aws-sns';
import type { SnsFilterPolicy } from '../../shared/routes/filter-policy.js';

/**
 * Gives a subscription its filter policy as SNS takes it: the policy of routes may hold `$or`, which
 * the construct's typed filters cannot say.
 */
export function setFilterPolicy(subscription: Subscription, policy: SnsFilterPolicy | undefined): void {
  if (policy === undefined) return;
  (subscription.node.defaultChild as CfnSubscription).filterPolicy = policy;
}
