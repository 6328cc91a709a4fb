import {
  type FanOutRuntimeConfig,
  queuedSources,
  type SourceQueue,
  tickIdentity,
} from '../../shared/fan-out/index.js';
import {
  effectiveConnections,
  listTickSources,
  MetricName,
  orderSources,
  runTick,
  type TickSummary,
} from '../../shared/poll/index.js';
import { refusedConnections } from '../poller/connection-clients.js';
import type { PollerInvocationContext } from '../poller/poller-handler.js';
import { createPollerRuntime, describeError, type PollerRuntimeOptions } from '../poller/poller-runtime.js';
import { reachConnections } from '../poller/reach-connections.js';
import { tickLogAttributes } from '../poller/tick-log.js';

/** What one dispatch did. */
export interface DispatchSummary {
  /** `fanned-out`: one message per source was sent; `polled`: few enough sources to poll here. */
  mode: 'fanned-out' | 'polled';
  /** Sources of the tick, discovery included. */
  sources: number;
  /** Messages the queue accepted. */
  sent: number;
  /** Messages the queue refused after a retry: those sources wait for the next tick. */
  failed: number;
  /** Organizations whose project listing failed (their last list was used). */
  discoveryFailures: number;
  /**
   * Connections whose credentials could not be had: their sources were not queued (each counts in
   * `SourceErrors` with its `connection` dimension), and the others' were.
   */
  unavailableConnections: string[];
  /**
   * The tick this invocation belongs to, ISO-8601 UTC: the scheduled time (`tickFrom: schedule`) or the
   * dispatcher's start (`tickFrom: start`, an invoke by hand), rounded down to the schedule period.
   * Its messages are named by it.
   */
  tickAt: string;
  tickFrom: 'schedule' | 'start';
  /** The tick's summary, when the dispatcher polled the sources itself. */
  tick?: TickSummary;
}

/** The dispatcher's Lambda handler: one dispatch per scheduled invocation (`{"scheduledTime": …}`). */
export type DispatcherHandler = (
  event: unknown,
  context: PollerInvocationContext,
) => Promise<DispatchSummary>;

/** What {@link createDispatcherHandler} builds from. */
export interface DispatcherHandlerOptions extends PollerRuntimeOptions {
  fanOut: FanOutRuntimeConfig;
  /** The SQS queue in Lambda (`SqsSourceQueue`), an in-memory one in tests. */
  queue: SourceQueue;
}

/**
 * Builds the fan-out dispatcher: each scheduled invocation resolves the tick's sources as the poller
 * does (project discovery included, cached per container) and sends one FIFO message per source
 * (ids and the tick time only, never a credential), those that waited longest first (the single
 * poller's order, `orderSources`: one batched read of the table per 100 sources), grouped so that at most `maxConcurrencyPerOrg`
 * workers poll one organization at once. In `automatic` mode, a tick with at most
 * `automaticAboveSources` sources is polled here instead, exactly as the single poller does, and so is
 * a tick with no source at all (a deployment with `sources.allowNone`), which completes at once. Metrics:
 * `SourcesDispatched` and `DispatchFailures`.
 *
 * Each connection's sources are listed with its own credentials, and its messages name it, so a
 * worker polls them with the same; an organization's message groups are its connection's, so
 * `maxConcurrencyPerOrg` holds per connection and organization. A connection whose secret cannot be
 * read is left out of the tick (its sources count in `SourceErrors` with their `connection`
 * dimension, as the single poller's do) and the others' sources are queued.
 *
 * The tick is named by the schedule's time in the input (`scheduledTime`, which the stack's schedule
 * sets), or by the start of a manual invoke, rounded down to the schedule period (`tickIdentity`): a
 * second invocation of one tick (a duplicate delivery, a retry, an invoke by hand) sends messages with
 * the deduplication ids of the first, which the FIFO queue drops.
 *
 * @throws {CredentialsSecretError} when no connection's secret is readable (discovery needs Atlas);
 *   a refused message never throws: the summary counts it and the log names its source.
 * @example
 * ```ts
 * export const handler = createDispatcherHandler({ ...runtimeOptions, fanOut: readFanOutConfig({ env }),
 *   queue: new SqsSourceQueue({ client: new SQSClient({}), queueUrl }) });
 * ```
 */
