import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  InternalErrorException,
  PublishBatchCommand,
  type PublishBatchRequestEntry,
  PublishCommand,
  type PublishCommandInput,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from '../../shared/logger.js';
import type { Alert } from '../../shared/notify/alert.js';
import { SnsDigestPublisher } from '../../shared/notify/digest-publisher.js';
import { SnsNotifier } from '../../shared/notify/sns-notifier.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { deliverAlerts } from '../../shared/poll/alert-delivery.js';
import { digestDestination } from '../../shared/poll/digest-destination.js';
import { flushDigests } from '../../shared/poll/digest-flush.js';
import { stateKeys } from '../../shared/state/dynamodb-keys.js';
import {
  createStateTable,
  type DigestStore,
  DynamoDbStateStore,
  FileStateStore,
  type StateStore,
} from '../../shared/state/index.js';
import { accessListEvent, HOSTILE_VALUES, makeAlert } from '../notify/support/alerts.js';
import { ManualClock } from '../state/manual-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const HOUR = 3_600_000;
/** 2026-11-27 10:00 UTC: the day's digest is due from 2026-11-28 00:00 UTC. */
const START = Date.UTC(2026, 10, 27, 10);
const sns = mockClient(SNSClient);
const folder = mkdtempSync(join(tmpdir(), 'digest-flush-'));
let client: DynamoDBClient;
const tableName = `digest-flush-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

beforeEach(() => {
  sns.reset();
  sns
    .on(PublishBatchCommand)
    .callsFake((input: { PublishBatchRequestEntries: PublishBatchRequestEntry[] }) => ({
      Successful: input.PublishBatchRequestEntries.map((entry) => ({
        Id: entry.Id,
        MessageId: `m-${entry.Id}`,
      })),
      Failed: [],
    }));
  sns.on(PublishCommand).resolves({ MessageId: 'digest-message' });
});

type Store = StateStore & DigestStore;
/** Opens a store; `second` opens another worker's view of the same state where the store allows two. */
type Open = (clock: ManualClock) => Promise<{ first: Store; second: Store; close(): Promise<void> }>;

const stores: Array<[string, Open]> = [
  [
    'DynamoDbStateStore',
    async (clock) => {
      const first = new DynamoDbStateStore({ client, tableName, clock });
      const second = new DynamoDbStateStore({ client, tableName, clock });
      return { first, second, close: async () => {} };
    },
  ],
  [
    'FileStateStore',
    async (clock) => {
      // The file is locked for one process: its workers share the one store.
      const store = await FileStateStore.open({ path: join(folder, `${randomUUID()}.json`), clock });
      return { first: store, second: store, close: () => store.close() };
    },
  ],
];

function lowAlerts(count: number, overrides: (index: number) => Partial<Alert> = () => ({})): Alert[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `${randomUUID().replace(/-/g, '').slice(0, 16)}${String(index).padStart(8, '0')}`;
    return makeAlert({
      severity: index % 2 === 0 ? 'low' : 'info',
      fingerprint: `network-access-open-to-internet:${id}`,
      events: [accessListEvent({ id })],
      raisedAt: START + index * 1_000,
      ...overrides(index),
    });
  });
}

/** One tick's delivery: the alerts published once each, and those below high appended to the route's digest. */
async function deliver(store: Store, clock: ManualClock, route: string, alerts: Alert[]) {
  const notifier = new SnsNotifier({ client: new SNSClient({}), topicArn: TOPIC_ARN, clock });
  const destination = digestDestination({
    route,
    every: 'daily',
    accepts: (alert) => alert.severity === 'info' || alert.severity === 'low',
    store,
    clock,
    console: { console: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' } },
  });
  return deliverAlerts({
    alerts,
    store,
    notifier,
    destinations: [destination],
    claimMs: 60_000,
    signal: new AbortController().signal,
    logger: silentLogger,
    source: 'org:test',
  });
}

function flush(store: Store, clock: ManualClock, route: string) {
  return flushDigests({
    routes: [{ route, every: 'daily' }],
    store,
    publisher: new SnsDigestPublisher({ client: new SNSClient({}), topicArn: TOPIC_ARN }),
    clock,
    claimMs: 60_000,
    logger: silentLogger,
  });
}

function digestsPublished(route: string): PublishCommandInput[] {
  return sns
    .commandCalls(PublishCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.MessageAttributes?.digest?.StringValue === route);
}

describe.each(stores)('digests over %s', (_name, open) => {
  it('appends each alert below the digest severity once, and sends nothing before the period ends', async () => {
    const clock = new ManualClock(START);
    const { first, close } = await open(clock);
    const route = `r-${randomUUID().slice(0, 8)}`;
    const alerts = [...lowAlerts(4), ...lowAlerts(1, () => ({ severity: 'high' }))];

    const delivery = await deliver(first, clock, route, alerts);
    const again = await deliver(first, clock, route, alerts);
    clock.advance(HOUR);
    const early = await flush(first, clock, route);
    const { entries } = await first.readDigestEntries({ route, period: 'daily:2026-11-27' });
    await close();

    expect(delivery.settled).toBe(true);
    expect(delivery.destinations[`digest-${route}`]?.published).toMatchObject({ info: 2, low: 2, high: 0 });
    expect(again.destinations[`digest-${route}`]?.alreadySent).toBe(4);
    expect(entries).toHaveLength(4);
    expect(early).toMatchObject({ sent: 0, failed: 0 });
    expect(digestsPublished(route)).toEqual([]);
  });

  it('keeps a digest whose publish failed and sends it on the next tick, once', async () => {
    const clock = new ManualClock(START);
    const { first, close } = await open(clock);
    const route = `r-${randomUUID().slice(0, 8)}`;
    await deliver(first, clock, route, lowAlerts(6));
    clock.advance(15 * HOUR);
    sns
      .on(PublishCommand)
      .rejectsOnce(new InternalErrorException({ message: 'try again', $metadata: { httpStatusCode: 500 } }))
      .resolves({ MessageId: 'digest-message' });

    const failed = await flush(first, clock, route);
    const { entries: kept } = await first.readDigestEntries({ route, period: 'daily:2026-11-27' });
    clock.advance(5 * 60_000);
    const retried = await flush(first, clock, route);
    const later = await flush(first, clock, route);
    const left = await first.listDigestPeriods({ route });
    await close();

    expect(failed).toMatchObject({ sent: 0, failed: 1 });
    expect(kept).toHaveLength(6);
    expect(retried).toMatchObject({ sent: 1, parts: 1, alerts: 6, failed: 0 });
    expect(later).toMatchObject({ sent: 0, failed: 0 });
    expect(left).toEqual([]);
    // Two attempts: the failed one, and the one that was taken.
    expect(digestsPublished(route)).toHaveLength(2);
    const message = JSON.parse(digestsPublished(route)[1]?.Message ?? '{}') as { email: string };
    expect(message.email).toContain('6 alerts');
  });

  it('sends a digest once when two workers flush at the same time', async () => {
    const clock = new ManualClock(START);
    const { first, second, close } = await open(clock);
    const route = `r-${randomUUID().slice(0, 8)}`;
    await deliver(first, clock, route, lowAlerts(3));
    clock.advance(15 * HOUR);

    const results = await Promise.all([flush(first, clock, route), flush(second, clock, route)]);
    await close();

    expect(results.map((result) => result.sent).sort()).toEqual([0, 1]);
    expect(digestsPublished(route)).toHaveLength(1);
  });

  it('puts an alert settled after its period was claimed into the next period, so none is dropped', async () => {
    const clock = new ManualClock(START);
    const { first, second, close } = await open(clock);
    const route = `r-${randomUUID().slice(0, 8)}`;
    await deliver(first, clock, route, lowAlerts(2));
    const claim = await second.claimDigest({ route, period: 'daily:2026-11-27', claimMs: 60_000 });

    await deliver(first, clock, route, lowAlerts(1));
    const periods = await first.listDigestPeriods({ route });
    if (claim.outcome === 'claimed') await second.releaseDigestClaim({ claim: claim.claim });
    await close();

    expect(periods).toEqual(['daily:2026-11-27', 'daily:2026-11-28']);
  });

  it('escapes for Slack every value the events hold', async () => {
    const clock = new ManualClock(START);
    const { first, close } = await open(clock);
    const route = `r-${randomUUID().slice(0, 8)}`;
    const alerts = lowAlerts(HOSTILE_VALUES.length, (index) => ({
      ruleName: HOSTILE_VALUES[index] as string,
      events: [
        accessListEvent({
          id: `${'a'.repeat(16)}${String(index).padStart(8, '0')}`,
          username: HOSTILE_VALUES[index] as string,
        }),
      ],
      context: { projectName: HOSTILE_VALUES[index] as string },
    }));
    await deliver(first, clock, route, alerts);
    clock.advance(15 * HOUR);

    await flush(first, clock, route);
    await close();

    const [published] = digestsPublished(route);
    expect(validateSnsEntry({ Id: 'digest-1', Message: '', ...published })).toEqual({ valid: true });
    const body = JSON.parse(published?.Message ?? '{}') as { default: string };
    const description = (JSON.parse(body.default) as { content: { description: string } }).content
      .description;
    const text = description.replace(
      /<https:\/\/cloud\.mongodb\.com\/v2\/[0-9a-f]{24}#\/activity\|Activity feed>/g,
      '',
    );
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toContain('<!channel>');
  });
});

describe('a digest with an entry this program did not write', () => {
  it('is sent with the other entries, the entry said by where it is in one warning, and closed', async () => {
    // Prepare
    const clock = new ManualClock(START);
    const store = new DynamoDbStateStore({ client, tableName, clock });
    const route = `r-${randomUUID().slice(0, 8)}`;
    await deliver(store, clock, route, lowAlerts(3));
    const damaged = stateKeys.digestEntry(route, 'daily:2026-11-27', 'damaged');
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: damaged.pk },
          sk: { S: damaged.sk },
          entry: { S: JSON.stringify({ title: 'hunter2 <!channel>', severity: 'urgent' }) },
          expiresAt: { N: '4102444800' },
        },
      }),
    );
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, attributes) => warnings.push([message, attributes]),
    };
    clock.advance(15 * HOUR);

    // Act
    const sent = await flushDigests({
      routes: [{ route, every: 'daily' }],
      store,
      publisher: new SnsDigestPublisher({ client: new SNSClient({}), topicArn: TOPIC_ARN }),
      clock,
      claimMs: 60_000,
      logger,
    });
    const later = await flush(store, clock, route);
    const left = await store.listDigestPeriods({ route });

    // Assess
    expect(sent).toMatchObject({ sent: 1, alerts: 3, failed: 0, unreadable: 1 });
    expect(later).toMatchObject({ sent: 0, failed: 0 });
    expect(left).toEqual([]);
    const message = JSON.parse(digestsPublished(route)[0]?.Message ?? '{}') as { email: string };
    expect(message.email).toContain('3 alerts');
    expect(message.email).not.toContain('hunter2');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[0]).toBe(
      'digest entries that are not ones this program wrote are left out of the digest',
    );
    expect(warnings[0]?.[1]).toMatchObject({ route, period: 'daily:2026-11-27', unreadable: 1 });
    expect(JSON.stringify(warnings)).toContain(damaged.sk);
    expect(JSON.stringify(warnings)).not.toContain('hunter2');
  });
});
