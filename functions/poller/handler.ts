import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../shared/poll/index.js';
import { loadBundledRulePack } from './bundled-rule-pack.js';
import { destinationClients } from './destination-clients.js';
import { readLambdaConfig } from './lambda-config.js';
import { createPollerHandler, type PollerHandler } from './poller-handler.js';

// Once per container: a configuration or rule pack the poller cannot use fails the cold start, loudly,
// and the clients, compiled rules, caches and the Atlas connection live as long as the container.
const config = readLambdaConfig({ env: process.env });

/** The Lambda entry point: one poll tick per invocation (see `createPollerHandler`). */
export const handler: PollerHandler = createPollerHandler({
  config,
  pack: loadBundledRulePack(),
  dynamoDb: new DynamoDBClient({}),
  sns: new SNSClient({}),
  ...destinationClients(config),
  secretsManager: new SecretsManagerClient({}),
  logger: new Logger({ serviceName: METRICS_SERVICE }),
  metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
});
