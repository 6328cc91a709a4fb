import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AtlasClient } from '../shared/atlas/index.js';
import type { Clock } from '../shared/clock.js';
import { ConfiguredSources } from '../shared/fan-out/configured-sources.js';
import { InMemorySourceQueue, pollSourceBatch } from '../shared/fan-out/index.js';
import { silentLogger } from '../shared/logger.js';
import type { Alert } from '../shared/notify/alert.js';
import type { Notifier, PublishResult } from '../shared/notify/notifier.js';
import {
  DiscoveryCache,
  effectiveConnections,
  type PollerConfig,
  type PollSource,
  pollerConfigSchema,
  projectSource,
  runTick,
  type TickDependencies,
} from '../shared/poll/index.js';
import { CachedWebhookSecrets, PushReceiver, startPushServer } from '../shared/push/index.js';
import { createRuleEngine, loadRulePack, type RulePack } from '../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../shared/state/index.js';
import { type AtlasSimulator, type SeedData, startSimulator } from '../simulator/index.js';
import { WebhookSender } from '../simulator/webhook-sender.js';
import { createDynamoDbLocalClient } from '../test/support/dynamodb-local.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import { createRandom, type Random } from './support/random.js';
import { renderTable } from './support/table.js';

/**
 * Push latency: how long after Atlas records an event its alert is published, through a push (the
 * simulator's signed webhook sender, the receiver behind a local HTTP server, the fan-out queue, the
 * woken poll) and through the schedule alone, over the same events in the same run.
 *
 * What is real and what is simulated: the simulator, the HTTP requests (sender to receiver, poller to
 * the simulator), the receiver's checks and replay claims, the queue, the ticks, the rules, the state
 * (DynamoDB Local) and the notifier's publish are the project's own code, run and timed as they are.
 * Time between them is simulated: a clock that runs with the wall clock while code runs and jumps
 * over idle waits (the schedule's five minutes, the sender's delay), so 100 minutes of events take
 * seconds. The sender's delay (Atlas's time to raise and post an alert, which Atlas does not
 * document) is drawn from `senderDelayMs`; SQS's hand-over to the worker, a Lambda cold start and
 * SNS's own delivery are not in the figures; the woken poll runs as soon as the receiver queued its
 * source, and a scheduled tick and a woken poll never run at once.
 */

/** Options of {@link runPushLatencyBenchmark}; each defaults to {@link PUSH_LATENCY_DEFAULTS}. */
export interface PushLatencyBenchOptions {
  /** Events created, each of an alertable type the default rules alert on once per event. */
  events?: number;
  /** Projects they are spread over (one poll source each). */
  projects?: number;
  /** Simulated time the events are spread over, uniformly at random. */
  spanMinutes?: number;
  /** The schedule of both paths. */
  scheduleMinutes?: number;
  /** `timing.lagSeconds` of both paths. */
  lagSeconds?: number;
  /** The sender's delay between an event and its push, drawn uniformly from this range. */
  senderDelayMs?: { min: number; max: number };
  /** Seeds the event times, projects and delays. */
  seed?: number;
  /** DynamoDB Local to use; by default one of the benchmark's own. */
  dynamoDbEndpoint?: string;
}

/** The size the target names: 200 events, a 5-minute schedule, the default 30-second lag. */
export const PUSH_LATENCY_DEFAULTS = {
  events: 200,
  projects: 20,
  spanMinutes: 100,
  scheduleMinutes: 5,
  lagSeconds: 30,
  senderDelayMs: { min: 1_000, max: 5_000 },
  seed: 34,
} as const;

/** The options with their defaults. */
type LatencySettings = Required<Omit<PushLatencyBenchOptions, 'dynamoDbEndpoint'>>;

