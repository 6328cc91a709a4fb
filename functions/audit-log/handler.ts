import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { S3ObjectStore } from '../../shared/audit-log/s3-object-store.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../shared/poll/index.js';
import { loadBundledRulePack } from '../poller/bundled-rule-pack.js';
import { destinationClients } from '../poller/destination-clients.js';
import { readLambdaConfig } from '../poller/lambda-config.js';
import { readAuditLogConfig } from './audit-log-config.js';
import { type AuditLogHandler, createAuditLogHandler } from './audit-log-handler.js';

// Once per container: settings or a rule pack the function cannot use fail the cold start, loudly.
const config = readLambdaConfig({ env: process.env });
const auditLog = readAuditLogConfig({ env: process.env });

/** The audit log function's Lambda entry point (see `createAuditLogHandler`). */
export const handler: AuditLogHandler = createAuditLogHandler({
  config,
  auditLog,
  objects: new S3ObjectStore(new S3Client({})),
  pack: loadBundledRulePack(),
  dynamoDb: new DynamoDBClient({}),
  sns: new SNSClient({}),
  ...destinationClients(config),
  secretsManager: new SecretsManagerClient({}),
  logger: new Logger({ serviceName: METRICS_SERVICE }),
  metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
});
