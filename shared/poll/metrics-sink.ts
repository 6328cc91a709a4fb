import { SEVERITIES, severityTotal } from '../notify/alert.js';
import { DEFAULT_CONNECTION } from './connections.js';
import { MetricName, type MetricNameValue } from './metric-names.js';
import { lagSeconds, sourceFailure } from './tick-summary.js';
import type { AlertCounts, TickSummary } from './tick-types.js';

/** Units the tick's metrics use, spelled as CloudWatch (and Powertools' `MetricUnit`) spell them. */
export type MetricUnitName = 'Count' | 'Seconds' | 'Milliseconds';

/**
 * Where a tick's metrics go. The Lambda maps it onto Powertools Metrics (EMF), each call with extra
 * `dimensions` as its own metric set (`singleMetric()`), so `shared/` never imports Powertools; the CLI
 * may print them or drop them.
 */
export interface MetricsSink {
  /**
   * Records one value. `dimensions` are on top of the `service` dimension every metric carries:
   * `severity` for `AlertsPublished`, `errorCode` for `SourceErrors`.
   */
  addMetric(
    name: MetricNameValue,
    unit: MetricUnitName,
    value: number,
    dimensions?: Readonly<Record<string, string>>,
  ): void;
}

/**
 * Writes what a delivery did as the alert metrics: `AlertsPublished` per severity (only severities
 * with alerts) and in all, `AlertsFailed`, and per destination beside the topic
 * `DestinationAlertsPublished` and `DestinationAlertsFailed` (dimension `destination`). A tick and the
 * audit log function both write them, so the alarms and the dashboard read every alert alike.
 *
 * @example
 * ```ts
 * emitAlertMetrics({ alerts: totals.alerts, destinations: totals.destinations, sink });
 * ```
 */
export function emitAlertMetrics(options: {
  alerts: AlertCounts;
  destinations: Readonly<Record<string, AlertCounts>>;
  sink: MetricsSink;
}): void {
  const { alerts, destinations, sink } = options;
  for (const severity of SEVERITIES) {
    const count = alerts.published[severity];
    if (count > 0) sink.addMetric(MetricName.alertsPublished, 'Count', count, { severity });
  }
  sink.addMetric(MetricName.alertsPublished, 'Count', severityTotal(alerts.published));
  sink.addMetric(MetricName.alertsFailed, 'Count', severityTotal(alerts.failed));
  for (const [destination, counts] of Object.entries(destinations)) {
    const dimensions = { destination };
    sink.addMetric(
      MetricName.destinationAlertsPublished,
      'Count',
      severityTotal(counts.published),
      dimensions,
    );
    sink.addMetric(MetricName.destinationAlertsFailed, 'Count', severityTotal(counts.failed), dimensions);
  }
}

/**
 * Writes a tick's summary as the metrics the stack's alarms and dashboard read (see
 * `metric-names.ts`): counts summed over sources, `AlertsPublished` per severity (only severities
 * with alerts), `SourceErrors` in all and per error code, the watermark lag and the oldest source's
 * lag when some source had a watermark, Atlas's clock skew once known, the duration, and `TickCompleted` = 1 only on a completed tick (the heartbeat).
 *
 * @example
 * ```ts
 * const summary = await runTick(deps, options);
 * emitTickMetrics({ summary, sink: { addMetric: (name, unit, value, dims) => ... } });
 * ```
 */
