import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricNameValue, MetricsSink, MetricUnitName } from '../../shared/poll/index.js';

/**
 * The tick's metrics sink on Powertools Metrics (CloudWatch EMF on stdout). Metrics without extra
 * dimensions go into `metrics`' buffer, published with its other metrics by `publishStoredMetrics()`;
 * each one with dimensions (`severity`, `errorCode`) is published at once as its own metric set
 * (`singleMetric()`), so its dimensions never leak onto the other metrics.
 *
 * @example
 * ```ts
 * const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
 * emitTickMetrics({ summary, sink: powertoolsMetricsSink(metrics) });
 * metrics.publishStoredMetrics();
 * ```
 */
export function powertoolsMetricsSink(metrics: Metrics): MetricsSink {
  return {
    addMetric(
      name: MetricNameValue,
      unit: MetricUnitName,
      value: number,
      dimensions?: Readonly<Record<string, string>>,
    ): void {
      const entries = Object.entries(dimensions ?? {});
      if (entries.length === 0) {
        metrics.addMetric(name, MetricUnit[unit], value);
        return;
      }
      const single = metrics.singleMetric();
      for (const [dimension, dimensionValue] of entries) single.addDimension(dimension, dimensionValue);
      single.addMetric(name, MetricUnit[unit], value);
    },
  };
}
