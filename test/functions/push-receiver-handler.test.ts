import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPushConfig } from '../../functions/push/push-config.js';
import {
  createReceiverHandler,
  type FunctionUrlEvent,
  PUSH_REQUESTS_METRIC,
  type ReceiverHandler,
} from '../../functions/push/receiver-handler.js';
import { InMemorySourceQueue } from '../../shared/fan-out/index.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../shared/poll/index.js';
import { PUSH_CONFIG_ENV, PushConfigError, webhookSignature } from '../../shared/push/index.js';
import { createStateTable } from '../../shared/state/index.js';
import { alertBody, ORG_ID, PROJECT_ID, WEBHOOK_SECRET } from '../push/support/webhook.js';
import { ManualClock } from '../state/manual-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasWebhookSecret-AbCdEf';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/atlas-audit-alerts-sources.fifo';
const NOW = Date.parse('2026-11-28T01:00:05Z');

const secrets = mockClient(SecretsManagerClient);
let dynamoDb: DynamoDBClient;
const tableName = `push-handler-${randomUUID()}`;

beforeAll(async () => {
  dynamoDb = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client: dynamoDb, tableName, timeToLive: false });
});

afterAll(() => {
  dynamoDb?.destroy();
});

const environment = {
  [PUSH_CONFIG_ENV]: JSON.stringify({
    tableName,
    queueUrl: QUEUE_URL,
    connections: [
      { name: 'default', secretArn: SECRET_ARN, sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID] } },
    ],
  }),
};

/** A function URL request (payload 2.0) as Lambda hands it over: a JSON body arrives as text. */
function urlEvent(options: {
  body: string;
  signature?: string;
  method?: string;
  event?: string;
}): FunctionUrlEvent {
  return {
    rawPath: '/',
    requestContext: { http: { method: options.method ?? 'POST' } },
    headers: {
      'content-type': 'application/json',
      'x-mms-event': options.event ?? 'alert.inform',
      ...(options.signature === undefined ? {} : { 'x-mms-signature': options.signature }),
    },
    body: options.body,
    isBase64Encoded: false,
  };
}

function signedEvent(fields: Record<string, unknown> = {}): FunctionUrlEvent {
  const body = JSON.stringify(alertBody({ id: randomUUID().replaceAll('-', '').slice(0, 24), ...fields }));
  return urlEvent({ body, signature: webhookSignature(Buffer.from(body), WEBHOOK_SECRET) });
}

describe('the push receiver handler', () => {
  let output: OutputCapture;
  let queue: InMemorySourceQueue;
  let handler: ReceiverHandler;

  beforeEach(() => {
    secrets.reset();
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: WEBHOOK_SECRET });
    output = captureOutput();
    const clock = new ManualClock(NOW);
    queue = new InMemorySourceQueue({ clock });
    handler = createReceiverHandler({
      config: readPushConfig({ env: environment }),
      dynamoDb,
      queue,
      secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
      // Debug, so that even the lines a flood would write at debug level are checked for the secret.
      logger: new Logger({ serviceName: METRICS_SERVICE, logLevel: 'DEBUG' }),
      metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
      clock,
    });
  });

  afterEach(() => {
    output.restore();
  });

  /** The `PushRequests` counts written as EMF, by outcome. */
  function outcomes(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const line of output.lines()) {
      if (line[PUSH_REQUESTS_METRIC] === undefined) continue;
      const outcome = String(line.outcome);
      counts[outcome] = (counts[outcome] ?? 0) + Number(line[PUSH_REQUESTS_METRIC]);
    }
    return counts;
  }

  it('answers a valid push with a bare 202 and queues its project once', async () => {
    const result = await handler(signedEvent());

    expect(result).toEqual({ statusCode: 202, body: '' });
    expect(queue.receive(10).Records.map((record) => JSON.parse(record.body))).toEqual([
      expect.objectContaining({ kind: 'project', id: PROJECT_ID }),
    ]);
    expect(outcomes()).toEqual({ accepted: 1 });
  });

  it('queues nothing, reads the secret once and logs neither secret nor signature for 10,000 forged requests', async () => {
    const body = JSON.stringify(alertBody());
    const statuses = new Map<number, number>();
    const signatures: string[] = [];

    for (let index = 0; index < 10_000; index += 1) {
      // A signature of the right shape under a guessed secret, none at all, or a replay of a valid
      // signature over another body: every one of them is forged.
      const kind = index % 3;
      const signature =
        kind === 0
          ? webhookSignature(Buffer.from(body), `guess-${index}`)
          : kind === 1
            ? undefined
            : webhookSignature(Buffer.from(JSON.stringify(alertBody({ groupId: ORG_ID }))), WEBHOOK_SECRET);
      if (signature !== undefined && index < 30) signatures.push(signature);
      const result = await handler(urlEvent({ body, ...(signature === undefined ? {} : { signature }) }));
      statuses.set(result.statusCode, (statuses.get(result.statusCode) ?? 0) + 1);
    }

    expect([...statuses]).toEqual([[401, 10_000]]);
    expect(queue.depth).toBe(0);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(outcomes()).toEqual({ signature: 10_000 });
    const text = output.text();
    expect(text).not.toContain(WEBHOOK_SECRET);
    for (const signature of signatures) expect(text).not.toContain(signature);
  }, 120_000);

  it.each([
    ['oversized', () => urlEvent({ body: ' '.repeat(16 * 1024 + 1), signature: `${'A'.repeat(27)}=` }), 413],
    ['replayed', () => signedEvent({ id: '6b0c1d2e3f405162738495a6' }), 200],
    [
      'malformed',
      () => urlEvent({ body: '[]', signature: webhookSignature(Buffer.from('[]'), WEBHOOK_SECRET) }),
      400,
    ],
    ['of another method', () => ({ ...signedEvent(), requestContext: { http: { method: 'PUT' } } }), 405],
  ])('refuses a request %s with a bare status and counts it', async (outcome, request, status) => {
    if (outcome === 'replayed') await handler(request());
    queue.receive(10);
    const before = queue.depth;

    const result = await handler(request());

    expect(result).toEqual({ statusCode: status, body: '' });
    expect(queue.depth).toBe(before);
    expect(Object.keys(outcomes())).toContain(
      { oversized: 'oversized', replayed: 'replay', malformed: 'malformed', 'of another method': 'method' }[
        outcome
      ],
    );
    expect(output.text()).not.toContain(WEBHOOK_SECRET);
  });

  it('answers 503 and logs why, without the secret, when Secrets Manager refuses', async () => {
    secrets.reset();
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' }));

    const result = await handler(signedEvent());

    expect(result.statusCode).toBe(503);
    expect(queue.depth).toBe(0);
    expect(
      output.lines().some((line) => String(line.message).includes('webhook secret cannot be read')),
    ).toBe(true);
  });
});

describe('readPushConfig', () => {
  it('says what is wrong and what to do, naming no value', () => {
    const read = (value: string) => () => readPushConfig({ env: { [PUSH_CONFIG_ENV]: value } });

    expect(() => readPushConfig({ env: {} })).toThrow(PushConfigError);
    expect(read('{')).toThrow(/is not JSON/);
    expect(read(JSON.stringify({ tableName: 't', queueUrl: 'q', connections: [] }))).toThrow(/connections/);
    expect(
      read(
        JSON.stringify({ tableName: 't', queueUrl: 'q', connections: [{ name: 'default', sources: {} }] }),
      ),
    ).toThrow(/no webhook secret for connection default/);
  });
});
