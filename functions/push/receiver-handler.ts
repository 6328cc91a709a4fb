import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Clock, systemClock } from '../../shared/clock.js';
import type { SourceQueue } from '../../shared/fan-out/source-queue.js';
import { MetricName } from '../../shared/poll/metric-names.js';
import {
  CachedWebhookSecrets,
  PushReceiver,
  type PushRuntimeConfig,
  WebhookSecretError,
} from '../../shared/push/index.js';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.js';
import { sharedLogger } from '../poller/shared-logger.js';

/** The part of a Lambda function URL request (payload version 2.0) the receiver reads. */
export interface FunctionUrlEvent {
  rawPath?: string;
  requestContext?: { http?: { method?: string } };
  /** Names in lower case; a header sent twice arrives joined with a comma. */
  headers?: Readonly<Record<string, string | undefined>>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** What the function URL answers: a bare status. */
export interface FunctionUrlResult {
  statusCode: number;
  body: string;
}

/** The receiver's Lambda handler. */
export type ReceiverHandler = (event: FunctionUrlEvent) => Promise<FunctionUrlResult>;

/** The metric every request counts in, by `outcome` (see `PushOutcome`). */
export const PUSH_REQUESTS_METRIC = MetricName.pushRequests;

/** What {@link createReceiverHandler} builds from: created once per container by the caller. */
export interface ReceiverHandlerOptions {
  config: PushRuntimeConfig;
  dynamoDb: DynamoDBClient;
  /** The fan-out queue (`SqsSourceQueue` in Lambda, an in-memory one in tests). */
  queue: Pick<SourceQueue, 'send'>;
  secretsManager: SecretsManagerClient;
  logger: PowertoolsLogger;
  metrics: Metrics;
  clock?: Clock;
}

/**
 * Builds the push receiver behind a Lambda function URL (auth NONE: Atlas cannot sign with SigV4, so
 * its own signature is the authentication): each request goes through `PushReceiver` and gets a bare
 * status, and is counted in `PushRequests` by outcome. The webhook secrets are read from Secrets
 * Manager once per connection and kept for `secretTtlSeconds`, so a flood of requests makes no read
 * per request; replay claims go to the state table (items under `PUSH#` only).
 *
 * @example
 * ```ts
 * export const handler = createReceiverHandler({ config, dynamoDb: new DynamoDBClient({}), queue,
 *   secretsManager: new SecretsManagerClient({}), logger, metrics });
 * ```
 */
export function createReceiverHandler(options: ReceiverHandlerOptions): ReceiverHandler {
  const { config, metrics } = options;
  const logger = sharedLogger(options.logger);
  const clock = options.clock ?? systemClock;
  const arns = new Map(config.connections.map((connection) => [connection.name, connection.secretArn]));
  const secrets = new CachedWebhookSecrets({
    clock,
    ttlMs: config.secretTtlSeconds * 1_000,
    logger,
    read: async (connection) => {
      const secretArn = arns.get(connection);
      const output = await options.secretsManager.send(new GetSecretValueCommand({ SecretId: secretArn }));
      if (output.SecretString === undefined) {
        throw new WebhookSecretError(
          `the webhook secret ${secretArn} of connection ${connection} holds no string: put the Atlas Webhook integration's secret into it as text`,
        );
      }
      return output.SecretString;
    },
  });
  const receiver = new PushReceiver({
    connections: config.connections,
    secrets,
    claims: new DynamoDbStateStore({ client: options.dynamoDb, tableName: config.tableName, clock }),
    queue: options.queue,
    clock,
    logger,
    maxAgeMs: config.maxAgeSeconds * 1_000,
    coalesceMs: config.coalesceSeconds * 1_000,
  });
  return async (event) => {
    const { status, outcome } = await receiver.receive({
      method: event.requestContext?.http?.method ?? '',
      path: event.rawPath ?? '',
      headers: event.headers ?? {},
      body: { text: event.body ?? '', base64: event.isBase64Encoded === true },
    });
    const single = metrics.singleMetric();
    single.addDimension('outcome', outcome);
    single.addMetric(PUSH_REQUESTS_METRIC, MetricUnit.Count, 1);
    return { statusCode: status, body: '' };
  };
}
