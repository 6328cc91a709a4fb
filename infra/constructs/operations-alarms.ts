import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../../shared/poll/metric-names.js';
import { ACCOUNT_DESTINATION_NAMES } from '../../shared/routes/account-destination.js';
import type { AccountDestinationKind } from '../../shared/routes/route-plan.js';
import { connectionIdPart } from '../deploy-connections.js';
import { pollerMetric } from './poller-metrics.js';
import type { SubscriptionDeadLetterQueue } from './subscription-dead-letters.js';

export interface OperationsAlarmsProps {
  poller: IFunction;
  /** Where the alarms (and their return to OK) are sent. */
  topic: ITopic;
  /** How often the poller runs: the period the tick metrics are read in. */
  schedulePeriod: Duration;
  /** The watermark lag above which the lag alarm fires. */
  watermarkLagThreshold: Duration;
  /**
   * The Slack deliveries, one per channel: the dead-letter queue of its pipe, and the topic AWS
   * Chatbot reads. Their alarms are named after `id` (`SlackDeliveryFailed`, `SlackNotificationsFailed`).
   */
  slack?: readonly { id: string; deadLetterQueue: IQueue; topic: ITopic }[];
  /** The topics whose failed notifications raise an alarm. */
  notificationTopics: { alerts: ITopic; operations: ITopic };
  /** The dead-letter queues of the stack's subscriptions, each with its alarm. */
  subscriptionDeadLetters: readonly SubscriptionDeadLetterQueue[];
  /**
   * The connections polled, by name, when the configuration has `connections` (`default` included
   * when the top-level settings name sources): each gets an alarm on its own sources' errors. None
   * for a deployment of the top-level settings alone, whose metrics carry no connection.
   */
  connections?: readonly string[];
  /** Whether a route has a digest: then a digest that could not be sent is alarmed. */
  digests?: boolean;
  /** The destinations the poller delivers to itself beside the topic, each alarmed when it fails. */
  destinations?: readonly AccountDestinationKind[];
}

interface AlarmSpec {
  id: string;
  metric: IMetric;
  threshold: number;
  comparisonOperator: ComparisonOperator;
  evaluationPeriods: number;
  treatMissingData: TreatMissingData;
  description: string;
}

/**
 * The alarms that tell the people running the deployment that alerts may not be arriving: the function
 * failing or throttled, ticks no longer completing (the heartbeat goes missing for three periods), Atlas
 * refusing the credentials, the watermark falling behind, a rule failing on an event, a first-seen record
 * the state table did not keep, alerts that could not be published, Slack messages that could not be
 * forwarded, and notifications SNS could not deliver to a subscription (its topic's
 * `NumberOfNotificationsFailed`, and each subscription's dead-letter queue). With connections, one
 * more per connection (`ConnectionSourceErrors<Name>`): its sources failing two periods running, so
 * the alarm says which credentials or which Atlas to look at.
 */
