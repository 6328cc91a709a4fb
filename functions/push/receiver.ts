import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsSourceQueue } from '../../shared/fan-out/sqs-source-queue.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../shared/poll/metric-names.js';
import { readPushConfig } from './push-config.js';
import { createReceiverHandler, type ReceiverHandler } from './receiver-handler.js';

// Once per container: settings the receiver cannot use fail the cold start, loudly.
const config = readPushConfig({ env: process.env });

/** The push receiver's Lambda entry point, behind its function URL (see `createReceiverHandler`). */
export const handler: ReceiverHandler = createReceiverHandler({
  config,
  dynamoDb: new DynamoDBClient({}),
  queue: new SqsSourceQueue({ client: new SQSClient({}), queueUrl: config.queueUrl }),
  secretsManager: new SecretsManagerClient({}),
  logger: new Logger({ serviceName: METRICS_SERVICE }),
  metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
});
