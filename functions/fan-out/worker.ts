import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsSourceQueue } from '../../shared/fan-out/index.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../shared/poll/index.js';
import { loadBundledRulePack } from '../poller/bundled-rule-pack.js';
import { destinationClients } from '../poller/destination-clients.js';
import { readLambdaConfig } from '../poller/lambda-config.js';
import { readFanOutConfig } from './fan-out-config.js';
import { createWorkerHandler, type WorkerHandler } from './worker-handler.js';

// Once per container: settings the worker cannot use fail the cold start, loudly.
const config = readLambdaConfig({ env: process.env });
const fanOut = readFanOutConfig({ env: process.env });

/** The fan-out worker's Lambda entry point (see `createWorkerHandler`). */
export const handler: WorkerHandler = createWorkerHandler({
  config,
  queue: new SqsSourceQueue({ client: new SQSClient({}), queueUrl: fanOut.queueUrl }),
  pack: loadBundledRulePack(),
  dynamoDb: new DynamoDBClient({}),
  sns: new SNSClient({}),
  ...destinationClients(config),
  secretsManager: new SecretsManagerClient({}),
  logger: new Logger({ serviceName: METRICS_SERVICE }),
  metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
});