export class OperationsAlarms extends Construct {
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps) {
    super(scope, id);
    const period = props.schedulePeriod;
    const atLeastOnce = {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    };
    const specs: AlarmSpec[] = [
      {
        id: 'FunctionErrors',
        metric: props.poller.metricErrors({ period, statistic: 'Sum' }),
        ...atLeastOnce,
        description:
          'The poller Lambda failed (an exception, a timeout or running out of memory). Read its log group; the next tick reads the same window again.',
      },
      {
        id: 'FunctionThrottles',
        metric: props.poller.metricThrottles({ period, statistic: 'Sum' }),
        ...atLeastOnce,
        description:
          'An invocation of the poller was throttled: a tick ran longer than the schedule period, or the account is out of concurrency. Check the tick duration on the dashboard.',
      },
      {
        id: 'HeartbeatMissing',
        metric: pollerMetric({ name: MetricName.tickCompleted, statistic: 'Sum', period }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.BREACHING,
        description:
          'No poll tick has completed for three schedule periods: alerts are not being raised. Check that the schedule is enabled, then the poller log group.',
      },
      {
        id: 'AtlasAuthFailures',
        metric: pollerMetric({ name: MetricName.atlasAuthFailures, statistic: 'Sum', period }),
        ...atLeastOnce,
        description:
          "Atlas refused the poller's credentials (401) or their permissions (403): check the secret, the key's roles, and that the Lambda's egress address is on the key's access list.",
      },
      {
        id: 'WatermarkLag',
        // The oldest source over all of them, polled this tick or not: also fires for a starved source.
        metric: pollerMetric({ name: MetricName.oldestSourceLagSeconds, statistic: 'Maximum', period }),
        threshold: props.watermarkLagThreshold.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        description: `A source's watermark is more than ${props.watermarkLagThreshold.toMinutes()} minutes behind: events are read late. Check the poller log group for failing sources or ticks cut short by the deadline, and the Atlas 429 count on the dashboard.`,
      },
      {
        id: 'RuleErrors',
        metric: pollerMetric({ name: MetricName.ruleErrors, statistic: 'Sum', period }),
        ...atLeastOnce,
        description:
          'A rule failed on an event and that event was skipped for that rule, so an alert may be missing. The poller log names the rule and the event id: fix the rule, deploy, and check the period with `atlas-audit-alerts rules replay`.',
      },
      {
        id: 'FirstSeenStateErrors',
        metric: pollerMetric({ name: MetricName.firstSeenStateErrors, statistic: 'Sum', period }),
        ...atLeastOnce,
        description:
          "The state table did not keep the record of a first-seen rule for one group, so that group's events were not judged first-seen and an alert may be missing; the other rules and groups went on. The poller log names the rule, the reason and the event ids: check the state table, and the events with `atlas-audit-alerts rules replay`.",
      },
      {
        id: 'AlertsFailed',
        metric: pollerMetric({ name: MetricName.alertsFailed, statistic: 'Sum', period }),
        ...atLeastOnce,
        description:
          'Alerts could not be published to the alert topic; they are retried on the next tick (an audit log object’s, when its notification comes back). Check the poller log group (or the audit log function’s) and the topic key policy.',
      },
    ];
    if (props.digests === true) {
      specs.push({
        id: 'DigestsFailed',
        metric: pollerMetric({ name: MetricName.digestsFailed, statistic: 'Sum', period }),
        ...atLeastOnce,
        description:
          "A route's digest could not be sent at the end of a tick: its alerts are kept and the digest is tried again next tick. The poller log names the route and the period; check the topic key policy and the state table.",
      });
    }
    for (const kind of props.destinations ?? []) {
      const name = ACCOUNT_DESTINATION_NAMES[kind];
      specs.push({
        id: kind === 'eventBridge' ? 'EventBridgeDeliveryFailed' : 'SecurityHubDeliveryFailed',
        metric: pollerMetric({
          name: MetricName.destinationAlertsFailed,
          statistic: 'Sum',
          period,
          dimensions: { destination: name },
        }),
        ...atLeastOnce,
        description:
          kind === 'eventBridge'
            ? 'Alerts could not be put on the EventBridge bus: retried next tick unless EventBridge refused them for good (the log says which). Check the bus name, its resource policy and the poller log group (or the audit log function’s).'
            : 'Alerts could not be imported into Security Hub: retried next tick unless Security Hub refused them for good (the log says which). Check that Security Hub is enabled in this account and region, and the poller log group (or the audit log function’s).',
      });
    }
    for (const slack of props.slack ?? []) {
      specs.push({
        id: `${slack.id}DeliveryFailed`,
        metric: slack.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        ...atLeastOnce,
        description:
          'Alerts could not be forwarded to the Slack topic and wait in the dead-letter queue; they still went to email. Check the pipe in the EventBridge console.',
      });
    }

    const deliveryPeriod = Duration.minutes(5);
    const topics = props.notificationTopics;
    specs.push(
      {
        id: 'AlertNotificationsFailed',
        metric: topics.alerts.metricNumberOfNotificationsFailed({ period: deliveryPeriod, statistic: 'Sum' }),
        ...atLeastOnce,
        description:
          "SNS could not deliver alerts to a subscription of the alert topic: an email address, the Slack queue, or an endpoint you subscribed. The stack's own subscriptions keep them in their dead-letter queues (see the *DeadLetters alarms); check the subscriptions of the AlertTopicArn output.",
      },
      {
        id: 'OperationsNotificationsFailed',
        metric: topics.operations.metricNumberOfNotificationsFailed({
          period: deliveryPeriod,
          statistic: 'Sum',
        }),
        ...atLeastOnce,
        description:
          'SNS could not deliver an alarm to a subscription of the operations topic: an address of operations.emails may be gone (the OperationsEmailDeadLetters queue holds what it missed). The alarms are in the CloudWatch console.',
      },
    );
    for (const slack of props.slack ?? []) {
      specs.push({
        id: `${slack.id}NotificationsFailed`,
        metric: slack.topic.metricNumberOfNotificationsFailed({ period: deliveryPeriod, statistic: 'Sum' }),
        ...atLeastOnce,
        description:
          'AWS Chatbot did not take alerts from the Slack topic, so they are not in the Slack channel; they still went to email. Check the Chatbot channel configuration (the workspace still authorised, the channel id, the AWS app invited to a private channel) and its log group in us-east-1.',
      });
    }
    for (const deadLetters of props.subscriptionDeadLetters) {
      specs.push({
        id: deadLetters.id,
        metric: deadLetters.queue.metricApproximateNumberOfMessagesVisible({
          period: deliveryPeriod,
          statistic: 'Maximum',
        }),
        ...atLeastOnce,
        description: deadLetters.description,
      });
    }

    for (const name of props.connections ?? []) {
      specs.push({
        id: `ConnectionSourceErrors${connectionIdPart(name)}`,
        metric: pollerMetric({
          name: MetricName.sourceErrors,
          statistic: 'Sum',
          period,
          dimensions: { connection: name },
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        description: `Sources of connection ${name} failed two schedule periods running: the tick summary in the poller's log group names each with its error code. Check that connection's secret (CREDENTIALS_SECRET_UNREADABLE, CREDENTIALS_SECRET_INVALID, CONNECTION_UNAVAILABLE), its key's roles and access list (401, 403), and its base URL.`,
      });
    }

    const action = new SnsAction(props.topic);
    this.alarms = specs.map((spec) => {
      const alarm = new Alarm(this, spec.id, {
        metric: spec.metric,
        threshold: spec.threshold,
        comparisonOperator: spec.comparisonOperator,
        evaluationPeriods: spec.evaluationPeriods,
        treatMissingData: spec.treatMissingData,
        alarmDescription: spec.description,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    });
  }
}