/** Latency percentiles of one path, in milliseconds from the event's `created` to its alert's publish. */
export interface PathLatency {
  /** Events whose alert was published. */
  alerted: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/** What {@link runPushLatencyBenchmark} measured. */
export interface PushLatencyBenchResult {
  events: number;
  projects: number;
  spanMinutes: number;
  scheduleMinutes: number;
  lagSeconds: number;
  senderDelayMs: { min: number; max: number };
  eventTypes: readonly string[];
  push: PathLatency & {
    /** Pushes the receiver took (202). */
    pushesAccepted: number;
    /** Woken polls the queue handed to the worker (a burst of pushes for one source is one). */
    wokenPolls: number;
    /** Alerts published by a woken poll; the others by a scheduled tick of the same path. */
    alertedByPush: number;
    /** What the project's path adds, from the push's post to the alert's publish (no sender delay). */
    handlingP50Ms: number;
    handlingP95Ms: number;
  };
  scheduled: PathLatency & { ticks: number };
  target: { pushP95Ms: number; met: boolean };
}

/** The push path's target: p95 under 10 seconds with a 5-minute schedule. */
export const PUSH_P95_TARGET_MS = 10_000;

/**
 * Alertable types (in the `*Alertable` event type enums of the Atlas Admin API v2 document) that
 * the default rules alert on once per event, whatever came before: so every event has one alert,
 * and its latency is that alert's.
 */
export const LATENCY_EVENT_TYPES = [
  'ALERT_HOST_SSH_SESSION_STARTED',
  'PUSH_BASED_LOG_EXPORT_STOPPED',
] as const;

const ORG_ID = '6650a1b2c3d4e5f601000034';
const KEY = { publicKey: 'latencyk', privateKey: 'fake-private-key-for-the-benchmark' } as const;
const WEBHOOK_SECRET = 'fake-benchmark-webhook-secret-0123456789';
const START = Date.UTC(2026, 10, 2, 9, 0, 0);
const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;

/**
 * A clock that runs with the wall clock while code runs and jumps over the waits the benchmark
 * skips: `skipTo` moves it ahead to a time (never back), `sleep` returns at once having moved it.
 */
class SkippingClock implements Clock {
  #offsetMs: number;

  constructor(start: number) {
    this.#offsetMs = start - Date.now();
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  skipTo(time: number): void {
    const ahead = time - this.now();
    if (ahead > 0) this.#offsetMs += ahead;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms > 0) this.#offsetMs += ms;
    return Promise.resolve();
  }
}

/** Records when each event's first alert was published, and by which kind of poll. */
class LatencyNotifier implements Notifier {
  readonly published = new Map<string, { at: number; by: 'push' | 'schedule' }>();
  by: 'push' | 'schedule' = 'schedule';

  constructor(private readonly clock: Clock) {}

