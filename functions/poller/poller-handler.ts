import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { type Clock, systemClock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { SnsNotifier } from '../../shared/notify/index.js';
import { ProjectDiscoveryCache, runTick, type TickSummary } from '../../shared/poll/index.js';
import { createRuleEngine, type RulePack } from '../../shared/rules/index.js';
import { DynamoDbStateStore } from '../../shared/state/index.js';
import { AtlasClientCache } from './atlas-client-cache.js';
import type { LambdaPollerConfig } from './lambda-config.js';
import { powertoolsMetricsSink } from './powertools-metrics-sink.js';
import { SecretsManagerCredentials } from './secret-credentials.js';
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
  const clock = options.clock ?? systemClock;
  const logger = sharedLogger(options.logger);
  const consoleLinks = { flavor: config.atlas.flavor, baseUrl: config.atlas.baseUrl };
  const store = new DynamoDbStateStore({
    client: options.dynamoDb,
    tableName: config.tableName,
    clock,
    logger,
  });
  const engine = createRuleEngine({ pack: options.pack, counters: store, logger, clock });
  const notifier = new SnsNotifier({
    client: options.sns,
    topicArn: config.topicArn,
    clock,
    console: consoleLinks,
    logger,
  });
  const credentials = new SecretsManagerCredentials({
    client: options.secretsManager,
    secretArn: config.secretArn,
    clock,
    logger,
  });
  const clients = new AtlasClientCache({
    client: { baseUrl: config.atlas.baseUrl, flavor: config.atlas.flavor, clock, logger },
    logger,
  });
  const discoveryCache = new ProjectDiscoveryCache();
  const sink = powertoolsMetricsSink(metrics);

  return async (_event, context) => {
    options.logger.addContext(context);
    const deadline = clock.now() + context.getRemainingTimeInMillis();
    let summary: TickSummary;
    try {
      const atlas = clients.clientFor(await credentials.credentials());
      summary = await runTick(
        { atlas, store, engine, notifier, clock, logger, discoveryCache, metrics: sink },
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

/** Powertools' Logger behind the logger interface `shared/` writes to. */
function sharedLogger(logger: PowertoolsLogger): Logger {
  const forward =
    (write: (message: string, ...attributes: Record<string, unknown>[]) => void) =>
    (message: string, attributes?: Record<string, unknown>): void => {
      if (attributes === undefined) write(message);
      else write(message, attributes);
    };
  return {
    debug: forward(logger.debug.bind(logger)),
    info: forward(logger.info.bind(logger)),
    warn: forward(logger.warn.bind(logger)),
    error: forward(logger.error.bind(logger)),
  };
}

function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    errorName: error.name,
    ...(typeof code === 'string' ? { errorCode: code } : {}),
    error: error.message,
  };
}
