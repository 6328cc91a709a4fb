import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  PublishBatchCommand,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
  type PublishBatchResponse,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialsSecretError } from '../../functions/poller/errors.js';
import { readLambdaConfig } from '../../functions/poller/lambda-config.js';
import {
  createPollerHandler,
  type PollerHandler,
  type PollerInvocationContext,
} from '../../functions/poller/poller-handler.js';
import { SEVERITIES, validateSnsEntry } from '../../shared/notify/index.js';
import {
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  POLLER_CONFIG_ENV,
  PollConfigError,
  type TickSummary,
} from '../../shared/poll/index.js';
import { loadRulePack, type RulePack } from '../../shared/rules/index.js';
import { createStateTable } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
/** In the default seed: Acme Labs, and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);

let dynamoDb: DynamoDBClient;
let sim: AtlasSimulator;
let pack: RulePack;

beforeAll(async () => {
  dynamoDb = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  sim = await startSimulator();
  pack = await loadRulePack({ paths: [RULES] });
});

afterAll(async () => {
  await sim?.stop();
  dynamoDb?.destroy();
});

/** SNS taking every entry, as it does when all goes well. */
function acceptAll(input: PublishBatchCommandInput): PublishBatchResponse {
  return {
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `msg-${entry.Id}`,
    })),
  };
}

function publishedEntries(): PublishBatchRequestEntry[] {
  return sns
    .commandCalls(PublishBatchCommand)
    .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? []);
}

function secretHolding(value: Record<string, string>): void {
  secrets
    .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
    .resolves({ SecretString: JSON.stringify(value) });
}

function invocation(options: { remainingMs?: number } = {}): PollerInvocationContext {
  const remainingAt = Date.now() + (options.remainingMs ?? 60_000);
  return {
    awsRequestId: randomUUID(),
    functionName: 'AtlasAuditAlerts-Poller',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:AtlasAuditAlerts-Poller',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => remainingAt - Date.now(),
  };
}

/** A handler as the module scope builds it, on its own table, polling Acme Labs and one of its projects. */
async function newHandler(
  sources: Record<string, unknown> = { orgIds: [ORG], projectIds: [PROJECT] },
): Promise<PollerHandler> {
  const tableName = `poller-${randomUUID()}`;
  await createStateTable({ client: dynamoDb, tableName });
  const env = {
    [POLLER_CONFIG_ENV]: JSON.stringify({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources,
      tableName,
      topicArn: TOPIC_ARN,
      secretArn: SECRET_ARN,
    }),
  };
  return createPollerHandler({
    config: readLambdaConfig({ env }),
    pack,
    dynamoDb,
    sns: new SNSClient({ region: 'eu-west-1' }),
    secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
    logger: new Logger({ serviceName: METRICS_SERVICE }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
  });
}

function published(summary: TickSummary): number {
  return SEVERITIES.reduce((sum, severity) => sum + summary.totals.alerts.published[severity], 0);
}

/** The value of a metric in the EMF sets written, each set's dimensions with it. */
function metricValues(
  lines: readonly Record<string, unknown>[],
  name: string,
): Array<{ value: unknown; dimensions: string[] }> {
  return lines
    .filter((line) => line._aws !== undefined && name in line)
    .map((line) => {
      const aws = line._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][] }> };
      return { value: line[name], dimensions: aws.CloudWatchMetrics[0]?.Dimensions[0] ?? [] };
    });
}

