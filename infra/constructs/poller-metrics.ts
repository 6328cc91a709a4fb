import type { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, METRICS_SERVICE, type MetricNameValue } from '../../shared/poll/metric-names.js';

export interface PollerMetricOptions {
  name: MetricNameValue;
  statistic: string;
  period: Duration;
  /** Dimensions beyond `service`, such as `{ severity: 'high' }`. */
  dimensions?: Record<string, string>;
  label?: string;
}

/**
 * One of the metrics the poller emits, with the namespace and `service` dimension it writes them under:
 * the alarms and the dashboard read metrics only through here, so they match what the poller emits.
 *
 * @example
 * ```ts
 * pollerMetric({ name: MetricName.tickCompleted, statistic: 'Sum', period: Duration.minutes(5) });
 * ```
 */
export function pollerMetric({ name, statistic, period, dimensions, label }: PollerMetricOptions): Metric {
  const options: MetricOptions = {
    statistic,
    period,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    ...(label === undefined ? {} : { label }),
  };
  return new Metric({ namespace: METRICS_NAMESPACE, metricName: name, ...options });
}