export function createDispatcherHandler(options: DispatcherHandlerOptions): DispatcherHandler {
  const { config, fanOut, queue, metrics } = options;
  const runtime = createPollerRuntime(options);
  const { clock, logger } = runtime;
  const connections = effectiveConnections(config);

  return async (event, context) => {
    options.logger.addContext(context);
    const startedAt = clock.now();
    const deadline = startedAt + context.getRemainingTimeInMillis();
    const identity = tickIdentity({ event, startedAt, periodSeconds: fanOut.schedulePeriodSeconds });
    const named = { tickAt: new Date(identity.tickAt).toISOString(), tickFrom: identity.from };
    try {
      const atlas = await reachConnections(connections, runtime.connections, logger);
      const { sources, discovery, unavailable } = await listTickSources({
        atlas,
        config,
        discoveryCache: runtime.discoveryCache,
        names: runtime.names,
        clock,
        logger,
        deadline,
      });
      const discoveryFailures = discovery.filter((outcome) => outcome.status === 'failed').length;
      const unavailableConnections = unavailable.map((connection) => connection.connection);
      // No source at all (sources.allowNone) is a tick with nothing to queue: run it here, so that it
      // completes (the heartbeat) as the single poller's does, or fails as that one's does.
      const pollHere =
        sources.length === 0 ||
        (fanOut.mode === 'automatic' && sources.length <= fanOut.automaticAboveSources);
      if (pollHere) {
        const tick = await runTick(
          {
            atlas,
            store: runtime.store,
            engine: runtime.engine,
            notifier: runtime.notifier,
            destinations: runtime.destinations,
            ...(runtime.digests === undefined ? {} : { digests: runtime.digests }),
            clock,
            logger,
            discoveryCache: runtime.discoveryCache,
            names: runtime.names,
            metrics: runtime.sink,
          },
          { config, owner: context.awsRequestId, deadline },
        );
        runtime.connections.invalidate(refusedConnections(tick, connections));
        await runtime.publishHealth(tick);
        logger.info('Poll tick summary', tickLogAttributes(tick));
        return {
          mode: 'polled',
          sources: sources.length,
          sent: 0,
          failed: 0,
          discoveryFailures,
          unavailableConnections,
          ...named,
          tick,
        };
      }
      // The single poller's fair order: a tick the workers do not finish (a backlog, a deadline)
      // leaves its last sources first in the next one, so the same sources are never starved.
      const order = await orderSources({ store: runtime.store, sources, concurrency: 1, logger });
      const report = await queue.send(
        queuedSources({
          sources: order.sources,
          tickAt: identity.tickAt,
          maxConcurrencyPerOrg: fanOut.maxConcurrencyPerOrg,
        }),
      );
      metrics.addMetric('SourcesDispatched', 'Count', report.sent);
      metrics.addMetric('DispatchFailures', 'Count', report.failed.length);
      // listTickSources logged each, with its error; the single poller counts their sources so too.
      for (const connection of unavailable) {
        runtime.sink.addMetric(MetricName.sourceErrors, 'Count', connection.sources.length, {
          connection: connection.connection,
        });
      }
      const summary: DispatchSummary = {
        mode: 'fanned-out',
        sources: sources.length,
        sent: report.sent,
        failed: report.failed.length,
        discoveryFailures,
        unavailableConnections,
        ...named,
      };
      if (report.failed.length > 0) {
        logger.warn('Sources not queued: they are polled from the next tick', {
          ...summary,
          refused: report.failed.slice(0, 50),
        });
      } else logger.info('Sources dispatched', { ...summary });
      return summary;
    } catch (error) {
      logger.error('The dispatch could not run', describeError(error));
      throw error;
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}
