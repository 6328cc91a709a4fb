import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecurityHubClient } from '@aws-sdk/client-securityhub';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { Clock } from '../../shared/clock.js';
import { effectiveConnections, runTick, type TickSummary } from '../../shared/poll/index.js';
import type { RulePack } from '../../shared/rules/index.js';
import { refusedConnections } from './connection-clients.js';
import type { LambdaPollerConfig } from './lambda-config.js';
import { createPollerRuntime, describeError } from './poller-runtime.js';
import { reachConnections } from './reach-connections.js';
import { tickLogAttributes } from './tick-log.js';

/** What the poller reads of the Lambda context object. */
export interface PollerInvocationContext {
  awsRequestId: string;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  getRemainingTimeInMillis(): number;
}

/** The poller's Lambda handler: one poll tick per invocation, whatever the event. */
export type PollerHandler = (event: unknown, context: PollerInvocationContext) => Promise<TickSummary>;

/** What {@link createPollerHandler} builds the poller from: created once per container. */
export interface PollerHandlerOptions {
  config: LambdaPollerConfig;
  /** The validated rules (in the Lambda, `loadBundledRulePack()`). */
  pack: RulePack;
  dynamoDb: DynamoDBClient;
  sns: SNSClient;
  /** Needed when a route sends to EventBridge (see `destinationClients`). */
  eventBridge?: EventBridgeClient | undefined;
  /** Needed when a route sends to Security Hub (see `destinationClients`). */
  securityHub?: SecurityHubClient | undefined;
  /**
   * Reads each connection's credentials secret (`config.secretArn`, `config.connections[].secretArn`),
   * every few minutes (see `SecretsManagerCredentials`).
   */
  secretsManager: SecretsManagerClient;
  logger: PowertoolsLogger;
  metrics: Metrics;
  /** Default: the system clock. */
  clock?: Clock;
}

/**
 * Builds the poller's handler and everything it keeps between invocations: the state store on the
 * DynamoDB table, the rule engine over it (it remembers suppressions), the SNS notifier, each
 * connection's Atlas client (rebuilt only when its credentials change) and the project discovery cache.
 *
 * Each invocation takes its deadline from `context.getRemainingTimeInMillis()` and its lease owner from
 * the request id, reads every connection's credentials (cached), runs one tick over all of them,
 * publishes the tick's metrics (Powertools EMF) and logs one structured line of the summary, which it
 * returns. A connection whose secret cannot be read, or holds no credentials, fails its own sources
 * (with the error's code) and the others are polled and their alerts delivered. After Atlas refused a
 * connection's credentials its secret is read again on the next invocation, so a rotated key is
 * picked up at once.
 *
 * @throws {CredentialsSecretError} (from the handler) when no connection's secret can be read or holds
 *   credentials (the first connection's error); `AtlasConfigError` when the base URL of every
 *   connection is unusable; `PollConfigError` when no source is configured. Each message says what to
 *   fix. A failing connection, source, publish or Atlas call never throws: the summary reports it.
 * @example
 * ```ts
 * export const handler = createPollerHandler({
 *   config: readLambdaConfig({ env: process.env }),
 *   pack: loadBundledRulePack(),
 *   dynamoDb: new DynamoDBClient({}),
 *   sns: new SNSClient({}),
 *   secretsManager: new SecretsManagerClient({}),
 *   logger: new Logger({ serviceName: METRICS_SERVICE }),
 *   metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
 * });
 * ```
 */
export function createPollerHandler(options: PollerHandlerOptions): PollerHandler {
  const { config, metrics } = options;
  const {
    clock,
    logger,
    store,
    engine,
    notifier,
    destinations,
    digests,
    publishHealth,
    connections,
    discoveryCache,
    names,
    sink,
  } = createPollerRuntime(options);
  const polled = effectiveConnections(config);

  return async (_event, context) => {
    options.logger.addContext(context);
    const deadline = clock.now() + context.getRemainingTimeInMillis();
    let summary: TickSummary;
    try {
      const atlas = await reachConnections(polled, connections, logger);
      summary = await runTick(
        {
          atlas,
          store,
          engine,
          notifier,
          destinations,
          ...(digests === undefined ? {} : { digests }),
          clock,
          logger,
          discoveryCache,
          names,
          metrics: sink,
        },
        { config, owner: context.awsRequestId, deadline },
      );
    } catch (error) {
      logger.error('The poll tick could not run', describeError(error));
      throw error;
    } finally {
      // Powertools warns about an empty flush; a tick that never ran has nothing to flush.
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
    connections.invalidate(refusedConnections(summary, polled));
    await publishHealth(summary);
    const attributes = tickLogAttributes(summary);
    // One message for both levels, so one Logs Insights filter finds every summary.
    if (summary.totals.sourceErrors > 0 || !summary.completed) logger.warn('Poll tick summary', attributes);
    else logger.info('Poll tick summary', attributes);
    return summary;
  };
}
