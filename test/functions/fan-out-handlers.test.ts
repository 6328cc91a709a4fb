import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishBatchCommand, type PublishBatchRequestEntry, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDispatcherHandler,
  type DispatcherHandler,
} from '../../functions/fan-out/dispatcher-handler.js';
import { createWorkerHandler, type WorkerHandler } from '../../functions/fan-out/worker-handler.js';
import { type LambdaPollerConfig, readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { createPollerHandler } from '../../functions/poller/poller-handler.js';
import type { PollerRuntimeOptions } from '../../functions/poller/poller-runtime.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import {
  type FanOutRuntimeConfig,
  InMemorySourceQueue,
  type QueuedSource,
  queuedSources,
  type SourceMessage,
  type SqsEvent,
} from '../../shared/fan-out/index.js';
import {
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  POLLER_CONFIG_ENV,
  projectSource,
} from '../../shared/poll/index.js';
import { pushQueueEntry } from '../../shared/push/index.js';
import { loadRulePack, type RulePack } from '../../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { alertingEvent } from '../poll/support/poll-fixture.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { acceptAll, invocation, publishedEntries } from './support/lambda-fixtures.js';
import { captureOutput, type OutputCapture } from './support/output-capture.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:atlas-audit-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/atlas-audit-alerts-sources.fifo';
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const EVENTS_ROUTES = ['GET /groups/{groupId}/events', 'GET /orgs/{orgId}/events'];

const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);

let dynamoDb: DynamoDBClient;
let sim: AtlasSimulator;
let pack: RulePack;

beforeAll(async () => {
  dynamoDb = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  sim = await startSimulator();
  // Events an hour to ten minutes old, spread over the seeded projects and generated ones of the first org.
  sim.generateEvents({
    count: 400,
    projects: 12,
    seed: 13,
    securityShare: 0.3,
    spanMs: 50 * 60_000,
    endMs: sim.startedAt - 10 * 60_000,
  });
  pack = await loadRulePack({ paths: [RULES] });
});

afterAll(async () => {
  await sim?.stop();
  dynamoDb?.destroy();
});

/** The fingerprints of the alerts (their text says how long ago, which changes between runs). */
function fingerprints(entries: readonly PublishBatchRequestEntry[]): string[] {
  return entries
    .map((entry) => /Alert fingerprint: ([\w.:-]+)/.exec(entry.Message ?? '')?.[1] ?? 'none')
    .sort();
}

/**
 * What must not change when sources are polled in another order: each alert of one event (its
 * fingerprint is the rule and the event id), and how many alerts each rule raised. A threshold
 * rule's fingerprint names the group's window, which starts at the first event the rule counted:
 * with sources in another order another event may be first.
 */
function alertKeys(entries: readonly PublishBatchRequestEntry[]): {
  perEvent: string[];
  perRule: Record<string, number>;
} {
  const all = fingerprints(entries);
  const perRule: Record<string, number> = {};
  for (const fingerprint of all) {
    const rule = fingerprint.split(':')[0] as string;
    perRule[rule] = (perRule[rule] ?? 0) + 1;
  }
  return { perEvent: all.filter((fingerprint) => /^[\w-]+:[0-9a-f]{24}$/.test(fingerprint)), perRule };
}

