import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readAuditLogConfig } from '../../functions/audit-log/audit-log-config.js';
import { type AuditLogHandler, createAuditLogHandler } from '../../functions/audit-log/audit-log-handler.js';
import { PollerConfigError } from '../../functions/poller/errors.js';
import { readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { AUDIT_LOG_CONFIG_ENV } from '../../shared/audit-log/audit-log-runtime.js';
import { S3ObjectStore } from '../../shared/audit-log/s3-object-store.js';
import type { SqsEvent, SqsRecord } from '../../shared/fan-out/index.js';
import { METRICS_NAMESPACE, METRICS_SERVICE, POLLER_CONFIG_ENV } from '../../shared/poll/index.js';
import { loadRulePack } from '../../shared/rules/index.js';
import { createStateTable } from '../../shared/state/index.js';
import {
  type AtlasSimulator,
  type AuditLogMessage,
  startSimulator,
  writeAuditLogExport,
} from '../../simulator/index.js';
import { ids, pollerKey, pollSeed } from '../poll/support/poll-fixture.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { acceptAll, invocation, publishedEntries } from './support/lambda-fixtures.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:atlas-audit-alerts-audit-logs';
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const BUCKET = 'atlas-audit-logs';
const PREFIX = 'exports/payments';
const START = Date.UTC(2026, 10, 28, 1, 0, 0);
const HOSTS = ['payments-main-shard-00-00.abcde.mongodb.net', 'payments-main-shard-00-01.abcde.mongodb.net'];

const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);

/** Half an hour of a cluster's audit log: routine reads, a user granting themselves root, a drop. */
function halfAnHour(): AuditLogMessage[] {
  const messages: AuditLogMessage[] = [];
  for (let minute = 0; minute < 30; minute++) {
    for (let n = 0; n < 10; n++) {
      messages.push({
        at: START + minute * 60_000 + n * 5_000,
        atype: 'authCheck',
        user: 'payments-app@admin',
        param: { command: 'find', ns: 'payments.charges' },
      });
    }
  }
  messages.push({
    at: START + 10 * 60_000 + 1_000,
    atype: 'grantRolesToUser',
    user: 'mallory@admin',
    remote: '198.51.100.23',
    param: { user: 'mallory', db: 'admin', roles: [{ role: 'root', db: 'admin' }] },
  });
  messages.push({
    at: START + 20 * 60_000 + 2_000,
    atype: 'dropCollection',
    user: 'mallory@admin',
    remote: '198.51.100.23',
    param: { ns: 'payments.charges' },
  });
  return messages;
}

/** An SQS message holding S3's notification of new objects, keys encoded as S3 writes them. */
function notification(objects: readonly { bucket: string; key: string }[]): SqsRecord {
  return record(
    JSON.stringify({
      Records: objects.map(({ bucket, key }) => ({
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'eu-west-1',
        eventTime: '2026-11-28T01:31:00.000Z',
        eventName: 'ObjectCreated:Put',
        s3: {
          s3SchemaVersion: '1.0',
          bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
          object: { key: key.split('/').map(encodeURIComponent).join('/'), size: 1_024 },
        },
      })),
    }),
  );
}

function record(body: string): SqsRecord {
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(START) },
    messageAttributes: {},
    md5OfBody: 'not-checked',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'eu-west-1',
  };
}