  async publish(alerts: readonly Alert[]): Promise<PublishResult[]> {
    const at = this.clock.now();
    for (const alert of alerts) {
      for (const event of alert.events) {
        const id = String(event.id);
        if (!this.published.has(id)) this.published.set(id, { at, by: this.by });
      }
    }
    return alerts.map((alert) => ({ status: 'sent', fingerprint: alert.fingerprint }));
  }
}

/** One event of the run: when Atlas records it, where, and when its push is posted. */
interface PlannedEvent {
  created: number;
  project: string;
  type: string;
  hostname: string;
  pushAt: number;
}

function planEvents(options: LatencySettings, projects: readonly string[], random: Random): PlannedEvent[] {
  const spanMs = options.spanMinutes * MINUTE_MS;
  const { min, max } = options.senderDelayMs;
  return Array.from({ length: options.events }, (_, index) => {
    // Atlas writes `created` to the second.
    const created = START + Math.floor((random.next() * spanMs) / SECOND_MS) * SECOND_MS;
    return {
      created,
      project: random.pick(projects),
      type: LATENCY_EVENT_TYPES[index % LATENCY_EVENT_TYPES.length] as string,
      hostname: `atlas-bench-${index}-shard-00-01.mongodb.net`,
      pushAt: created + min + Math.round(random.next() * (max - min)),
    };
  }).sort((a, b) => a.created - b.created);
}

function seedOf(projects: number): SeedData {
  return {
    orgs: [{ id: ORG_ID, name: 'Latency' }],
    projects: Array.from({ length: projects }, (_, index) => ({
      id: `6650a1b2c3d4e5f6020${String(index).padStart(5, '0')}`,
      name: `latency-${index}`,
      orgId: ORG_ID,
    })),
    apiKeys: [
      {
        id: '6650a1b2c3d4e5f603000034',
        desc: 'latency poller',
        ...KEY,
        roles: [{ orgId: ORG_ID, roleName: 'ORG_OWNER' }],
        accessList: [{ cidrBlock: '127.0.0.1/32' }],
      },
    ],
    users: [],
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] as number;
}

function summarize(latencies: readonly number[]): PathLatency {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    alerted: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted.at(-1) ?? Number.NaN,
  };
}

/** One path's world: its own simulator, state table, poller and clock. */
interface PathWorld {
  clock: SkippingClock;
  sim: AtlasSimulator;
  atlas: AtlasClient;
  store: DynamoDbStateStore;
  notifier: LatencyNotifier;
  deps: TickDependencies;
  config: PollerConfig;
  sources: PollSource[];
}

async function openWorld(
  options: LatencySettings,
  pack: RulePack,
  client: DynamoDBClient,
  name: string,
): Promise<PathWorld> {
  const clock = new SkippingClock(START - 10 * MINUTE_MS);
  const sim = await startSimulator({ seed: seedOf(options.projects), clock });
  const atlas = new AtlasClient({
    baseUrl: sim.baseUrl,
    credentials: { kind: 'digest', ...KEY },
    clock,
    random: () => 0.5,
  });
  const tableName = uniqueTableName(`bench-latency-${name}`);
  // Time comes from the benchmark's clock: no TTL, as for every table driven by an injected clock.
  await createStateTable({ client, tableName, timeToLive: false });
  const store = new DynamoDbStateStore({ client, tableName, clock });
  const notifier = new LatencyNotifier(clock);
  const projectIds = sim.projects.map((project) => project.id);
  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: sim.baseUrl },
    sources: { projectIds },
    timing: { lagSeconds: options.lagSeconds, initialLookbackSeconds: 0 },
  });
  const deps: TickDependencies = {
    atlas,
    store,
    engine: createRuleEngine({ pack, counters: store }),
    notifier,
    clock,
    logger: silentLogger,
    discoveryCache: new DiscoveryCache(),
  };
  return { clock, sim, atlas, store, notifier, deps, config, sources: projectIds.map(projectSource) };
}

async function closeWorld(world: PathWorld): Promise<void> {
  await world.atlas.close();
  await world.sim.stop();
}

/** Scheduled tick times of a path: every `scheduleMinutes` from the start, until every event is read. */
function tickTimes(options: LatencySettings): number[] {
  const periodMs = options.scheduleMinutes * MINUTE_MS;
  const endMs = START + options.spanMinutes * MINUTE_MS + options.lagSeconds * SECOND_MS + periodMs;
  const times: number[] = [];
  for (let time = START + periodMs; time <= endMs; time += periodMs) times.push(time);
  return times;
}

type Step =
  | { at: number; kind: 'create'; event: PlannedEvent }
  | { at: number; kind: 'push'; event: PlannedEvent }
  | { at: number; kind: 'tick' };

const STEP_ORDER: Record<Step['kind'], number> = { create: 0, push: 1, tick: 2 };

/**
 * Runs one path over the planned events: the scheduled ticks, and with `push` each event's push too.
 * Returns each event's latency and, for the push path, what the pushes came to.
 */