/** A fresh table and the runtime options a function on it is built with: every org, all their projects. */
async function runtimeOptions(
  concurrency: number,
  sources: Record<string, unknown> = { orgIds: [...sim.orgIds], projectIds: [], allProjectsOfOrgs: true },
  connections?: unknown[],
): Promise<PollerRuntimeOptions & { config: LambdaPollerConfig }> {
  const tableName = `fan-out-${randomUUID()}`;
  await createStateTable({ client: dynamoDb, tableName });
  const env = {
    [POLLER_CONFIG_ENV]: JSON.stringify({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources,
      timing: { initialLookbackSeconds: 2 * 3_600 },
      concurrency,
      tableName,
      topicArn: TOPIC_ARN,
      secretArn: SECRET_ARN,
      ...(connections === undefined ? {} : { connections }),
    }),
  };
  return {
    config: readLambdaConfig({ env }),
    pack,
    dynamoDb,
    sns: new SNSClient({ region: 'eu-west-1' }),
    secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
    logger: new Logger({ serviceName: METRICS_SERVICE }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
  };
}

/** The queue's clock: visibility timeouts and `Retry-After` delays pass when the test says so. */
function queueClock(): Pick<Clock, 'now'> & { advance(ms: number): void } {
  let now = Date.parse('2026-11-24T03:00:00.000Z');
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The system clock set to a chosen time: it runs on from there, and `advance` moves it ahead. */
class ShiftedClock implements Clock {
  #offsetMs: number;

  constructor(start: number) {
    this.#offsetMs = start - Date.now();
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}

const FAN_OUT: FanOutRuntimeConfig = {
  queueUrl: QUEUE_URL,
  mode: 'on',
  automaticAboveSources: 1_000,
  maxConcurrencyPerOrg: 2,
  schedulePeriodSeconds: 300,
};

function sourcesOf(event: SqsEvent): string[] {
  return event.Records.map((record) => {
    const message = JSON.parse(record.body) as SourceMessage;
    return `${message.kind}:${message.id}`;
  });
}

describe('the fan-out dispatcher and worker', () => {
  let output: OutputCapture;

  beforeEach(() => {
    sns.reset();
    secrets.reset();
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({
      SecretString: JSON.stringify({ ...sim.credentials }),
    });
    sim.setFaults();
    output = captureOutput();
  });

  afterEach(() => {
    output.restore();
    sim.setFaults();
  });

  it('polls every source once and raises the same alerts as one invocation, through a partial failure and redeliveries', async () => {
    // Prepare: what one invocation over every source publishes.
    const single = createPollerHandler(await runtimeOptions(4));
    const singleSummary = await single(
      {},
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    const expected = alertKeys(publishedEntries(sns));
    sns.resetHistory();
    const clock = queueClock();
    const queue = new InMemorySourceQueue({ clock, visibilityTimeoutSeconds: 720, maxReceiveCount: 5 });
    const options = await runtimeOptions(1);
    const dispatcher: DispatcherHandler = createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue });
    const worker: WorkerHandler = createWorkerHandler({ ...options, queue });
    // Five 429s in a row exhaust the client's retries on the first source's events: that source fails.
    sim.setFaults({
      schedule: [{ kind: 'rateLimited', count: 5 }],
      routes: EVENTS_ROUTES,
      retryAfterSeconds: 1,
    });

    // Act: dispatch, then deliver batches of 4 as the event source mapping would.
    const dispatch = await dispatcher(
      {},
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    const polled: string[] = [];
    const first = queue.receive(4);
    const firstAnswer = await worker(
      first,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    queue.complete(first, firstAnswer);
    polled.push(...sourcesOf(first));
    sim.setFaults();
    // A worker that dies after polling its batch: every message of it comes back.
    const second = queue.receive(4);
    await worker(second, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }));
    queue.complete(second, undefined);
    clock.advance(721_000);
    const batches: SqsEvent[] = [];
    for (let event = queue.receive(4); event.Records.length > 0; event = queue.receive(4)) {
      batches.push(event);
      queue.complete(
        event,
        await worker(event, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 })),
      );
      polled.push(...sourcesOf(event));
    }

    // Assess
    expect(dispatch).toMatchObject({ mode: 'fanned-out', sources: singleSummary.sources.length, failed: 0 });
    expect(dispatch.sent).toBe(singleSummary.sources.length);
    expect(firstAnswer.batchItemFailures).toHaveLength(1);
    const failedId = firstAnswer.batchItemFailures[0]?.itemIdentifier;
    const redelivered = batches
      .flatMap((event) => event.Records)
      .find((record) => record.messageId === failedId);
    expect(redelivered?.attributes.ApproximateReceiveCount).toBe('2');
    expect(sourcesOf(second).every((source) => polled.includes(source))).toBe(true);
    expect(new Set(polled)).toEqual(new Set(singleSummary.sources.map((outcome) => outcome.source)));
    expect(queue.depth).toBe(0);
    expect(queue.deadLetters).toEqual([]);
    expect(expected.perEvent.length).toBeGreaterThan(0);
    expect(fingerprints(publishedEntries(sns))).toEqual([...new Set(fingerprints(publishedEntries(sns)))]);
    expect(alertKeys(publishedEntries(sns))).toEqual(expected);
    expect(output.text()).not.toContain(sim.credentials.privateKey);
  });

  it('queues each source once per tick, however often the dispatcher is invoked for that tick', async () => {
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const clock = new ShiftedClock(Date.parse('2026-11-24T03:08:19.250Z'));
    const options = await runtimeOptions(4);
    const dispatcher = createDispatcherHandler({ ...options, clock, fanOut: FAN_OUT, queue });
    const scheduled = { scheduledTime: '2026-11-24T03:08:17Z' };

    const first = await dispatcher(
      scheduled,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    // The same run delivered again 40 s later, then an invoke by hand within the same period.
    clock.advance(40_000);
    const again = await dispatcher(
      scheduled,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    clock.advance(30_000);
    const byHand = await dispatcher(
      {},
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    const event = queue.receive(1_000);

    expect([first, again, byHand].map(({ tickAt, tickFrom }) => [tickAt, tickFrom])).toEqual([
      ['2026-11-24T03:05:00.000Z', 'schedule'],
      ['2026-11-24T03:05:00.000Z', 'schedule'],
      ['2026-11-24T03:05:00.000Z', 'start'],
    ]);
    expect(first.sources).toBeGreaterThan(5);
    expect(event.Records).toHaveLength(first.sources);
    expect(new Set(sourcesOf(event)).size).toBe(event.Records.length);
    for (const record of event.Records) {
      expect(JSON.parse(record.body)).toEqual({
        v: 1,
        kind: expect.stringMatching(/^(org|project)$/),
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        orgId: expect.stringMatching(/^[0-9a-f]{24}$/),
        tick: '2026-11-24T03:05:00.000Z',
      });
      expect(record.body).not.toContain(sim.credentials.privateKey);
      expect(record.attributes.MessageGroupId).toMatch(/^[0-9a-f]{24}#[01]$/);
    }
  });

  it('queues every source again for the next scheduled run', async () => {
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const clock = new ShiftedClock(Date.parse('2026-11-24T03:08:19.250Z'));
    const options = await runtimeOptions(4);
    const dispatcher = createDispatcherHandler({ ...options, clock, fanOut: FAN_OUT, queue });

    const first = await dispatcher(
      { scheduledTime: '2026-11-24T03:08:17Z' },
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    clock.advance(300_000);
    const next = await dispatcher(
      { scheduledTime: '2026-11-24T03:13:17Z' },
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    const event = queue.receive(1_000);

    expect(next.tickAt).toBe('2026-11-24T03:10:00.000Z');
    expect(event.Records).toHaveLength(first.sources + next.sources);
    const times = new Map<string, number>();
    for (const source of sourcesOf(event)) times.set(source, (times.get(source) ?? 0) + 1);
    expect(times.size).toBe(first.sources);
    expect(new Set(times.values())).toEqual(new Set([2]));
  });

  it('completes a tick with no source itself, with sources.allowNone, so the heartbeat holds', async () => {
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const options = await runtimeOptions(4, { orgIds: [], projectIds: [], allowNone: true });
    const dispatcher = createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue });

    const summary = await dispatcher(
      { scheduledTime: '2026-11-24T03:08:17Z' },
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );

    expect(summary).toMatchObject({ mode: 'polled', sources: 0, sent: 0, tick: { completed: true } });
    expect(queue.depth).toBe(0);
    expect(output.lines().find((line) => 'TickCompleted' in line)?.TickCompleted).toBe(1);
  });

  it('queues the sources that waited longest first, so those a slow tick did not reach go first next time', async () => {
    const clock = queueClock();
    const options = await runtimeOptions(4);
    const worker = createWorkerHandler({ ...options, queue: new InMemorySourceQueue({ clock }) });
    const firstQueue = new InMemorySourceQueue({ clock });
    await createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue: firstQueue })(
      {},
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    // The workers get through three sources only; the tick's other messages expire unpolled.
    const reached = firstQueue.receive(3);
    firstQueue.complete(
      reached,
      await worker(reached, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 })),
    );
    const nextQueue = new InMemorySourceQueue({ clock });

    await createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue: nextQueue })(
      {},
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );

    const order = sourcesOf(nextQueue.receive(1_000));
    expect(order.length).toBeGreaterThan(3);
    expect(order.slice(-3).sort()).toEqual(sourcesOf(reached).sort());
    expect(order.slice(0, 3)).not.toEqual(sourcesOf(reached));
  });

  it('reads a source a push queued up to now: an event a second old alerts at once, where a scheduled message reads past it', async () => {
    // Prepare: a project polled once already, and an event of it a second old.
    const project = sim.projects[0] as { id: string; orgId: string };
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const options = await runtimeOptions(1, {
      orgIds: [],
      projectIds: [project.id],
      allProjectsOfOrgs: false,
    });
    const worker = createWorkerHandler({ ...options, queue });
    const source = projectSource(project.id);
    const poll = async (entry: QueuedSource | undefined): Promise<string[]> => {
      sns.resetHistory();
      await queue.send(entry === undefined ? [] : [entry]);
      const event = queue.receive(1);
      queue.complete(
        event,
        await worker(event, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 })),
      );
      return fingerprints(publishedEntries(sns));
    };
    const scheduled = (tickAt: number) =>
      queuedSources({ sources: [source], tickAt, maxConcurrencyPerOrg: 1 })[0];
    await poll(scheduled(Date.now() - 60_000));
    const event = sim.addEvent(
      { groupId: project.id },
      alertingEvent(Math.floor(Date.now() / 1_000) * 1_000 - 1_000),
    );

    // Act
    const byTick = await poll(scheduled(Date.now()));
    const byPush = await poll(pushQueueEntry({ source, now: Date.now(), coalesceMs: 10_000 }));

    // Assess
    expect(byTick.filter((fingerprint) => fingerprint.includes(event.id as string))).toEqual([]);
    expect(byPush.filter((fingerprint) => fingerprint.includes(event.id as string))).toHaveLength(1);
    expect(queue.deadLetters).toEqual([]);
  });

  it('acknowledges a source whose lease another worker holds, without polling it', async () => {
    const clock = queueClock();
    const queue = new InMemorySourceQueue({ clock });
    const options = await runtimeOptions(4);
    const dispatcher = createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue });
    const worker = createWorkerHandler({ ...options, queue });
    await dispatcher({}, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }));
    const event = queue.receive(3);
    const [leased] = sourcesOf(event);
    const store = new DynamoDbStateStore({ client: dynamoDb, tableName: options.config.tableName });
    await store.acquireLease({ source: leased as string, owner: 'another-worker', durationMs: 600_000 });

    const answer = await worker(
      event,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    queue.complete(event, answer);

    expect(answer.batchItemFailures).toEqual([]);
    const summary = output.lines().find((line) => line.message === 'Poll tick summary') as
      | { sources: Array<{ source: string; status: string }> }
      | undefined;
    expect(summary?.sources.find((outcome) => outcome.source === leased)?.status).toBe('skipped-lease-held');
  });

  it('drops a message naming a source the deployment does not poll, creating no state for it', async () => {
    // Prepare: a deployment of the first organization and its projects; messages for the second one
    // (which Atlas knows, and the credentials can read), one of them claiming the first as its org.
    const [polled, other] = sim.orgs.map((org) => org.id) as [string, string];
    const otherProject = sim.projects.find((project) => project.orgId === other)?.id as string;
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const options = await runtimeOptions(4, { orgIds: [polled], allProjectsOfOrgs: true });
    const worker = createWorkerHandler({ ...options, queue });
    const tick = '2026-11-24T03:05:00.000Z';
    const messages: SourceMessage[] = [
      { v: 1, kind: 'org', id: polled, orgId: polled, tick },
      { v: 1, kind: 'org', id: other, orgId: other, tick },
      { v: 1, kind: 'project', id: otherProject, orgId: other, tick },
      { v: 1, kind: 'project', id: otherProject, orgId: polled, tick },
    ];
    await queue.send(
      messages.map((message, index) => ({
        message,
        groupId: `group-${index}`,
        deduplicationId: `m-${index}`,
      })),
    );

    // Act
    const event = queue.receive(10);
    const answer = await worker(
      event,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    queue.complete(event, answer);

    // Assess: acknowledged, reported, counted; only the configured organization has state.
    expect(answer.batchItemFailures).toEqual([]);
    expect(queue.depth).toBe(0);
    expect(queue.deadLetters).toEqual([]);
    const dropped = output
      .lines()
      .filter(
        (line) => line.message === 'queue message names a source this deployment does not poll; dropped',
      );
    expect(dropped.map((line) => [line.source, line.reason])).toEqual([
      [`org:${other}`, `organization ${other} is not in sources.orgIds`],
      [
        `project:${otherProject}`,
        `project ${otherProject} is not in sources.projectIds, and its organization ${other} is not in sources.orgIds`,
      ],
      [
        `project:${otherProject}`,
        `project ${otherProject} is not among the projects Atlas lists for organization ${polled}`,
      ],
    ]);
    expect(
      output.lines().find((line) => 'UnconfiguredSourceMessages' in line)?.UnconfiguredSourceMessages,
    ).toBe(3);
    const summary = output.lines().find((line) => line.message === 'Poll tick summary') as
      | { sources: Array<{ source: string }> }
      | undefined;
    expect(summary?.sources.map((outcome) => outcome.source)).toEqual([`org:${polled}`]);
    const items = await dynamoDb.send(new ScanCommand({ TableName: options.config.tableName }));
    const keys = (items.Items ?? []).map((item) => item.pk?.S ?? '');
    expect(keys).toContain(`SOURCE#org:${polled}`);
    // Names are a cache of what alerts show, not a source's state: the polled organization's API keys
    // also hold roles in the other one, whose name the inventory's findings show.
    for (const id of [other, otherProject]) {
      expect(keys.filter((key) => key.includes(id) && !key.startsWith('NAME#'))).toEqual([]);
    }
  });

  it('sends a message that is not a source message back, until the dead-letter queue takes it', async () => {
    const clock = queueClock();
    const queue = new InMemorySourceQueue({ clock, maxReceiveCount: 2 });
    const worker = createWorkerHandler({ ...(await runtimeOptions(4)), queue });
    await queue.send([
      {
        message: { v: 2, kind: 'org', id: 'not-an-id', tick: 'yesterday' } as unknown as SourceMessage,
        groupId: 'poison',
        deduplicationId: 'poison-1',
      },
    ]);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const event = queue.receive(10);
      queue.complete(
        event,
        await worker(event, invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 })),
      );
      clock.advance(721_000);
    }

    expect(queue.depth).toBe(0);
    expect(queue.deadLetters).toHaveLength(1);
    expect(output.text()).toContain('FAN_OUT_BAD_MESSAGE');
  });

  it("lists and polls each connection's sources with its own key, and queues the others' when one connection's secret is unreadable", async () => {
    // Prepare: the first organization through the top-level settings, the second through its own
    // connection and key (Organization Owner of it alone), and a third connection whose secret is refused.
    const [first, second] = sim.orgs.map((org) => org.id) as [string, string];
    const subsidiarySecret = `${SECRET_ARN.slice(0, -6)}Subsid`;
    const archiveSecret = `${SECRET_ARN.slice(0, -6)}Archiv`;
    secrets.on(GetSecretValueCommand, { SecretId: subsidiarySecret }).resolves({
      SecretString: JSON.stringify({ publicKey: 'zydgnobx', privateKey: 'fake-private-key-labs-admin' }),
    });
    secrets
      .on(GetSecretValueCommand, { SecretId: archiveSecret })
      .rejects(
        Object.assign(new Error('not authorized to read the secret'), { name: 'AccessDeniedException' }),
      );
    const options = await runtimeOptions(4, { orgIds: [first], allProjectsOfOrgs: true }, [
      {
        name: 'subsidiary',
        baseUrl: sim.baseUrl,
        secretArn: subsidiarySecret,
        sources: { orgIds: [second], allProjectsOfOrgs: true },
      },
      {
        name: 'archive',
        baseUrl: sim.baseUrl,
        secretArn: archiveSecret,
        sources: { projectIds: ['64b5ca17f1a3d40012ab3dff'] },
      },
    ]);
    const queue = new InMemorySourceQueue({ clock: queueClock() });
    const dispatcher = createDispatcherHandler({ ...options, fanOut: FAN_OUT, queue });
    const worker = createWorkerHandler({ ...options, queue });

    // Act
    const dispatch = await dispatcher(
      { scheduledTime: '2026-11-24T03:08:17Z' },
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    const queued = queue.receive(1_000);
    const answer = await worker(
      queued,
      invocation({ functionName: 'AtlasAuditAlerts-Worker', remainingMs: 120_000 }),
    );
    queue.complete(queued, answer);

    // Assess: the second organization's sources are queued under its connection, in its own groups.
    const messages = queued.Records.map((record) => ({
      message: JSON.parse(record.body) as SourceMessage,
      group: record.attributes.MessageGroupId,
    }));
    const theirs = messages.filter(({ message }) => message.orgId === second);
    const ours = messages.filter(({ message }) => message.orgId === first);
    expect(dispatch).toMatchObject({ mode: 'fanned-out', failed: 0, unavailableConnections: ['archive'] });
    expect(dispatch.sent).toBe(messages.length);
    expect(theirs.length).toBeGreaterThan(1);
    expect(ours.length).toBeGreaterThan(1);
    expect(theirs.length + ours.length).toBe(messages.length);
    for (const { message, group } of theirs) {
      expect(message.connection).toBe('subsidiary');
      expect(group).toMatch(new RegExp(`^subsidiary:${second}#[01]$`));
    }
    for (const { message, group } of ours) {
      expect(message.connection).toBeUndefined();
      expect(group).toMatch(new RegExp(`^${first}#[01]$`));
    }
    // The refused connection's one source counts as a source error under its name.
    const refused = output
      .lines()
      .find((line) => line.connection === 'archive' && typeof line.SourceErrors === 'number');
    expect(refused?.SourceErrors).toBe(1);
    // Every queued source was polled to the end, the subsidiary's with the key of its own secret.
    expect(answer.batchItemFailures).toEqual([]);
    const summary = output.lines().find((line) => line.message === 'Poll tick summary') as
      | { sources: Array<{ source: string; status: string; connection?: string }> }
      | undefined;
    expect(summary?.sources).toHaveLength(messages.length);
    expect(summary?.sources.every((outcome) => outcome.status === 'ok')).toBe(true);
    expect(
      summary?.sources
        .filter((outcome) => outcome.connection === 'subsidiary')
        .map((outcome) => outcome.source),
    ).toEqual(expect.arrayContaining(theirs.map(({ message }) => `${message.kind}:${message.id}`)));
    const secretReads = secrets
      .commandCalls(GetSecretValueCommand)
      .map((call) => call.args[0].input.SecretId);
    expect(secretReads).toContain(subsidiarySecret);
    expect(output.text()).not.toContain('fake-private-key-labs-admin');
  });
});