describe('the audit log function', () => {
  let dynamoDb: DynamoDBClient;
  let sim: AtlasSimulator;
  let server: S3rver;
  let directory: string;
  let s3: S3Client;
  let keys: string[];
  let duplicates: number;
  let output: OutputCapture;

  beforeAll(async () => {
    dynamoDb = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
    sim = await startSimulator({ seed: pollSeed() });
    directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-audit-fn-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(directory, 's3') });
    const { port } = await server.run();
    s3 = new S3Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    // The simulator writes the export as Atlas does, duplicates included; then each object goes to S3.
    const folder = join(directory, 'export');
    const written = writeAuditLogExport({
      folder,
      bucket: BUCKET,
      prefix: PREFIX,
      clusters: [{ name: 'payments-main', hosts: HOSTS, messages: halfAnHour() }],
      duplicateChance: 0.5,
      seed: 11,
    });
    keys = written.objects.map((object) => object.key);
    duplicates = written.objects.filter((object) => object.duplicateOf !== undefined).length;
    for (const key of keys) {
      await s3.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: await readFile(join(folder, BUCKET, key)) }),
      );
    }
  });
  afterAll(async () => {
    s3?.destroy();
    await server?.close();
    await sim?.stop();
    dynamoDb?.destroy();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  beforeEach(() => {
    sns.reset();
    secrets.reset();
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({
      SecretString: JSON.stringify(pollerKey),
    });
    output = captureOutput();
  });
  afterEach(() => output.restore());

  /** A function on a fresh table, reading the bucket for the seeded project under {@link PREFIX}. */
  async function handler(): Promise<AuditLogHandler> {
    const tableName = `audit-log-${randomUUID()}`;
    await createStateTable({ client: dynamoDb, tableName });
    const env = {
      [POLLER_CONFIG_ENV]: JSON.stringify({
        atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
        sources: { orgIds: [ids.org] },
        tableName,
        topicArn: TOPIC_ARN,
        secretArn: SECRET_ARN,
      }),
      [AUDIT_LOG_CONFIG_ENV]: JSON.stringify({
        buckets: [
          { bucket: BUCKET, connection: 'default', exports: [{ groupId: ids.project, prefix: PREFIX }] },
        ],
      }),
    };
    return createAuditLogHandler({
      config: readLambdaConfig({ env }),
      auditLog: readAuditLogConfig({ env }),
      objects: new S3ObjectStore(s3),
      pack: await loadRulePack({ paths: [RULES] }),
      dynamoDb,
      sns: new SNSClient({ region: 'eu-west-1' }),
      secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
      logger: new Logger({ serviceName: METRICS_SERVICE }),
      metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
    });
  }

  /**
   * The sum of one metric over the EMF sets written, in the sets whose dimensions are `service` and
   * exactly those given (a per-severity set is not the total's).
   */
  const metricSum = (name: string, dimensions: Record<string, string> = {}): number =>
    output
      .lines()
      .filter((line) => {
        const aws = line._aws as
          | { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> }
          | undefined;
        const set = aws?.CloudWatchMetrics[0];
        if (set === undefined || !set.Metrics.some((metric) => metric.Name === name)) return false;
        const keys = ['service', ...Object.keys(dimensions)].sort();
        return (
          JSON.stringify([...(set.Dimensions[0] ?? [])].sort()) === JSON.stringify(keys) &&
          Object.entries(dimensions).every(([key, value]) => line[key] === value)
        );
      })
      .reduce((sum, line) => sum + Number(line[name]), 0);

  const titles = () =>
    publishedEntries(sns)
      .map((entry) => JSON.parse(entry.Message ?? '{}') as { default?: string })
      .map(
        (message) => (JSON.parse(message.default ?? '{}') as { content?: { title?: string } }).content?.title,
      )
      .sort();

  it('reads every object through the rules: each alert once, over duplicated objects and a redelivered message', async () => {
    // Prepare
    const fn = await handler();
    const messages = keys.map((key) => notification([{ bucket: BUCKET, key }]));
    const half = Math.ceil(messages.length / 2);
    const first: SqsEvent = {
      Records: [record('{"Service":"Amazon S3","Event":"s3:TestEvent"}'), ...messages.slice(0, half)],
    };
    const second: SqsEvent = { Records: messages.slice(half) };
    // SQS delivers the whole first batch again, as after a lost acknowledgement.
    const again: SqsEvent = {
      Records: first.Records.map((message) => ({ ...message, receiptHandle: randomUUID() })),
    };

    // Act
    const answers = [
      await fn(first, invocation({ functionName: 'AtlasAuditAlerts-AuditLogs', remainingMs: 120_000 })),
      await fn(second, invocation({ functionName: 'AtlasAuditAlerts-AuditLogs', remainingMs: 120_000 })),
      await fn(again, invocation({ functionName: 'AtlasAuditAlerts-AuditLogs', remainingMs: 120_000 })),
    ];

    // Assess
    expect(duplicates).toBeGreaterThan(3);
    expect(answers).toEqual([
      { batchItemFailures: [] },
      { batchItemFailures: [] },
      { batchItemFailures: [] },
    ]);
    expect(publishedEntries(sns)).toHaveLength(2);
    expect(titles()).toEqual([
      expect.stringMatching(/mallory dropped payments\.charges on payments-main/),
      expect.stringMatching(/mallory gave mallory a privileged role on payments-main/),
    ]);
    const summaries = output.lines().filter((line) => line.message === 'Audit log batch read');
    expect(
      summaries.map(({ objects, skipped, failed, malformed, redelivered }) => ({
        objects,
        skipped,
        failed,
        malformed,
        redelivered,
      })),
    ).toEqual([
      { objects: half, skipped: 0, failed: 0, malformed: 0, redelivered: 0 },
      { objects: messages.length - half, skipped: 0, failed: 0, malformed: 0, redelivered: 0 },
      { objects: half, skipped: 0, failed: 0, malformed: 0, redelivered: 0 },
    ]);
    expect(summaries.reduce((sum, line) => sum + Number(line.lines), 0)).toBeGreaterThan(300);
    expect(summaries.reduce((sum, line) => sum + Number(line.alerts), 0)).toBe(2);
    expect(output.text()).not.toContain(pollerKey.privateKey);
    // The same counts as metrics: the alerts as a tick writes them, and the audit log's own.
    expect(metricSum('AlertsPublished')).toBe(2);
    const bySeverity = ['info', 'low', 'medium', 'high', 'critical'].map((severity) =>
      metricSum('AlertsPublished', { severity }),
    );
    expect(bySeverity.reduce((sum, count) => sum + count, 0)).toBe(2);
    expect(metricSum('AlertsFailed')).toBe(0);
    expect(metricSum('AuditLogLines')).toBe(summaries.reduce((sum, line) => sum + Number(line.lines), 0));
    expect(metricSum('AuditLogMalformedLines')).toBe(0);
    expect(metricSum('AuditLogObjectsFailed')).toBe(0);
  });

  it('reports a message whose object cannot be read as a batch item failure, and deletes the others', async () => {
    // Prepare
    const fn = await handler();
    const missing = notification([
      { bucket: BUCKET, key: `${PREFIX}/payments-main/${HOSTS[0]}/mongodb-audit-log/gone.log.gz` },
    ]);
    const present = notification([{ bucket: BUCKET, key: keys[0] as string }]);
    const elsewhere = notification([{ bucket: 'someone-elses-bucket', key: keys[0] as string }]);
    const garbage = record('{"not":"a notification"}');

    // Act
    const answer = await fn(
      { Records: [missing, present, elsewhere, garbage] },
      invocation({ functionName: 'AtlasAuditAlerts-AuditLogs', remainingMs: 120_000 }),
    );

    // Assess
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: missing.messageId }] });
    expect(metricSum('AuditLogObjectsFailed')).toBe(1);
    expect(metricSum('AuditLogLines')).toBeGreaterThan(0);
    const log = output.text();
    expect(log).toContain('An audit log object is not settled');
    expect(log).toContain('is not an S3 notification');
    expect(log).toContain('a bucket this deployment does not read');
  });

  it('refuses to start without its settings, saying how to write them', () => {
    expect(() => readAuditLogConfig({ env: {} })).toThrow(PollerConfigError);
    expect(() => readAuditLogConfig({ env: { [AUDIT_LOG_CONFIG_ENV]: '{"buckets":[]}' } })).toThrow(
      /ATLAS_AUDIT_ALERTS_AUDIT_LOG is not valid \(buckets: .*\): deploy the stack again/,
    );
  });
});
