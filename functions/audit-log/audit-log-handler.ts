import type { AuditLogRuntimeConfig } from '../../shared/audit-log/audit-log-runtime.js';
import {
  type AuditLogExport,
  type AuditObjectOutcome,
  type AuditObjectStore,
  processAuditObject,
  readS3Notification,
} from '../../shared/audit-log/index.js';
import type { SqsBatchResponse, SqsEvent, SqsRecord } from '../../shared/fan-out/index.js';
import type { Logger } from '../../shared/logger.js';
import { severityTotal } from '../../shared/notify/alert.js';
import { addAlertCounts, addDestinationCounts, emptyAlertCounts } from '../../shared/poll/alert-delivery.js';
import { AlertDescriber } from '../../shared/poll/alert-describer.js';
import {
  DEFAULT_CONNECTION,
  type EffectiveConnection,
  effectiveConnections,
  emitAlertMetrics,
  MetricName,
  type MetricsSink,
} from '../../shared/poll/index.js';
import type { AlertCounts } from '../../shared/poll/tick-types.js';
import { PollerConfigError } from '../poller/errors.js';
import type { PollerInvocationContext } from '../poller/poller-handler.js';
import { createPollerRuntime, describeError, type PollerRuntimeOptions } from '../poller/poller-runtime.js';
import { powertoolsMetricsSink } from '../poller/powertools-metrics-sink.js';

/** The audit log function's Lambda handler: one batch of S3 notifications per invocation. */
export type AuditLogHandler = (
  event: SqsEvent,
  context: PollerInvocationContext,
) => Promise<SqsBatchResponse>;

/** How long an alert's claim holds before another invocation may take it over, as the poll's. */
export const AUDIT_LOG_CLAIM_MS = 5 * 60_000;

/** What {@link createAuditLogHandler} builds from: the poller's runtime options and the buckets read. */
export interface AuditLogHandlerOptions extends PollerRuntimeOptions {
  auditLog: AuditLogRuntimeConfig;
  /** Where objects are read: `S3ObjectStore` in Lambda. */
  objects: AuditObjectStore;
}

/** What one invocation read, summed over its objects: the counts it logs beside its alerts'. */
interface BatchCounts {
  messages: number;
  objects: number;
  skipped: number;
  failed: number;
  lines: number;
  events: number;
  malformed: number;
  overlong: number;
}

/** What one invocation delivered, summed over its objects, as a tick sums it: its alert metrics. */
interface BatchDelivery {
  alerts: AlertCounts;
  /** Per destination beside the topic (`eventbridge`, `securityhub`). */
  destinations: Record<string, AlertCounts>;
}

/**
 * Builds the audit log function: each SQS message is an S3 event notification for new objects in a
 * bucket that receives Atlas's audit log export. Each object is streamed through the rules with the
 * poller's own runtime (the rule pack, the state store, the notifier and destinations, the claims), by
 * `processAuditObject`, with the project and the connection its bucket and key name; the connection's
 * credentials name the project in its alerts. A message is deleted once each of its objects is settled
 * or skipped; a message with an object that failed or is not settled yet (a read failed, a destination
 * failed, time ran out) is answered as a batch item failure, so SQS delivers it again and, after its
 * receives, moves it to the dead-letter queue. A redelivered message or a duplicated object sends no
 * alert twice: the lines keep their ids and the alerts their claims.
 *
 * S3's test event (sent when the notification is set up) is acknowledged; a message that is not an S3
 * notification, or names a bucket this deployment does not read, is logged and dropped, since reading
 * it again would not change it. Logs counts (lines, malformed, alerts), never the lines themselves,
 * and emits them as the metrics the stack's alarms and dashboard read: the alerts published and
 * failed, as the poll's (so the `AlertsFailed` and destination alarms cover audit logs too), and the
 * lines, malformed lines and objects not settled (`AuditLog*`).
 *
 * @example
 * ```ts
 * export const handler = createAuditLogHandler({ ...runtimeOptions, auditLog,
 *   objects: new S3ObjectStore(new S3Client({})) });
 * ```
 */
