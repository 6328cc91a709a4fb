import type { Duration } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type Metric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SEVERITIES } from '../../shared/notify/alert.js';
import { MetricName, type MetricNameValue } from '../../shared/poll/metric-names.js';
import { pollerMetric } from './poller-metrics.js';

export interface OperationsDashboardProps {
  poller: IFunction;
  /** How often the poller runs: the period every graph is drawn in. */
  schedulePeriod: Duration;
  alarms: readonly IAlarm[];
}

/**
 * The CloudWatch dashboard of one deployment: events read and new, alerts by severity, watermark lag,
 * Atlas requests and 429s, tick duration, the Lambda's own health, and the state of every alarm.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const period = props.schedulePeriod;
    const sum = (name: MetricNameValue, label: string): Metric =>
      pollerMetric({ name, statistic: 'Sum', period, label });

    const dashboard = new Dashboard(this, 'Dashboard');
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 3 }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Events',
        left: [sum(MetricName.eventsFetched, 'fetched'), sum(MetricName.eventsNew, 'new')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Alerts by severity',
        left: [
          ...SEVERITIES.map((severity) =>
            pollerMetric({
              name: MetricName.alertsPublished,
              statistic: 'Sum',
              period,
              dimensions: { severity },
              label: severity,
            }),
          ),
          sum(MetricName.alertsFailed, 'failed'),
        ],
        stacked: true,
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Watermark lag (seconds)',
        left: [
          pollerMetric({
            name: MetricName.oldestSourceLagSeconds,
            statistic: 'Maximum',
            period,
            label: 'oldest source',
          }),
          pollerMetric({
            name: MetricName.watermarkLagSeconds,
            statistic: 'Maximum',
            period,
            label: 'oldest source polled',
          }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Atlas requests',
        left: [sum(MetricName.atlasRequests, 'requests')],
        right: [
          sum(MetricName.atlasRateLimited, '429 rate limited'),
          sum(MetricName.atlasAuthFailures, '401/403 refused'),
          sum(MetricName.sourceErrors, 'failed sources'),
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Tick duration (ms)',
        left: [
          pollerMetric({ name: MetricName.tickDurationMs, statistic: 'Average', period, label: 'average' }),
          pollerMetric({ name: MetricName.tickDurationMs, statistic: 'Maximum', period, label: 'maximum' }),
        ],
        right: [sum(MetricName.tickCompleted, 'ticks completed')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Poller Lambda',
        left: [
          props.poller.metricInvocations({ period, statistic: 'Sum', label: 'invocations' }),
          props.poller.metricErrors({ period, statistic: 'Sum', label: 'errors' }),
          props.poller.metricThrottles({ period, statistic: 'Sum', label: 'throttles' }),
        ],
        right: [props.poller.metricDuration({ period, statistic: 'Maximum', label: 'duration (max)' })],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Rule errors',
        left: [
          sum(MetricName.ruleErrors, 'rule evaluations failed'),
          sum(MetricName.firstSeenStateErrors, 'first-seen records not kept'),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Clock skew against Atlas (seconds, positive: the poller ahead)',
        left: [
          pollerMetric({
            name: MetricName.atlasClockSkewSeconds,
            statistic: 'Maximum',
            period,
            label: 'maximum',
          }),
          pollerMetric({
            name: MetricName.atlasClockSkewSeconds,
            statistic: 'Minimum',
            period,
            label: 'minimum',
          }),
        ],
        width: 12,
      }),
    );
    this.dashboard = dashboard;
  }
}
