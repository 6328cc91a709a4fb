import {
  ConfiguredSources,
  pollSourceBatch,
  type SourceQueue,
  type SqsBatchResponse,
  type SqsEvent,
} from '../../shared/fan-out/index.js';
import { effectiveConnections, PollConfigError, runTick } from '../../shared/poll/index.js';
import { refusedConnections } from '../poller/connection-clients.js';
import type { PollerInvocationContext } from '../poller/poller-handler.js';
import { createPollerRuntime, describeError, type PollerRuntimeOptions } from '../poller/poller-runtime.js';
import { tickLogAttributes } from '../poller/tick-log.js';

/** The worker's Lambda handler: one batch of source messages per invocation. */
export type WorkerHandler = (event: SqsEvent, context: PollerInvocationContext) => Promise<SqsBatchResponse>;

/** What {@link createWorkerHandler} builds from. */
export interface WorkerHandlerOptions extends PollerRuntimeOptions {
  /** Delays a rate-limited source's message: the SQS queue in Lambda, an in-memory one in tests. */
  queue: SourceQueue;
}

/**
 * Builds the fan-out worker: each invocation polls the sources its batch of queue messages names,
 * those of the deployed configuration only (see `ConfiguredSources`: a message naming any other
 * source is logged, counted in `UnconfiguredSourceMessages` and dropped, unpolled), each through
 * the connection its message names, with that connection's credentials (read from its secret when
 * first needed, kept per container), with the poller's own tick code (leases, cursors, windows,
 * rules, claims, publishing, metrics), and
 * answers which messages to deliver again (`ReportBatchItemFailures`, see `pollSourceBatch`): a
 * source whose lease another worker holds is acknowledged and skipped, a 429 hides its message for
 * `Retry-After`, a server or store failure is retried and ends in the dead-letter queue if it keeps
 * failing.
 *
 * A connection whose secret is unreadable fails its own sources (`CONNECTION_UNAVAILABLE`, delivered
 * again like a server error); the batch's other sources are polled as usual.
 * @example
 * ```ts
 * export const handler = createWorkerHandler({ ...runtimeOptions,
 *   queue: new SqsSourceQueue({ client: new SQSClient({}), queueUrl }) });
 * ```
 */
export function createWorkerHandler(options: WorkerHandlerOptions): WorkerHandler {
  const { config, metrics, queue } = options;
  const runtime = createPollerRuntime(options);
  const { clock, logger } = runtime;
  const connections = effectiveConnections(config);
  const byName = new Map(connections.map((connection) => [connection.name, connection]));
  const clientOf = (name: string) => {
    const connection = byName.get(name);
    if (connection === undefined) throw new PollConfigError(`connection "${name}" is not configured`);
    return runtime.connections.clientFor(connection);
  };

  return async (event, context) => {
    options.logger.addContext(context);
    const deadline = clock.now() + context.getRemainingTimeInMillis();
    try {
      const configured = new ConfiguredSources({
        connections,
        atlas: clientOf,
        cache: runtime.discoveryCache,
        clock,
      });
      // Checking a project of an organization polled whole may list its projects: never past the margin.
      const signal = AbortSignal.timeout(
        Math.max(1_000, deadline - clock.now() - config.timing.deadlineMarginSeconds * 1_000),
      );
      const result = await pollSourceBatch({
        event,
        queue,
        logger,
        standing: (message) => configured.standing(message, { signal }),
        poll: (sources, woken) =>
          runTick(
            {
              atlas: (connection) => runtime.connections.clientFor(connection),
              store: runtime.store,
              engine: runtime.engine,
              notifier: runtime.notifier,
              destinations: runtime.destinations,
              ...(runtime.digests === undefined ? {} : { digests: runtime.digests }),
              clock,
              logger,
              names: runtime.names,
              metrics: runtime.sink,
            },
            { config, owner: context.awsRequestId, deadline, sources, woken },
          ),
      });
      if (result.badMessages > 0) metrics.addMetric('BadSourceMessages', 'Count', result.badMessages);
      if (result.unconfigured > 0) {
        metrics.addMetric('UnconfiguredSourceMessages', 'Count', result.unconfigured);
      }
      if (result.delayed > 0) metrics.addMetric('SourcesDelayed', 'Count', result.delayed);
      if (result.summary !== undefined) {
        runtime.connections.invalidate(refusedConnections(result.summary, connections));
        await runtime.publishHealth(result.summary);
        logger.info('Poll tick summary', {
          ...tickLogAttributes(result.summary),
          messages: event.Records.length,
          redelivered: result.response.batchItemFailures.length,
        });
      }
      return result.response;
    } catch (error) {
      logger.error('The worker could not poll its batch', describeError(error));
      throw error;
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}
