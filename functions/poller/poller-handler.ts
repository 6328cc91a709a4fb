import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { Clock } from '../../shared/clock.js';
import { runTick, type TickSummary } from '../../shared/poll/index.js';
import type { RulePack } from '../../shared/rules/index.js';
import type { LambdaPollerConfig } from './lambda-config.js';
import { createPollerRuntime, describeError } from './poller-runtime.js';
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
  /** Reads the credentials secret `config.secretArn` (every few minutes, see `SecretsManagerCredentials`). */
  secretsManager: SecretsManagerClient;
  logger: PowertoolsLogger;
  metrics: Metrics;
  /** Default: the system clock. */
  clock?: Clock;
}

/**
 * Builds the poller's handler and everything it keeps between invocations: the state store on the
 * DynamoDB table, the rule engine over it (it remembers suppressions), the SNS notifier, the Atlas
 * client (rebuilt only when the credentials change) and the project discovery cache.
 *
 * Each invocation takes its deadline from `context.getRemainingTimeInMillis()` and its lease owner from
 * the request id, reads the credentials (cached), runs one tick, publishes the tick's metrics
 * (Powertools EMF) and logs one structured line of the summary, which it returns. After Atlas refused
 * the credentials the secret is read again on the next invocation, so a rotated key is picked up at once.
 *
 * @throws {CredentialsSecretError} (from the handler) when the secret is unreadable or does not hold
 *   credentials; `AtlasConfigError` when the base URL is unusable; `PollConfigError` when no source is
 *   configured. Each message says what to fix. A failing source, publish or Atlas call never throws:
 *   the summary reports it.
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
  const { clock, logger, store, engine, notifier, credentials, clients, discoveryCache, names, sink } =
    createPollerRuntime(options);

  return async (_event, context) => {
    options.logger.addContext(context);
    const deadline = clock.now() + context.getRemainingTimeInMillis();
    let summary: TickSummary;
    try {
      const atlas = clients.clientFor(await credentials.credentials());
      summary = await runTick(
        { atlas, store, engine, notifier, clock, logger, discoveryCache, names, metrics: sink },
        { config, owner: context.awsRequestId, deadline },
      );
    } catch (error) {
      logger.error('The poll tick could not run', describeError(error));
      throw error;
    } finally {
      // Powertools warns about an empty flush; a tick that never ran has nothing to flush.
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
    if (summary.totals.atlasAuthFailures > 0) credentials.invalidate();
    const attributes = tickLogAttributes(summary);
    // One message for both levels, so one Logs Insights filter finds every summary.
    if (summary.totals.sourceErrors > 0 || !summary.completed) logger.warn('Poll tick summary', attributes);
    else logger.info('Poll tick summary', attributes);
    return summary;
  };
}