async function runPath(
  world: PathWorld,
  options: LatencySettings,
  planned: readonly PlannedEvent[],
  push: boolean,
): Promise<{ latencies: number[]; handling: number[]; ticks: number; accepted: number; woken: number }> {
  const { clock, sim, notifier, config, deps } = world;
  const tick = async (sources?: PollSource[], woken?: PollSource[]) => {
    notifier.by = woken === undefined ? 'schedule' : 'push';
    return runTick(deps, {
      config,
      owner: 'bench-latency',
      ...(sources === undefined ? {} : { sources }),
      ...(woken === undefined ? {} : { woken }),
    });
  };
  // A deployment that has been running: every source has its cursor before the first event.
  clock.skipTo(START - MINUTE_MS);
  await tick();

  const queue = new InMemorySourceQueue({ clock });
  const receiver = new PushReceiver({
    connections: effectiveConnections(config),
    secrets: new CachedWebhookSecrets({
      clock,
      ttlMs: Number.POSITIVE_INFINITY,
      read: async () => WEBHOOK_SECRET,
    }),
    claims: world.store,
    queue,
    clock,
  });
  const server = push ? await startPushServer({ receiver }) : undefined;
  const sender = new WebhookSender({
    url: server?.url ?? 'http://127.0.0.1:9/',
    secret: WEBHOOK_SECRET,
    seed: 34,
  });
  const configured = new ConfiguredSources({
    connections: effectiveConnections(config),
    atlas: () => world.atlas,
    cache: new DiscoveryCache(),
    clock,
  });
  const ids = new Map<PlannedEvent, string>();
  const postedAt = new Map<string, number>();
  const steps: Step[] = [
    ...planned.map((event): Step => ({ at: event.created, kind: 'create', event })),
    ...(push ? planned.map((event): Step => ({ at: event.pushAt, kind: 'push', event })) : []),
    ...tickTimes(options).map((at): Step => ({ at, kind: 'tick' })),
  ].sort((a, b) => a.at - b.at || STEP_ORDER[a.kind] - STEP_ORDER[b.kind]);
  let ticks = 0;
  let accepted = 0;
  let woken = 0;
  try {
    for (const step of steps) {
      clock.skipTo(step.at);
      if (step.kind === 'create') {
        const stored = sim.addEvent(
          { groupId: step.event.project },
          {
            eventTypeName: step.event.type,
            created: new Date(step.event.created).toISOString().replace('.000Z', 'Z'),
            hostname: step.event.hostname,
            username: 'ops@example.com',
          },
        );
        ids.set(step.event, String(stored.id));
      } else if (step.kind === 'push') {
        const id = ids.get(step.event) as string;
        postedAt.set(id, clock.now());
        const status = await sender.push({
          eventTypeName: step.event.type,
          groupId: step.event.project,
          orgId: ORG_ID,
          created: new Date(step.event.created).toISOString(),
        });
        if (status === 202) accepted += 1;
        // The worker takes the queued source at once (SQS's hand-over is not in the figures).
        for (let batch = queue.receive(10); batch.Records.length > 0; batch = queue.receive(10)) {
          woken += batch.Records.length;
          const result = await pollSourceBatch({
            event: batch,
            queue,
            logger: silentLogger,
            standing: (message) => configured.standing(message),
            poll: (sources, wokenSources) => tick(sources, wokenSources),
          });
          queue.complete(batch, result.response);
        }
      } else {
        ticks += 1;
        await tick();
      }
    }
  } finally {
    await server?.close();
  }
  const latencies: number[] = [];
  const handling: number[] = [];
  for (const event of planned) {
    const id = ids.get(event) as string;
    const published = notifier.published.get(id);
    if (published === undefined) continue;
    latencies.push(published.at - event.created);
    const posted = postedAt.get(id);
    if (published.by === 'push' && posted !== undefined) handling.push(published.at - posted);
  }
  return { latencies, handling, ticks, accepted, woken };
}

