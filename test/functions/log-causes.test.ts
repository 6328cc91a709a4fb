import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient, UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { KMSAccessDeniedException, PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcherHandler } from '../../functions/fan-out/dispatcher-handler.js';
import { createWorkerHandler } from '../../functions/fan-out/worker-handler.js';
import { type LambdaPollerConfig, readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { createPollerHandler } from '../../functions/poller/poller-handler.js';
import type { PollerRuntimeOptions } from '../../functions/poller/poller-runtime.js';
import {
  type FanOutRuntimeConfig,
  InMemorySourceQueue,
  type SourceMessage,
  SqsSourceQueue,
} from '../../shared/fan-out/index.js';
import { RESERVED_LOG_KEYS } from '../../shared/logger.js';
import { METRICS_NAMESPACE, METRICS_SERVICE, POLLER_CONFIG_ENV } from '../../shared/poll/index.js';
import { loadRulePack, type RulePack } from '../../shared/rules/index.js';
import { createStateTable } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ids, keys, testSeed } from '../simulator/support/test-seed.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { invocation } from './support/lambda-fixtures.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/atlas-audit-alerts-sources.fifo';
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const FAN_OUT: FanOutRuntimeConfig = {
  queueUrl: QUEUE_URL,
  mode: 'on',
  automaticAboveSources: 1_000,
  maxConcurrencyPerOrg: 2,
  schedulePeriodSeconds: 300,
};
/** What Powertools writes in place of an attribute it drops. */
const RESERVED_KEY_WARNING = /is a reserved key and will be dropped/;

const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);
const sqs = mockClient(SQSClient);

let endpoint: string;
let dynamoDb: DynamoDBClient;
let sim: AtlasSimulator;
let pack: RulePack;

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  dynamoDb = createDynamoDbLocalClient(endpoint);
  // Atlas refuses a key from outside its access list, as it does for a Lambda whose address is not on it.
  sim = await startSimulator({ seed: testSeed(), enforceAccessList: true });
  pack = await loadRulePack({ paths: [RULES] });
});

afterAll(async () => {
  await sim?.stop();
  dynamoDb?.destroy();
});

function credentials(key: { publicKey: string; privateKey: string }): void {
  secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({
    SecretString: JSON.stringify({ publicKey: key.publicKey, privateKey: key.privateKey }),
  });
}

/**
 * The options every function is built from, on a table of its own, with the real Powertools Logger
 * writing to the captured stdout.
 */