export function createAuditLogHandler(options: AuditLogHandlerOptions): AuditLogHandler {
  const { config, auditLog, objects } = options;
  const runtime = createPollerRuntime(options);
  const { clock, logger } = runtime;
  const sink = powertoolsMetricsSink(options.metrics);
  const connections = new Map(
    effectiveConnections(config).map((connection) => [connection.name, connection]),
  );
  const buckets = new Map(
    auditLog.buckets.map((bucket) => [
      bucket.bucket,
      {
        connection: bucket.connection,
        exports: bucket.exports.map(
          (entry): AuditLogExport => ({
            ...entry,
            ...(bucket.connection === DEFAULT_CONNECTION ? {} : { connection: bucket.connection }),
          }),
        ),
      },
    ]),
  );

  return async (event, context) => {
    options.logger.addContext(context);
    const deadline = clock.now() + context.getRemainingTimeInMillis();
    const margin = config.timing.deadlineMarginSeconds * 1_000;
    const signal = AbortSignal.timeout(Math.max(1_000, deadline - clock.now() - margin));
    const describers = new Map<string, Promise<AlertDescriber>>();
    const describerFor = (name: string): Promise<AlertDescriber> => {
      let describer = describers.get(name);
      if (describer === undefined) {
        describer = describerOf(connections.get(name), name);
        describers.set(name, describer);
        // A connection whose secret cannot be read now may be readable on the next message.
        describer.catch(() => describers.delete(name));
      }
      return describer;
    };
    const describerOf = async (
      connection: EffectiveConnection | undefined,
      name: string,
    ): Promise<AlertDescriber> => {
      if (connection === undefined) {
        throw new PollerConfigError(
          `connection "${name}" of an audit log bucket is not in the poller's settings: deploy the stack again`,
        );
      }
      const atlas = await runtime.connections.clientFor(connection);
      return new AlertDescriber({ atlas, store: runtime.store, names: runtime.names, clock, logger, signal });
    };

    const counts: BatchCounts = {
      messages: event.Records.length,
      objects: 0,
      skipped: 0,
      failed: 0,
      lines: 0,
      events: 0,
      malformed: 0,
      overlong: 0,
    };
    const delivery: BatchDelivery = { alerts: emptyAlertCounts(), destinations: {} };
    const failures: SqsBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      // Past the margin, the rest of the batch comes back later rather than being cut short.
      const settled = signal.aborted
        ? false
        : await readRecord(record, {
            buckets,
            describerFor,
            objects,
            signal,
            logger,
            counts,
            delivery,
            runtime,
          });
      if (!settled) failures.push({ itemIdentifier: record.messageId });
    }
    logger.info('Audit log batch read', {
      ...counts,
      alerts: severityTotal(delivery.alerts.published),
      alertsFailed: severityTotal(delivery.alerts.failed),
      alreadySent: delivery.alerts.alreadySent,
      redelivered: failures.length,
    });
    emitAuditLogMetrics(counts, delivery, sink);
    if (options.metrics.hasStoredMetrics()) options.metrics.publishStoredMetrics();
    return { batchItemFailures: failures };
  };
}

/** Reads the objects one message names; whether the message may be deleted. Never throws. */
async function readRecord(
  record: SqsRecord,
  context: {
    buckets: Map<string, { connection: string; exports: AuditLogExport[] }>;
    describerFor: (connection: string) => Promise<AlertDescriber>;
    objects: AuditObjectStore;
    signal: AbortSignal;
    logger: Logger;
    counts: BatchCounts;
    delivery: BatchDelivery;
    runtime: ReturnType<typeof createPollerRuntime>;
  },
): Promise<boolean> {
  const { logger, counts, delivery, runtime } = context;
  const notification = readS3Notification(record.body);
  if (notification.kind === 'test') return true;
  if (notification.kind === 'unreadable') {
    logger.warn('A message on the audit log queue is not an S3 notification: dropped', {
      messageId: record.messageId,
      reason: notification.reason,
    });
    return true;
  }
  let settled = true;
  for (const { bucket, key } of notification.objects) {
    const target = context.buckets.get(bucket);
    if (target === undefined) {
      logger.warn('An S3 notification names a bucket this deployment does not read: skipped', {
        messageId: record.messageId,
        bucket,
      });
      counts.skipped += 1;
      continue;
    }
    let outcome: AuditObjectOutcome;
    try {
      const describer = await context.describerFor(target.connection);
      outcome = await processAuditObject(
        {
          store: runtime.store,
          engine: runtime.engine,
          notifier: runtime.notifier,
          destinations: runtime.destinations,
          describer,
          claimMs: AUDIT_LOG_CLAIM_MS,
          signal: context.signal,
          logger,
          exports: target.exports,
        },
        { bucket, key, open: () => context.objects.read(bucket, key, context.signal) },
      );
    } catch (error) {
      logger.error('The connection of an audit log bucket is unavailable: the message comes back', {
        bucket,
        connection: target.connection,
        ...describeError(error),
      });
      counts.failed += 1;
      settled = false;
      continue;
    }
    tally(counts, delivery, outcome);
    if (outcome.status === 'failed' || outcome.status === 'unsettled') {
      logger.warn('An audit log object is not settled: the message comes back', {
        bucket,
        key,
        status: outcome.status,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      });
      settled = false;
    }
  }
  return settled;
}

function tally(counts: BatchCounts, delivery: BatchDelivery, outcome: AuditObjectOutcome): void {
  if (outcome.status === 'skipped') {
    counts.skipped += 1;
    return;
  }
  counts.objects += 1;
  if (outcome.status === 'failed' || outcome.status === 'unsettled') counts.failed += 1;
  counts.lines += outcome.counts.lines;
  counts.events += outcome.counts.events;
  counts.malformed += outcome.counts.malformed;
  counts.overlong += outcome.counts.overlong;
  addAlertCounts(delivery.alerts, outcome.alerts);
  addDestinationCounts(delivery.destinations, outcome.destinations);
}

/**
 * One invocation's metrics: the alert metrics as a tick writes them (`emitAlertMetrics`), so the
 * dashboard's alerts and the delivery alarms take the audit log's alerts with the poll's; and
 * `AuditLogLines`, `AuditLogMalformedLines` (malformed and overlong) and `AuditLogObjectsFailed`.
 */
function emitAuditLogMetrics(counts: BatchCounts, delivery: BatchDelivery, sink: MetricsSink): void {
  emitAlertMetrics({ ...delivery, sink });
  sink.addMetric(MetricName.auditLogLines, 'Count', counts.lines);
  sink.addMetric(MetricName.auditLogMalformedLines, 'Count', counts.malformed + counts.overlong);
  sink.addMetric(MetricName.auditLogObjectsFailed, 'Count', counts.failed);
}