/**
 * Runs both paths over the same planned events and reports their latency percentiles.
 *
 * @throws Error when DynamoDB Local cannot be started, or a path fails.
 * @example
 * ```ts
 * const result = await runPushLatencyBenchmark({ events: 200, projects: 20, spanMinutes: 100,
 *   scheduleMinutes: 5, lagSeconds: 30, senderDelayMs: { min: 1_000, max: 5_000 } });
 * ```
 */
export async function runPushLatencyBenchmark(
  given: PushLatencyBenchOptions = {},
): Promise<PushLatencyBenchResult> {
  const { dynamoDbEndpoint, ...sizes } = given;
  const options: LatencySettings = { ...PUSH_LATENCY_DEFAULTS, ...sizes };
  const pack = await loadRulePack({ paths: [fileURLToPath(new URL('../rules/', import.meta.url))] });
  const dynamoDb = await openBenchDynamoDb(dynamoDbEndpoint);
  const client = createDynamoDbLocalClient(dynamoDb.endpoint);
  try {
    const pushWorld = await openWorld(options, pack, client, 'push');
    const scheduledWorld = await openWorld(options, pack, client, 'scheduled');
    try {
      const planned = planEvents(
        options,
        pushWorld.sources.map((source) => source.id),
        createRandom(options.seed),
      );
      const pushed = await runPath(pushWorld, options, planned, true);
      const scheduled = await runPath(scheduledWorld, options, planned, false);
      const pushLatency = summarize(pushed.latencies);
      const handling = summarize(pushed.handling);
      const byPush = [...pushWorld.notifier.published.values()].filter((entry) => entry.by === 'push').length;
      return {
        events: options.events,
        projects: pushWorld.sources.length,
        spanMinutes: options.spanMinutes,
        scheduleMinutes: options.scheduleMinutes,
        lagSeconds: options.lagSeconds,
        senderDelayMs: options.senderDelayMs,
        eventTypes: LATENCY_EVENT_TYPES,
        push: {
          ...pushLatency,
          pushesAccepted: pushed.accepted,
          wokenPolls: pushed.woken,
          alertedByPush: byPush,
          handlingP50Ms: handling.p50Ms,
          handlingP95Ms: handling.p95Ms,
        },
        scheduled: { ...summarize(scheduled.latencies), ticks: scheduled.ticks },
        target: {
          pushP95Ms: PUSH_P95_TARGET_MS,
          met:
            pushLatency.alerted === options.events &&
            scheduled.latencies.length === options.events &&
            pushLatency.p95Ms < PUSH_P95_TARGET_MS,
        },
      };
    } finally {
      await closeWorld(pushWorld);
      await closeWorld(scheduledWorld);
    }
  } finally {
    client.destroy();
    await dynamoDb.release();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}

/**
 * The result as a table: one row per path.
 *
 * @example
 * ```ts
 * process.stdout.write(pushLatencyTable(result));
 * ```
 */
export function pushLatencyTable(result: PushLatencyBenchResult): string {
  const { push, scheduled } = result;
  return renderTable(
    ['path', 'alerted', 'p50', 'p95', 'max', 'how'],
    [
      [
        'push',
        `${push.alerted} of ${result.events}`,
        seconds(push.p50Ms),
        seconds(push.p95Ms),
        seconds(push.maxMs),
        `${push.pushesAccepted} pushes, ${push.wokenPolls} woken polls; ${push.alertedByPush} alerts by a woken poll, handled in ${push.handlingP50Ms} ms p50 / ${push.handlingP95Ms} ms p95 after the post`,
      ],
      [
        'schedule',
        `${scheduled.alerted} of ${result.events}`,
        seconds(scheduled.p50Ms),
        seconds(scheduled.p95Ms),
        seconds(scheduled.maxMs),
        `${scheduled.ticks} ticks, every ${result.scheduleMinutes} min, lag ${result.lagSeconds} s`,
      ],
    ],
  );
}