async function runtimeOptions(
  options: { sources?: Record<string, unknown>; dynamoDb?: DynamoDBClient } = {},
): Promise<PollerRuntimeOptions & { config: LambdaPollerConfig }> {
  const tableName = `log-causes-${randomUUID()}`;
  await createStateTable({ client: dynamoDb, tableName });
  const env = {
    [POLLER_CONFIG_ENV]: JSON.stringify({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources: options.sources ?? { orgIds: [ids.org], projectIds: [ids.project] },
      tableName,
      topicArn: TOPIC_ARN,
      secretArn: SECRET_ARN,
    }),
  };
  return {
    config: readLambdaConfig({ env }),
    pack,
    dynamoDb: options.dynamoDb ?? dynamoDb,
    sns: new SNSClient({ region: 'eu-west-1' }),
    secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
    logger: new Logger({ serviceName: METRICS_SERVICE }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
  };
}

/** The log lines Powertools wrote (its EMF metric sets left out). */
function logLines(output: OutputCapture): Record<string, unknown>[] {
  return output.lines().filter((line) => typeof line.level === 'string');
}

/** The lines with this log message; fails when there is none. */
function linesSaying(output: OutputCapture, message: string): Record<string, unknown>[] {
  const found = logLines(output).filter((line) => line.message === message);
  expect(found, `no log line says "${message}"`).not.toEqual([]);
  return found;
}

describe('the log lines of the Lambda functions, written by Powertools Logger', () => {
  let output: OutputCapture;

  beforeEach(() => {
    sns.reset();
    secrets.reset();
    sqs.reset();
    sns
      .on(PublishBatchCommand)
      .callsFake((input: { PublishBatchRequestEntries?: Array<{ Id?: string }> }) => ({
        Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
          Id: entry.Id,
          MessageId: `msg-${entry.Id}`,
        })),
      }));
    output = captureOutput();
  });

  afterEach(() => {
    output.restore();
    // Whatever else a test asserts: no attribute was dropped for a reserved name.
    expect(output.text()).not.toMatch(RESERVED_KEY_WARNING);
  });

  it('say why a source failed when Atlas refuses the caller with 403 IP_ADDRESS_NOT_ON_ACCESS_LIST', async () => {
    credentials(keys.readOnly);
    const handler = createPollerHandler(await runtimeOptions());

    await handler({}, invocation());

    const failed = linesSaying(output, 'source failed; the other sources go on');
    expect(failed.map((line) => line.source).sort()).toEqual([`org:${ids.org}`, `project:${ids.project}`]);
    for (const line of failed) {
      expect(line).toMatchObject({
        level: 'ERROR',
        errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
        httpStatus: 403,
      });
      expect(line.error).toMatch(
        /Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST .*IP address 127\.0\.0\.1 is not allowed to access this resource/,
      );
    }
    const inventory = linesSaying(
      output,
      'inventory check failed; the events of the source are still polled',
    );
    expect(inventory.map((line) => line.source).sort()).toEqual([`org:${ids.org}`, `project:${ids.project}`]);
    for (const line of inventory) {
      expect(line).toMatchObject({ level: 'WARN', httpStatus: 403 });
      expect(line.error).toMatch(/IP_ADDRESS_NOT_ON_ACCESS_LIST/);
    }
    expect(output.text()).not.toContain(keys.readOnly.privateKey);
  });

  it('say why a source failed when Atlas refuses the credentials with 401', async () => {
    credentials({ publicKey: keys.owner.publicKey, privateKey: 'fake-revoked-private-key' });
    const handler = createPollerHandler(await runtimeOptions());

    await handler({}, invocation());

    const failed = linesSaying(output, 'source failed; the other sources go on');
    expect(failed).toHaveLength(2);
    for (const line of failed) {
      expect(line).toMatchObject({ level: 'ERROR', errorCode: 'ATLAS_AUTH', httpStatus: 401 });
      expect(line.error).toMatch(/401/);
      expect(line.error).toMatch(/API key|credentials/i);
    }
    expect(output.text()).not.toContain('fake-revoked-private-key');
  });

  it("say why SNS refused the alerts: the topic key's AccessDenied", async () => {
    credentials(keys.owner);
    sns.on(PublishBatchCommand).rejects(
      new KMSAccessDeniedException({
        message:
          'User: arn:aws:sts::123456789012:assumed-role/Poller/fn is not authorized to perform: kms:GenerateDataKey on the key of the topic',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const handler = createPollerHandler(await runtimeOptions());

    await handler({}, invocation());

    const refused = linesSaying(output, 'SNS refused the topic: check the topic, its policy and its KMS key');
    expect(refused[0]).toMatchObject({ level: 'ERROR', code: 'KMSAccessDenied' });
    expect(refused[0]?.error).toMatch(
      /KMSAccessDeniedException: .*not authorized to perform: kms:GenerateDataKey/,
    );
    const undelivered = linesSaying(output, 'alert not delivered; it is raised again next tick');
    expect(undelivered[0]?.reason).toMatch(/kms:GenerateDataKey/);
  });

  it('say why the projects of an organization could not be listed', async () => {
    credentials(keys.foreign);
    const handler = createPollerHandler(
      await runtimeOptions({ sources: { orgIds: [ids.org], allProjectsOfOrgs: true } }),
    );

    await handler({}, invocation());

    const [line] = linesSaying(output, 'could not list the projects of an organization');
    expect(line).toMatchObject({ level: 'ERROR', orgId: ids.org, httpStatus: 403 });
    expect(line?.error).toMatch(/Atlas answered 403/);
  });

  it('say why the lease of a source could not be freed, and why a source failed on the state table', async () => {
    credentials(keys.readOnly);
    // The table refuses a lease's release (a conditional update on its token), as a throttled table would.
    const refusing = createDynamoDbLocalClient(endpoint);
    refusing.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as UpdateItemCommandInput;
        if (
          context.commandName === 'UpdateItemCommand' &&
          input.ConditionExpression === '#leaseToken = :token'
        ) {
          throw Object.assign(new Error('Throughput exceeds the current capacity of your table'), {
            name: 'ProvisionedThroughputExceededException',
            $fault: 'client',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseLeaseRelease' },
    );
    const options = await runtimeOptions({ dynamoDb: refusing });
    const handler = createPollerHandler(options);
    const missingTable = createPollerHandler({
      ...options,
      dynamoDb,
      config: { ...options.config, tableName: `missing-${randomUUID()}` },
    });

    await handler({}, invocation());
    await missingTable({}, invocation());

    const lease = linesSaying(output, 'could not free the lease of a source; it lapses by itself');
    expect(lease[0]).toMatchObject({ level: 'WARN', expiresAt: expect.any(String) });
    expect(lease[0]?.error).toMatch(/Throughput exceeds the current capacity/);
    const failed = linesSaying(output, 'source failed; the other sources go on').filter(
      (line) => line.httpStatus === undefined,
    );
    expect(failed).not.toEqual([]);
    expect(failed[0]?.error).toMatch(/missing-[0-9a-f-]+/);
    refusing.destroy();
  });

  it('say why the worker rejected a queue message, and why a source it polled failed', async () => {
    credentials(keys.readOnly);
    const queue = new InMemorySourceQueue();
    const worker = createWorkerHandler({ ...(await runtimeOptions()), queue });
    const good: SourceMessage = {
      v: 1,
      kind: 'org',
      id: ids.org,
      orgId: ids.org,
      tick: new Date().toISOString(),
    };
    await queue.send([
      { message: good, groupId: `${ids.org}#0`, deduplicationId: 'good' },
      {
        message: { v: 2, kind: 'org', id: 'not-an-id', tick: 'yesterday' } as unknown as SourceMessage,
        groupId: 'poison',
        deduplicationId: 'poison-1',
      },
    ]);

    await worker(queue.receive(10), invocation());

    const [rejected] = linesSaying(output, 'queue message is not a source message');
    expect(rejected).toMatchObject({ level: 'ERROR', errorCode: 'FAN_OUT_BAD_MESSAGE' });
    expect(rejected?.error).toMatch(/is not a version 1 source message \(v: .*id: .*tick: /);
    const [failed] = linesSaying(output, 'source failed; the other sources go on');
    expect(failed?.error).toMatch(/IP_ADDRESS_NOT_ON_ACCESS_LIST/);
  });

  it('say which sources the queue refused, and why, when the dispatcher cannot queue them', async () => {
    credentials(keys.owner);
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [],
      Failed: [
        {
          Id: '0',
          Code: 'KMS.AccessDeniedException',
          SenderFault: true,
          Message: 'The queue key denied access',
        },
        {
          Id: '1',
          Code: 'KMS.AccessDeniedException',
          SenderFault: true,
          Message: 'The queue key denied access',
        },
      ],
    });
    const dispatcher = createDispatcherHandler({
      ...(await runtimeOptions()),
      fanOut: FAN_OUT,
      queue: new SqsSourceQueue({ client: new SQSClient({ region: 'eu-west-1' }), queueUrl: QUEUE_URL }),
    });

    await dispatcher({}, invocation());

    const [line] = linesSaying(output, 'Sources not queued: they are polled from the next tick');
    expect(line).toMatchObject({ level: 'WARN', failed: 2 });
    expect(line?.refused).toEqual([
      expect.objectContaining({ code: 'KMS.AccessDeniedException', message: 'The queue key denied access' }),
      expect.objectContaining({ code: 'KMS.AccessDeniedException', message: 'The queue key denied access' }),
    ]);
  });
});

describe('RESERVED_LOG_KEYS', () => {
  it('holds every key Powertools Logger drops or writes itself', () => {
    const output = captureOutput();
    const logger = new Logger({ serviceName: METRICS_SERVICE, sampleRateValue: 0.5 });
    logger.addContext(invocation());
    try {
      logger.info('bare line');
      const candidates = [
        'level',
        'message',
        'sampling_rate',
        'service',
        'timestamp',
        'xray_trace_id',
        'error',
        'detail',
        'reason',
      ];
      for (const key of candidates) logger.info(`probe ${key}`, { [key]: 'probe' });
    } finally {
      output.restore();
    }
    const lines = output.lines();
    const written = Object.keys(lines.find((line) => line.message === 'bare line') ?? {});
    const dropped = lines
      .map((line) => /The key "(\w+)" is a reserved key/.exec(String(line.message))?.[1])
      .filter((key): key is string => key !== undefined);

    expect(written).toEqual(
      expect.arrayContaining(['level', 'message', 'service', 'timestamp', 'function_request_id']),
    );
    expect(dropped).toEqual(expect.arrayContaining(['level', 'message', 'service', 'timestamp']));
    expect(RESERVED_LOG_KEYS).toEqual(expect.arrayContaining([...written, ...dropped]));
    expect(RESERVED_LOG_KEYS).not.toContain('error');
  });
});