describe('createPollerHandler', () => {
  let output: OutputCapture;

  beforeEach(() => {
    sns.reset();
    secrets.reset();
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    output = captureOutput();
  });

  afterEach(() => {
    output.restore();
  });

  it('publishes each alert once through SNS, emits the metrics and logs the summary', async () => {
    secretHolding({ ...sim.credentials });
    const handler = await newHandler();

    const first = await handler({}, invocation());
    const entriesAfterFirst = publishedEntries();
    const second = await handler({}, invocation());

    expect(first.completed).toBe(true);
    expect(first.sources.map((outcome) => [outcome.source, outcome.status])).toEqual([
      [`org:${ORG}`, 'ok'],
      [`project:${PROJECT}`, 'ok'],
    ]);
    expect(published(first)).toBeGreaterThan(0);
    expect(entriesAfterFirst).toHaveLength(published(first));
    expect(entriesAfterFirst.map((entry) => validateSnsEntry(entry))).toEqual(
      entriesAfterFirst.map(() => ({ valid: true })),
    );
    expect(second.completed).toBe(true);
    expect(second.totals.eventsNew).toBe(0);
    expect(publishedEntries()).toHaveLength(entriesAfterFirst.length);
    const lines = output.lines();
    expect(metricValues(lines, 'EventsFetched').map(({ value }) => value)).toEqual([
      first.totals.eventsFetched,
      second.totals.eventsFetched,
    ]);
    expect(metricValues(lines, 'TickCompleted').map(({ value }) => value)).toEqual([1, 1]);
    const bySeverity = metricValues(lines, 'AlertsPublished').filter(({ dimensions }) =>
      dimensions.includes('severity'),
    );
    expect(bySeverity.reduce((sum, { value }) => sum + Number(value), 0)).toBe(published(first));
    const summaries = lines.filter((line) => line.message === 'Poll tick summary');
    expect(summaries).toHaveLength(2);
    expect(summaries[0]).toMatchObject({
      level: 'INFO',
      service: METRICS_SERVICE,
      function_request_id: expect.any(String),
      completed: true,
      totals: { alertsPublished: published(first), eventsFetched: first.totals.eventsFetched },
      sources: [
        expect.objectContaining({ source: `org:${ORG}`, status: 'ok' }),
        expect.objectContaining({ source: `project:${PROJECT}`, status: 'ok' }),
      ],
    });
    expect(output.text()).not.toContain(sim.credentials.privateKey);
  });

  it("throws, naming the secret, while the secret holds the stack's placeholder", async () => {
    secretHolding({ replaceMe: 'PlaceholderValue7f3a' });
    const handler = await newHandler();

    const run = handler({}, invocation());

    await expect(run).rejects.toThrow(CredentialsSecretError);
    await expect(run).rejects.toThrow(
      `The Atlas credentials secret ${SECRET_ARN} still holds the placeholder the stack created: put the credentials in`,
    );
    expect(sns).not.toHaveReceivedCommand(PublishBatchCommand);
    expect(output.lines()).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'The poll tick could not run',
        errorCode: 'CREDENTIALS_SECRET_INVALID',
      }),
    );
    expect(output.text()).not.toContain('PlaceholderValue7f3a');
  });

  it('reads the secret again after Atlas refused the credentials, and polls with the new ones', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({
        SecretString: JSON.stringify({
          publicKey: sim.credentials.publicKey,
          privateKey: 'fake-revoked-private-key',
        }),
      })
      .resolves({ SecretString: JSON.stringify({ ...sim.credentials }) });
    const handler = await newHandler();

    const refused = await handler({}, invocation());
    const accepted = await handler({}, invocation());

    expect(refused.sources.map((outcome) => [outcome.status, outcome.httpStatus])).toEqual([
      ['failed', 401],
      ['failed', 401],
    ]);
    expect(refused.totals.atlasAuthFailures).toBeGreaterThan(0);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 2);
    expect(accepted.sources.map((outcome) => outcome.status)).toEqual(['ok', 'ok']);
    expect(metricValues(output.lines(), 'AtlasAuthFailures').map(({ value }) => value)).toEqual([
      refused.totals.atlasAuthFailures,
      0,
    ]);
    expect(output.lines()).toContainEqual(
      expect.objectContaining({ level: 'WARN', message: 'Poll tick summary' }),
    );
    expect(output.text()).not.toContain('fake-revoked-private-key');
  });

  it('completes each tick at once with sources.allowNone and no source, so the heartbeat holds', async () => {
    secretHolding({ ...sim.credentials });
    const handler = await newHandler({ orgIds: [], projectIds: [], allowNone: true });

    const summary = await handler({}, invocation());

    expect(summary.completed).toBe(true);
    expect(summary.sources).toEqual([]);
    expect(metricValues(output.lines(), 'TickCompleted').map(({ value }) => value)).toEqual([1]);
    expect(output.lines()).toContainEqual(
      expect.objectContaining({
        level: 'INFO',
        message: 'nothing to poll: sources.allowNone is set and no organization or project is configured',
      }),
    );
    expect(sns).not.toHaveReceivedCommand(PublishBatchCommand);
  });

  it('fails every tick, saying what to set, when no source is configured without sources.allowNone', async () => {
    secretHolding({ ...sim.credentials });
    const handler = await newHandler({ orgIds: [], projectIds: [] });

    const run = handler({}, invocation());

    await expect(run).rejects.toThrow(PollConfigError);
    await expect(run).rejects.toThrow(/nothing to poll: .* or sources\.allowNone: true to run with none/);
    expect(metricValues(output.lines(), 'TickCompleted')).toEqual([]);
  });

  it('starts no work when the invocation has less time left than the deadline margin', async () => {
    secretHolding({ ...sim.credentials });
    const handler = await newHandler();

    const summary = await handler({}, invocation({ remainingMs: 5_000 }));

    expect(summary.completed).toBe(false);
    expect(summary.totals.eventsFetched).toBe(0);
    expect(sns).not.toHaveReceivedCommand(PublishBatchCommand);
    expect(metricValues(output.lines(), 'TickCompleted')).toEqual([]);
  });
});
