import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type Dashboard,
  GraphWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../../shared/poll/metric-names.js';
import { pollerMetric } from './poller-metrics.js';

export interface FanOutMonitoringProps {
  queue: IQueue;
  deadLetterQueue: IQueue;
  worker: IFunction;
  /** Where the alarms (and their return to OK) go. */
  topic: ITopic;
  dashboard: Dashboard;
  schedulePeriod: Duration;
}

/**
 * The fan-out's alarms and dashboard row: the age of the oldest queued source (the workers are not
 * keeping up when it passes a schedule period), the dead-letter queue's depth (a source message failed
 * `maxReceiveCount` times), worker errors, and beside them the per-source lag every worker reports.
 */
export class FanOutMonitoring extends Construct {
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: FanOutMonitoringProps) {
    super(scope, id);
    const period = Duration.minutes(1);
    const oldest = props.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' });
    const deadLetters = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period,
      statistic: 'Maximum',
    });
    const workerErrors = props.worker.metricErrors({ period: props.schedulePeriod, statistic: 'Sum' });
    const specs = [
      {
        id: 'QueueBacklog',
        metric: oldest,
        threshold: props.schedulePeriod.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        description: `A source has waited in the fan-out queue more than ${props.schedulePeriod.toMinutes()} minutes (one schedule period): the workers are not keeping up. Raise fanOut.maxConcurrency or fanOut.maxConcurrencyPerOrg, or look for sources rate limited by Atlas on the dashboard.`,
      },
      {
        id: 'DeadLetters',
        metric: deadLetters,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        description:
          'A source message failed every delivery and is in the fan-out dead-letter queue: read the worker log group for the source and its error. Later ticks queue the source again; redrive or purge the dead-letter queue once fixed.',
      },
      {
        id: 'WorkerErrors',
        metric: workerErrors,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        description:
          'A fan-out worker invocation failed (an exception, a timeout or running out of memory): its whole batch comes back after the visibility timeout. Read the worker log group.',
      },
    ];
    const action = new SnsAction(props.topic);
    this.alarms = specs.map((spec) => {
      const alarm = new Alarm(this, spec.id, {
        metric: spec.metric,
        threshold: spec.threshold,
        comparisonOperator: spec.comparisonOperator,
        evaluationPeriods: spec.evaluationPeriods,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: spec.description,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    });

    props.dashboard.addWidgets(
      new GraphWidget({
        title: 'Fan-out queue',
        left: [oldest.with({ label: 'oldest source message (s)' })],
        right: [
          deadLetters.with({ label: 'dead letters' }),
          props.queue
            .metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' })
            .with({ label: 'queued sources' }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Fan-out workers',
        left: [
          pollerMetric({
            name: MetricName.oldestSourceLagSeconds,
            statistic: 'Maximum',
            period: props.schedulePeriod,
            label: 'per-source lag, oldest (s)',
          }),
        ],
        right: [
          props.worker.metricInvocations({ period, statistic: 'Sum' }).with({ label: 'invocations' }),
          props.worker.metricErrors({ period, statistic: 'Sum' }).with({ label: 'errors' }),
          props.worker.metricThrottles({ period, statistic: 'Sum' }).with({ label: 'throttles' }),
        ],
        width: 12,
      }),
    );
  }
}
