import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySourceQueue, type QueuedSource, type SourceMessage } from '../../shared/fan-out/index.js';
import type { Logger } from '../../shared/logger.js';
import {
  CachedWebhookSecrets,
  type PushConnection,
  PushReceiver,
  type PushRequest,
  webhookSignature,
} from '../../shared/push/index.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { ManualClock } from '../state/manual-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import {
  alertBody,
  ORG_ID,
  OTHER_PROJECT_ID,
  PROJECT_ID,
  signedRequest,
  WEBHOOK_SECRET,
} from './support/webhook.js';

const NOW = Date.parse('2026-11-28T01:00:05Z');
const PROD_SECRET = 'fake-prod-webhook-secret-abcdefghij';

let client: DynamoDBClient;
const tableName = `push-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
});

const CONNECTIONS: PushConnection[] = [
  { name: 'default', sources: { orgIds: [], projectIds: [PROJECT_ID], allProjectsOfOrgs: false } },
  { name: 'prod', sources: { orgIds: [ORG_ID], projectIds: [], allProjectsOfOrgs: true } },
];

/** Every log line, as written: message and attributes. */
class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  debug = (message: string, attributes?: object) => this.#record('debug', message, attributes);
  info = (message: string, attributes?: object) => this.#record('info', message, attributes);
  warn = (message: string, attributes?: object) => this.#record('warn', message, attributes);
  error = (message: string, attributes?: object) => this.#record('error', message, attributes);
  #record(level: string, message: string, attributes?: object): void {
    this.lines.push(JSON.stringify({ level, message, ...attributes }));
  }
}

/** A receiver with the real state store (DynamoDB Local) and the in-memory FIFO queue. */
function fixture(options: { queue?: { send: InMemorySourceQueue['send'] } } = {}) {
  const clock = new ManualClock(NOW);
  const queue = new InMemorySourceQueue({ clock });
  const logger = new RecordingLogger();
  const reads: string[] = [];
  const secrets = new CachedWebhookSecrets({
    clock,
    ttlMs: 300_000,
    read: async (connection) => {
      reads.push(connection);
      return connection === 'prod' ? PROD_SECRET : WEBHOOK_SECRET;
    },
  });
  const store = new DynamoDbStateStore({ client, tableName, clock });
  const receiver = new PushReceiver({
    connections: CONNECTIONS,
    secrets,
    claims: store,
    queue: options.queue ?? queue,
    clock,
    logger,
  });
  const queued = (): SourceMessage[] => queue.receive(100).Records.map((record) => JSON.parse(record.body));
  return { clock, queue, logger, reads, store, receiver, queued };
}

/** A fresh alert id, so tests never share a replay claim. */
const alertId = (): string => randomUUID().replaceAll('-', '').slice(0, 24);

describe('PushReceiver', () => {
  it('queues the project of a valid push for a poll, once, in a FIFO group of its own', async () => {
    const { receiver, queue, queued, logger } = fixture();

    const result = await receiver.receive(signedRequest({ body: alertBody({ id: alertId() }) }));
    const event = queue.receive(10);

    expect(result).toEqual({ status: 202, outcome: 'accepted' });
    expect(event.Records).toHaveLength(1);
    expect(JSON.parse(event.Records[0]?.body ?? '')).toEqual({
      v: 1,
      kind: 'project',
      id: PROJECT_ID,
      // As the dispatcher's message for a project of sources.projectIds: no organization.
      tick: '2026-11-28T01:00:00.000Z',
      // The worker reads the source up to now, where the pushed event is.
      push: true,
    });
    expect(event.Records[0]?.attributes.MessageGroupId).toBe(`push:project:${PROJECT_ID}`);
    expect(queued()).toEqual([]);
    expect(logger.lines.some((line) => line.includes('push queued a poll'))).toBe(true);
  });

  it("queues an organization's alert as the organization's source, through the connection of the path", async () => {
    const { receiver, queued } = fixture();
    const body = alertBody({ id: alertId(), groupId: undefined, eventTypeName: 'ORG_API_KEY_ADDED' });

    const result = await receiver.receive(signedRequest({ body, path: '/prod', secret: PROD_SECRET }));

    expect(result.outcome).toBe('accepted');
    expect(queued()).toEqual([expect.objectContaining({ kind: 'org', id: ORG_ID, connection: 'prod' })]);
  });

  it("queues a project of an organization polled whole, for the worker to check against Atlas's list", async () => {
    const { receiver, queued } = fixture();
    const body = alertBody({ id: alertId(), groupId: OTHER_PROJECT_ID });

    await receiver.receive(signedRequest({ body, path: '/prod/', secret: PROD_SECRET }));

    expect(queued()).toEqual([
      expect.objectContaining({ kind: 'project', id: OTHER_PROJECT_ID, orgId: ORG_ID, connection: 'prod' }),
    ]);
  });

  it('turns a burst of pushes for one source into one poll, and a later push into another', async () => {
    const { receiver, queue, clock } = fixture();

    const results = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        receiver.receive(
          signedRequest({
            body: alertBody({ id: alertId(), updated: `2026-11-28T01:00:0${index % 5}Z` }),
            event: index % 2 === 0 ? 'alert.open' : 'alert.inform',
          }),
        ),
      ),
    );
    const burst = queue.depth;
    clock.advance(10_000);
    await receiver.receive(signedRequest({ body: alertBody({ id: alertId() }) }));

    expect(results.every((result) => result.outcome === 'accepted')).toBe(true);
    expect(burst).toBe(1);
    expect(queue.depth).toBe(2);
  });

  it('takes a replayed push as already taken: a 200, and nothing queued', async () => {
    const { receiver, queue } = fixture();
    const request = signedRequest({ body: alertBody({ id: alertId() }) });

    const first = await receiver.receive(request);
    queue.complete(queue.receive(10), { batchItemFailures: [] });
    const replays = [await receiver.receive(request), await receiver.receive({ ...request })];
    const closed = await receiver.receive({
      ...request,
      headers: { ...request.headers, 'x-mms-event': 'alert.close' },
    });

    expect(first.outcome).toBe('accepted');
    expect(replays).toEqual([
      { status: 200, outcome: 'replay' },
      { status: 200, outcome: 'replay' },
    ]);
    // Another event of the same alert is another push (its signature covers only the body).
    expect(closed.outcome).toBe('accepted');
  });

  it('refuses a push whose alert was updated more than an hour ago or too far ahead, as a replay past its claim', async () => {
    const { receiver } = fixture();

    const old = await receiver.receive(
      signedRequest({ body: alertBody({ id: alertId(), updated: '2026-11-27T23:59:59Z' }) }),
    );
    const ahead = await receiver.receive(
      signedRequest({ body: alertBody({ id: alertId(), updated: '2026-11-28T01:06:00Z' }) }),
    );

    expect([old, ahead]).toEqual([
      { status: 422, outcome: 'stale' },
      { status: 422, outcome: 'stale' },
    ]);
  });

  describe('refuses, queueing nothing and logging neither secret nor signature', () => {
    const forged = (): PushRequest => {
      const request = signedRequest({ body: alertBody({ id: alertId() }), secret: 'not-the-secret' });
      return request;
    };
    const valid = signedRequest({ body: alertBody({ id: alertId() }) });
    const cases: Array<[string, () => PushRequest, number, string]> = [
      ['a forged signature', forged, 401, 'signature'],
      ['no signature', () => ({ ...valid, headers: { 'x-mms-event': 'alert.inform' } }), 401, 'signature'],
      [
        'the signature of another connection',
        () => signedRequest({ body: alertBody({ id: alertId() }), secret: PROD_SECRET }),
        401,
        'signature',
      ],
      [
        'a signed body changed after signing',
        () => ({ ...valid, body: Buffer.from(JSON.stringify(alertBody({ groupId: OTHER_PROJECT_ID }))) }),
        401,
        'signature',
      ],
      [
        'a body of 16 KB and one byte, before reading its signature',
        () => signedRequest({ body: Buffer.alloc(16 * 1024 + 1, 0x20) }),
        413,
        'oversized',
      ],
      [
        'a base64 body that decodes past 16 KB',
        () => ({ ...valid, body: { text: Buffer.alloc(20_000).toString('base64'), base64: true } }),
        413,
        'oversized',
      ],
      ['a GET', () => ({ ...valid, method: 'GET' }), 405, 'method'],
      ['a path naming no connection', () => ({ ...valid, path: '/staging' }), 404, 'unknown-connection'],
      ['a path with more in it', () => ({ ...valid, path: '/prod/../default' }), 404, 'unknown-connection'],
      ['a signed body that is not JSON', () => signedRequest({ body: '{"id": "6b0c' }), 400, 'malformed'],
      [
        'a signed alert with a wrong type',
        () => signedRequest({ body: alertBody({ id: alertId(), groupId: 42 }) }),
        400,
        'malformed',
      ],
      [
        'a signed alert without X-MMS-Event',
        () => {
          const request = signedRequest({ body: alertBody({ id: alertId() }) });
          const { 'x-mms-event': _event, ...headers } = request.headers;
          return { ...request, headers };
        },
        400,
        'malformed',
      ],
      [
        'a signed alert with an event of 1,000 characters',
        () => signedRequest({ body: alertBody({ id: alertId() }), event: 'e'.repeat(1_000) }),
        400,
        'malformed',
      ],
      [
        'a signed alert of a project the connection does not poll',
        () => signedRequest({ body: alertBody({ id: alertId(), groupId: OTHER_PROJECT_ID }) }),
        422,
        'unknown-source',
      ],
      [
        'a signed alert of an organization the connection does not poll',
        () => signedRequest({ body: alertBody({ id: alertId(), groupId: undefined }) }),
        422,
        'unknown-source',
      ],
    ];

    it.each(cases)('%s', async (_case, request, status, outcome) => {
      const { receiver, queue, logger } = fixture();
      const sent = request();

      const result = await receiver.receive(sent);

      expect(result).toEqual({ status, outcome });
      expect(queue.depth).toBe(0);
      const log = logger.lines.join('\n');
      expect(log).not.toContain(WEBHOOK_SECRET);
      expect(log).not.toContain(PROD_SECRET);
      const signature = sent.headers['x-mms-signature'];
      if (signature !== undefined) expect(log).not.toContain(signature);
    });
  });

  it('reads the secret once for many forged requests, and not at all for those without a signature', async () => {
    const { receiver, queue, reads } = fixture();

    for (let index = 0; index < 500; index += 1) {
      const body = Buffer.from(JSON.stringify(alertBody({ id: alertId() })));
      const signature = index % 2 === 0 ? webhookSignature(body, `guess-${index}`) : undefined;
      await receiver.receive({
        method: 'POST',
        path: '/',
        headers: signature === undefined ? {} : { 'x-mms-signature': signature, 'x-mms-event': 'alert.open' },
        body,
      });
    }

    expect(reads).toEqual(['default']);
    expect(queue.depth).toBe(0);
  });

  it('answers 503 without reading further when the secret cannot be read, and tries again later', async () => {
    const clock = new ManualClock(NOW);
    const queue = new InMemorySourceQueue({ clock });
    let reads = 0;
    const receiver = new PushReceiver({
      connections: CONNECTIONS,
      secrets: new CachedWebhookSecrets({
        clock,
        ttlMs: 300_000,
        read: async () => {
          reads += 1;
          if (reads === 1) throw new Error('AccessDeniedException: not authorized');
          return WEBHOOK_SECRET;
        },
      }),
      claims: new DynamoDbStateStore({ client, tableName, clock }),
      queue,
      clock,
    });
    const request = signedRequest({ body: alertBody({ id: alertId() }) });

    const failed = [await receiver.receive(request), await receiver.receive(request)];
    clock.advance(30_000);
    const retried = await receiver.receive(request);

    expect(failed.map((result) => result.status)).toEqual([503, 503]);
    expect(reads).toBe(2);
    expect(retried.outcome).toBe('accepted');
  });

  it("releases the push's claim when the queue refuses its source, so the sender's retry is taken", async () => {
    const refusing = {
      calls: 0,
      async send(entries: readonly QueuedSource[]) {
        refusing.calls += 1;
        if (refusing.calls === 1) {
          return {
            sent: 0,
            failed: entries.map((entry) => ({
              deduplicationId: entry.deduplicationId,
              code: 'KMS.ThrottlingException',
              message: 'Rate exceeded',
            })),
          };
        }
        return { sent: entries.length, failed: [] };
      },
    };
    const { receiver } = fixture({ queue: refusing });
    const request = signedRequest({ body: alertBody({ id: alertId() }) });

    const first = await receiver.receive(request);
    const retry = await receiver.receive(request);

    expect(first).toEqual({ status: 503, outcome: 'failed' });
    expect(retry.outcome).toBe('accepted');
  });
});