export function emitTickMetrics(options: { summary: TickSummary; sink: MetricsSink }): void {
  const { summary, sink } = options;
  const { totals } = summary;
  sink.addMetric(MetricName.eventsFetched, 'Count', totals.eventsFetched);
  sink.addMetric(MetricName.eventsNew, 'Count', totals.eventsNew);
  sink.addMetric(MetricName.ruleErrors, 'Count', totals.ruleErrors);
  sink.addMetric(MetricName.firstSeenStateErrors, 'Count', totals.firstSeenStateErrors);
  emitAlertMetrics({ alerts: totals.alerts, destinations: totals.destinations, sink });
  if (summary.digests !== undefined) {
    sink.addMetric(MetricName.digestsSent, 'Count', summary.digests.sent);
    sink.addMetric(MetricName.digestsFailed, 'Count', summary.digests.failed);
  }
  sink.addMetric(MetricName.atlasRequests, 'Count', totals.atlasRequests);
  sink.addMetric(MetricName.atlasRateLimited, 'Count', totals.atlasRateLimited);
  sink.addMetric(MetricName.atlasAuthFailures, 'Count', totals.atlasAuthFailures);
  sink.addMetric(MetricName.sourceErrors, 'Count', totals.sourceErrors);
  for (const [errorCode, count] of Object.entries(totals.errorsByCode)) {
    sink.addMetric(MetricName.sourceErrors, 'Count', count, { errorCode });
  }
  if (totals.watermarkLagSeconds !== undefined) {
    sink.addMetric(MetricName.watermarkLagSeconds, 'Seconds', totals.watermarkLagSeconds);
  }
  if (totals.oldestSourceLagSeconds !== undefined) {
    sink.addMetric(MetricName.oldestSourceLagSeconds, 'Seconds', totals.oldestSourceLagSeconds);
  }
  if (totals.atlasClockSkewSeconds !== undefined) {
    sink.addMetric(MetricName.atlasClockSkewSeconds, 'Seconds', totals.atlasClockSkewSeconds);
  }
  sink.addMetric(MetricName.tickDurationMs, 'Milliseconds', summary.durationMs);
  if (summary.completed) sink.addMetric(MetricName.tickCompleted, 'Count', 1);
  for (const [connection, figures] of connectionFigures(summary)) {
    const dimensions = { connection };
    sink.addMetric(MetricName.eventsNew, 'Count', figures.eventsNew, dimensions);
    sink.addMetric(MetricName.alertsPublished, 'Count', figures.alertsPublished, dimensions);
    sink.addMetric(MetricName.sourceErrors, 'Count', figures.sourceErrors, dimensions);
    sink.addMetric(MetricName.atlasAuthFailures, 'Count', figures.atlasAuthFailures, dimensions);
    if (figures.watermarkLagSeconds !== undefined) {
      sink.addMetric(MetricName.watermarkLagSeconds, 'Seconds', figures.watermarkLagSeconds, dimensions);
    }
  }
}

/** What a tick did through one connection, for its metrics. */
interface ConnectionFigures {
  eventsNew: number;
  alertsPublished: number;
  /** Failed sources, and inventories of sources that did not fail otherwise: as `SourceErrors`. */
  sourceErrors: number;
  /** Of those, the ones Atlas refused with 401 or 403. */
  atlasAuthFailures: number;
  /** Now minus the oldest watermark the tick read among the connection's sources, in seconds. */
  watermarkLagSeconds: number | undefined;
}

/**
 * The figures of each connection of a tick that polled more than the connection `default` (a
 * deployment of one connection gets no extra metric: each dimension value is a metric CloudWatch
 * bills). By connection name, `default` included.
 */
function connectionFigures(summary: TickSummary): Map<string, ConnectionFigures> {
  const figures = new Map<string, ConnectionFigures>();
  if (summary.sources.every((source) => source.connection === undefined)) return figures;
  const oldest = new Map<string, number>();
  for (const source of summary.sources) {
    const name = source.connection ?? DEFAULT_CONNECTION;
    let entry = figures.get(name);
    if (entry === undefined) {
      entry = {
        eventsNew: 0,
        alertsPublished: 0,
        sourceErrors: 0,
        atlasAuthFailures: 0,
        watermarkLagSeconds: undefined,
      };
      figures.set(name, entry);
    }
    entry.eventsNew += source.eventsNew;
    for (const severity of SEVERITIES) entry.alertsPublished += source.alerts.published[severity];
    const failure = sourceFailure(source);
    if (failure !== undefined) {
      entry.sourceErrors += 1;
      if (failure.httpStatus === 401 || failure.httpStatus === 403) entry.atlasAuthFailures += 1;
    }
    if (source.watermark !== undefined && source.watermark < (oldest.get(name) ?? Number.POSITIVE_INFINITY)) {
      oldest.set(name, source.watermark);
    }
  }
  for (const [name, watermark] of oldest) {
    const entry = figures.get(name);
    if (entry !== undefined) entry.watermarkLagSeconds = lagSeconds(summary.finishedAt, watermark);
  }
  return figures;
}
