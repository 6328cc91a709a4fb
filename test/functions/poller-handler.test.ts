import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsCommandInput } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  BatchImportFindingsCommand,
  type BatchImportFindingsCommandInput,
  SecurityHubClient,
} from '@aws-sdk/client-securityhub';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialsSecretError } from '../../functions/poller/errors.js';
import { readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { createPollerHandler, type PollerHandler } from '../../functions/poller/poller-handler.js';
import {
  EVENT_SOURCE,
  SEVERITIES,
  validateAsffFinding,
  validateSnsEntry,
} from '../../shared/notify/index.js';
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
import { publishedSchemas, schemaErrors } from '../notify/support/detail-schemas.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { acceptAll, invocation, publishedEntries } from './support/lambda-fixtures.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
/** In the default seed: Acme Labs, and its project research-sandbox. */
const ORG = '64b5c9e2f1a3d40012ab3c02';
const PROJECT = '64b5ca17f1a3d40012ab3d21';

const sns = mockClient(SNSClient);
const eventBridge = mockClient(EventBridgeClient);
const securityHub = mockClient(SecurityHubClient);
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

function secretHolding(value: Record<string, string>): void {
  secrets
    .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
    .resolves({ SecretString: JSON.stringify(value) });
}

/** A handler as the module scope builds it, on its own table, polling Acme Labs and one of its projects. */
async function newHandler(
  sources: Record<string, unknown> = { orgIds: [ORG], projectIds: [PROJECT] },
  extra: Record<string, unknown> = {},
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
      ...extra,
    }),
  };
  return createPollerHandler({
    config: readLambdaConfig({ env }),
    pack,
    dynamoDb,
    sns: new SNSClient({ region: 'eu-west-1' }),
    eventBridge: new EventBridgeClient({ region: 'eu-west-1' }),
    securityHub: new SecurityHubClient({ region: 'eu-west-1' }),
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
    eventBridge.reset();
    securityHub.reset();
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
    const entriesAfterFirst = publishedEntries(sns);
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
    expect(publishedEntries(sns)).toHaveLength(entriesAfterFirst.length);
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

  it("puts the demo's alerts on the bus, each entry valid against the published schema, and each once", async () => {
    secretHolding({ ...sim.credentials });
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 0,
      Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `event-${index}` })),
    }));
    const handler = await newHandler(undefined, {
      destinations: { eventBridge: { busName: 'default', policies: [null] } },
    });

    const first = await handler({}, invocation());
    await handler({}, invocation());

    const entries = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.length).toBe(published(first));
    expect(entries.length).toBeGreaterThan(0);
    expect(first.totals.destinations.eventbridge?.failedPermanently).toBe(0);
    const details = entries.map((entry) => JSON.parse(entry.Detail ?? '') as { alert: { id: string } });
    expect(details.flatMap((detail) => schemaErrors(publishedSchemas.alert, detail))).toEqual([]);
    expect(new Set(details.map((detail) => detail.alert.id)).size).toBe(entries.length);
    expect(entries.every((entry) => entry.Source === EVENT_SOURCE && entry.EventBusName === 'default')).toBe(
      true,
    );
  });

  it('imports the high and critical alerts into Security Hub as valid findings, each once', async () => {
    secretHolding({ ...sim.credentials });
    securityHub.on(BatchImportFindingsCommand).callsFake((input: BatchImportFindingsCommandInput) => ({
      SuccessCount: input.Findings?.length ?? 0,
      FailedCount: 0,
      FailedFindings: [],
    }));
    const handler = await newHandler(undefined, {
      destinations: {
        securityHub: {
          productArn: 'arn:aws:securityhub:eu-west-1:123456789012:product/123456789012/default',
          policies: [{ severityRank: [{ numeric: ['>=', 4] }] }],
        },
      },
    });

    const first = await handler({}, invocation());
    await handler({}, invocation());

    const findings = securityHub
      .commandCalls(BatchImportFindingsCommand)
      .flatMap((call) => call.args[0].input.Findings ?? []);
    const highOrCritical = first.totals.alerts.published.high + first.totals.alerts.published.critical;
    expect(highOrCritical).toBeGreaterThan(0);
    expect(findings).toHaveLength(highOrCritical);
    expect(findings.map((finding) => validateAsffFinding(finding))).toEqual(
      findings.map(() => ({ valid: true })),
    );
    expect(new Set(findings.map((finding) => finding.Id)).size).toBe(findings.length);
    expect(findings.every((finding) => finding.AwsAccountId === '123456789012')).toBe(true);
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

describe('createPollerHandler with connections', () => {
  /** Acme Corp, in the second simulator: its own URL and its own API key. */
  const CORP_ORG = '64b5c9e2f1a3d40012ab3c01';
  const CORP_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCorpCredentials-GhIjKl';
  const CORP_KEY = { publicKey: 'corpconn', privateKey: 'fake-corp-private-key-0001' };
  let corpSim: AtlasSimulator;
  let output: OutputCapture;

  beforeAll(async () => {
    corpSim = await startSimulator({ ...CORP_KEY });
  });

  afterAll(async () => {
    await corpSim?.stop();
  });

  beforeEach(() => {
    sns.reset();
    eventBridge.reset();
    securityHub.reset();
    secrets.reset();
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    output = captureOutput();
  });

  afterEach(() => {
    output.restore();
  });

  /**
   * A handler polling Acme Labs through the top-level settings (or the connection `labs`, with
   * `topLevel: false`) and Acme Corp through the connection `corp`, each with its own secret.
   */
  async function newConnectionsHandler(options: { topLevel: boolean }): Promise<PollerHandler> {
    const tableName = `poller-${randomUUID()}`;
    await createStateTable({ client: dynamoDb, tableName });
    const labs = { baseUrl: sim.baseUrl, flavor: 'atlas-v2' as const };
    const corp = {
      name: 'corp',
      baseUrl: corpSim.baseUrl,
      sources: { orgIds: [CORP_ORG] },
      secretArn: CORP_SECRET_ARN,
    };
    const settings = options.topLevel
      ? { atlas: labs, sources: { orgIds: [ORG] }, secretArn: SECRET_ARN, connections: [corp] }
      : { connections: [{ name: 'labs', ...labs, sources: { orgIds: [ORG] }, secretArn: SECRET_ARN }, corp] };
    const env = { [POLLER_CONFIG_ENV]: JSON.stringify({ ...settings, tableName, topicArn: TOPIC_ARN }) };
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

  function accessDenied(): Error {
    return Object.assign(new Error('User is not authorized to perform secretsmanager:GetSecretValue'), {
      name: 'AccessDeniedException',
    });
  }

  /** The organizations of the alerts published so far, each once. */
  function publishedOrgs(): string[] {
    return [
      ...new Set(publishedEntries(sns).map((entry) => String(entry.MessageAttributes?.orgId?.StringValue))),
    ].sort();
  }

  function outcomes(summary: TickSummary) {
    return summary.sources.map(({ source, connection, status, errorCode }) => ({
      source,
      connection,
      status,
      errorCode,
    }));
  }

  it("delivers one connection's alerts while the other's secret cannot be read, and polls that one once it can", async () => {
    // Prepare
    secretHolding({ ...sim.credentials });
    secrets
      .on(GetSecretValueCommand, { SecretId: CORP_SECRET_ARN })
      .rejectsOnce(accessDenied())
      .resolves({
        SecretString: JSON.stringify(CORP_KEY),
      });
    const handler = await newConnectionsHandler({ topLevel: true });

    // Act
    const first = await handler({}, invocation());
    const orgsAfterFirst = publishedOrgs();
    const second = await handler({}, invocation());

    // Assess: the first tick delivers Acme Labs' alerts and fails Acme Corp alone, with the code.
    expect(outcomes(first)).toEqual([
      { source: `org:${ORG}`, connection: undefined, status: 'ok', errorCode: undefined },
      {
        source: `org:${CORP_ORG}`,
        connection: 'corp',
        status: 'failed',
        errorCode: 'CREDENTIALS_SECRET_UNREADABLE',
      },
    ]);
    expect(first.sources[1]?.message).toContain(
      `Reading the Atlas credentials secret ${CORP_SECRET_ARN} failed`,
    );
    expect(first.totals.errorsByCode).toEqual({ CREDENTIALS_SECRET_UNREADABLE: 1 });
    expect(published(first)).toBeGreaterThan(0);
    expect(orgsAfterFirst).toEqual([ORG]);
    expect(publishedEntries(sns).map((entry) => validateSnsEntry(entry))).toEqual(
      publishedEntries(sns).map(() => ({ valid: true })),
    );
    expect(output.lines()).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'Poll tick summary',
        totals: expect.objectContaining({ sourceErrors: 1 }),
      }),
    );
    // The second reads the secret again, polls Acme Corp with its own key, and Acme Labs only anew.
    expect(outcomes(second).map(({ status }) => status)).toEqual(['ok', 'ok']);
    expect(publishedOrgs()).toEqual([CORP_ORG, ORG].sort());
    expect(output.text()).not.toContain(CORP_KEY.privateKey);
    expect(output.text()).not.toContain(sim.credentials.privateKey);
  });

  it('reads again only the secret of the connection Atlas refused', async () => {
    // Prepare: no top-level settings; corp's first key is revoked.
    secretHolding({ ...sim.credentials });
    secrets
      .on(GetSecretValueCommand, { SecretId: CORP_SECRET_ARN })
      .resolvesOnce({ SecretString: JSON.stringify({ ...CORP_KEY, privateKey: 'fake-revoked-corp-key' }) })
      .resolves({ SecretString: JSON.stringify(CORP_KEY) });
    const handler = await newConnectionsHandler({ topLevel: false });

    // Act
    const refused = await handler({}, invocation());
    const accepted = await handler({}, invocation());

    // Assess
    expect(
      refused.sources.map(({ connection, status, httpStatus }) => [connection, status, httpStatus]),
    ).toEqual([
      ['labs', 'ok', undefined],
      ['corp', 'failed', 401],
    ]);
    expect(accepted.sources.map(({ status }) => status)).toEqual(['ok', 'ok']);
    const reads = (secretId: string) =>
      secrets.commandCalls(GetSecretValueCommand).filter((call) => call.args[0].input.SecretId === secretId);
    expect(reads(SECRET_ARN)).toHaveLength(1);
    expect(reads(CORP_SECRET_ARN)).toHaveLength(2);
    expect(output.text()).not.toContain('fake-revoked-corp-key');
  });

  it("fails the invocation, logging each connection's cause, when no connection's secret can be read", async () => {
    // Prepare
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).rejects(accessDenied());
    secrets
      .on(GetSecretValueCommand, { SecretId: CORP_SECRET_ARN })
      .resolves({ SecretString: JSON.stringify({ replaceMe: 'PlaceholderValue7f3a' }) });
    const handler = await newConnectionsHandler({ topLevel: true });

    // Act
    const run = handler({}, invocation());

    // Assess
    await expect(run).rejects.toThrow(
      `Reading the Atlas credentials secret ${SECRET_ARN} failed (AccessDeniedException)`,
    );
    expect(sns).not.toHaveReceivedCommand(PublishBatchCommand);
    const causes = output
      .lines()
      .filter((line) => line.message === 'Connection unavailable: its credentials or client could not be had')
      .map((line) => [line.connection, line.errorCode]);
    expect(causes).toEqual([
      ['default', 'CREDENTIALS_SECRET_UNREADABLE'],
      ['corp', 'CREDENTIALS_SECRET_INVALID'],
    ]);
    expect(output.lines()).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'The poll tick could not run' }),
    );
    expect(output.text()).not.toContain('PlaceholderValue7f3a');
  });
});
