import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { powertoolsMetricsSink } from '../../functions/poller/powertools-metrics-sink.js';
import { METRICS_NAMESPACE, METRICS_SERVICE, MetricName } from '../../shared/poll/index.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

interface EmfSet {
  _aws: {
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [key: string]: unknown;
}

describe('powertoolsMetricsSink', () => {
  let output: OutputCapture;

  beforeEach(() => {
    output = captureOutput();
  });

  afterEach(() => {
    output.restore();
  });

  it('buffers plain metrics into one EMF set with the service dimension', () => {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
    const sink = powertoolsMetricsSink(metrics);

    sink.addMetric(MetricName.eventsFetched, 'Count', 12);
    sink.addMetric(MetricName.tickDurationMs, 'Milliseconds', 840);
    sink.addMetric(MetricName.watermarkLagSeconds, 'Seconds', 95);
    const beforeFlush = output.lines().length;
    metrics.publishStoredMetrics();

    const [set] = output.lines() as unknown as EmfSet[];
    expect(beforeFlush).toBe(0);
    expect(set?._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'AtlasAuditAlerts',
      Dimensions: [['service']],
      Metrics: [
        { Name: 'EventsFetched', Unit: 'Count' },
        { Name: 'TickDurationMs', Unit: 'Milliseconds' },
        { Name: 'WatermarkLagSeconds', Unit: 'Seconds' },
      ],
    });
    expect(set).toMatchObject({
      service: 'atlas-audit-alerts',
      EventsFetched: 12,
      TickDurationMs: 840,
      WatermarkLagSeconds: 95,
    });
  });

  it('publishes a metric with dimensions at once as its own set, leaving the buffer without them', () => {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
    const sink = powertoolsMetricsSink(metrics);

    sink.addMetric(MetricName.alertsPublished, 'Count', 3, { severity: 'high' });
    sink.addMetric(MetricName.alertsPublished, 'Count', 5);
    metrics.publishStoredMetrics();

    const [single, buffered] = output.lines() as unknown as EmfSet[];
    expect(single?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'severity']]);
    expect(single).toMatchObject({ service: 'atlas-audit-alerts', severity: 'high', AlertsPublished: 3 });
    expect(buffered?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service']]);
    expect(buffered).toMatchObject({ AlertsPublished: 5 });
    expect(buffered).not.toHaveProperty('severity');
  });
});
