import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AtlasClient } from '../shared/atlas/index.js';
import { systemClock } from '../shared/clock.js';
import {
  ConfiguredSources,
  InMemorySourceQueue,
  pollSourceBatch,
  queuedSources,
} from '../shared/fan-out/index.js';
import type { Notifier } from '../shared/notify/index.js';
import {
  type ConnectionClients,
  DiscoveryCache,
  effectiveConnections,
  listTickSources,
  orderSources,
  type PollerConfig,
  pollerConfigSchema,
  runTick,
  type SourceOutcome,
  type TickDependencies,
} from '../shared/poll/index.js';
import { createRuleEngine, loadRulePack, type RulePack } from '../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../shared/state/index.js';
import { createDynamoDbLocalClient } from '../test/support/dynamodb-local.js';
import {
  type BenchOrganization,
  benchOrganizations,
  startBenchSimulator,
} from './support/bench-simulator.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import type { SimulatorProcess } from './support/simulator-process.js';
import { renderTable } from './support/table.js';

/**
 * Fan-out against one invocation, both measured: `sources` project sources behind an Atlas with
 * realistic latency (every request answered after 50–150 ms, drawn from a seeded generator), each
 * holding a few events already processed (an idle estate: every tick reads its overlap again and
 * finds nothing new). A first tick without latency sets every cursor; then one tick at
 * `concurrency` (the single poller) and one fan-out tick (the dispatcher's path: list the sources,
 * order them oldest-waiting first, queue one message each; then `workers` workers taking batches of
 * `batchSize` from an in-memory FIFO queue, each polling its batch at `concurrency`) are timed on
 * the same table.
 *
 * With `connections`, the estate is that many organizations, each polled whole (`allProjectsOfOrgs`)
 * through a connection of its own with an API key of its own, as a deployment that watches many
 * organizations is: `sources` counts the organizations and their projects. The dispatcher lists each
 * connection's sources with its key, and each worker polls with the key its messages name.
 *
 * Made to run 10,000 sources on a small machine: the simulator runs in a process of its own, both
 * modes share one table on one DynamoDB Local (the run's, when given), and SNS stands outside (every
 * alert is taken at once). Everything else runs in this one process, so the workers share its CPU
 * where Lambda gives each its own: the measured fan-out time is a pessimistic bound, and
 * `fanOutOwnCpuTickMs` computes the other bound (the single tick's cost per source spread over the
 * workers).
 */
export interface FanOutBenchOptions {
  /** Default 10,000: projects, and with `connections` the organizations too. */
  sources?: number;
  /**
   * Organizations, each a connection with its own credentials that polls it whole. Default 0: the
   * sources are projects named in the top-level settings, polled with one key.
   */
  connections?: number;
  /** Default 8. */
  workers?: number;
  /** Default 10 (the FIFO limit). */
  batchSize?: number;
  /** Sources polled at once by the single tick and by each worker. Default 4. */
  concurrency?: number;
  /** Events per project inside the overlap, processed by the first tick. Default 2. */
  eventsPerSource?: number;
  /** Each Atlas request's delay in the timed ticks. Default 50 to 150 ms. */
  latencyMs?: { min: number; max: number };
  /** Seeds the events and the latency. Default 5. */
  seed?: number;
  dynamoDbEndpoint?: string;
  /** Told when a stage starts, for progress lines. */
  onStage?: (stage: string) => void;
}

/** One timed tick. */
export interface FanOutModeResult {
  tickMs: number;
  /** Wall time per source: what one idle source costs the tick. */
  perSourceMs: number;
  /** CPU time of this process (pollers, workers, queue; not the simulator or DynamoDB Local). */
  cpuMs: number;
  /** Sources the tick polled exactly once and read to the end (`ok`). */
  polledOnceOk: number;
  /** Outcomes other than one `ok` per source: duplicates, failures, skips. */
  otherOutcomes: number;
  atlas: { requests: number; challenges: number };
  /** DynamoDB requests of the tick: every store's (the dispatcher's and each worker's included). */
  dynamoDbRequests: number;
}

export interface FanOutBenchResult {
  sources: number;
  /** Connections, each with its own organization and key; 0 for the top-level settings alone. */
  connections: number;
  workers: number;
  batchSize: number;
  concurrency: number;
  latencyMs: { min: number; max: number };
  /** The untimed first tick that sets the cursors. */
  setupMs: number;
  single: FanOutModeResult;
  fanOut: FanOutModeResult & {
    /** Listing, ordering and queueing the sources. */
    dispatchMs: number;
    batches: number;
    redelivered: number;
    deadLetters: number;
  };
  /** The single tick over the fan-out tick, both measured. */
  speedup: number;
  /**
   * Computed, not measured: each worker with a CPU of its own, as in Lambda: the dispatch plus the
   * single tick's time per source spread over the workers.
   */
  fanOutOwnCpuTickMs: number;
}

const RULES = fileURLToPath(new URL('../rules/', import.meta.url));
const MINUTE_MS = 60_000;
/** The setup tick runs without latency; this many sources at once keeps it short. */
const SETUP_CONCURRENCY = 64;
/** SNS stands outside what is measured: every alert is taken at once. */
const silentNotifier: Notifier = {
  publish: async (alerts) =>
    alerts.map((alert) => ({ status: 'sent' as const, fingerprint: alert.fingerprint })),
};
const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Runs the fan-out scenario.
 *
 * @throws Error when the setup tick leaves a source not `ok`, or a message is left in the queue.
 * @example
 * ```ts
 * const result = await runFanOutBenchmark({ sources: 10_000, workers: 8 });
 * ```
 */
export async function runFanOutBenchmark(options: FanOutBenchOptions = {}): Promise<FanOutBenchResult> {
  const sources = options.sources ?? 10_000;
  const connections = options.connections ?? 0;
  if (connections > 0 && sources < 2 * connections) {
    throw new Error(
      `${connections} connections need at least ${2 * connections} sources (an organization and a project each)`,
    );
  }
  const workers = options.workers ?? 8;
  const batchSize = options.batchSize ?? 10;
  const concurrency = options.concurrency ?? 4;
  const latencyMs = options.latencyMs ?? { min: 50, max: 150 };
  const seed = options.seed ?? 5;
  const stage = options.onStage ?? (() => {});
  const sim = await startBenchSimulator({ organizations: Math.max(1, connections) });
  const organizations = connections === 0 ? [] : benchOrganizations(connections);
  const dynamoDbLocal = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const dynamoDb = createDynamoDbLocalClient(dynamoDbLocal.endpoint);
  try {
    const projects = sources - connections;
    stage(
      connections === 0
        ? `generating ${projects} projects`
        : `generating ${projects} projects in ${connections} organizations, one connection each`,
    );
    const now = Date.now();
    const generated = await sim.generateEvents({
      count: projects * (options.eventsPerSource ?? 2),
      projects,
      seed,
      spanMs: 5 * MINUTE_MS,
      endMs: now - 2 * MINUTE_MS,
      ...(connections === 0 ? {} : { orgIds: organizations.map((org) => org.id) }),
    });
    const pack = await loadRulePack({ paths: [RULES] });
    const config = pollerConfigSchema.parse({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources: { projectIds: connections === 0 ? generated.projectIds : [] },
      ...(connections === 0
        ? {}
        : {
            connections: organizations.map((org) => ({
              name: connectionName(org),
              baseUrl: sim.baseUrl,
              sources: { orgIds: [org.id], allProjectsOfOrgs: true },
            })),
          }),
      concurrency,
      timing: { initialLookbackSeconds: 3_600 },
    });
    const tableName = uniqueTableName('fan-out-bench');
    await createStateTable({ client: dynamoDb, tableName });
    const context: BenchContext = {
      sim,
      dynamoDb,
      pack,
      tableName,
      organizations,
      discoveryCache: new DiscoveryCache(),
    };

    stage('setup tick (sets every cursor, no latency)');
    const single = dependencies(context);
    const setup = await timed(() =>
      runTick(single, { config: { ...config, concurrency: SETUP_CONCURRENCY }, owner: 'bench-setup' }),
    );
    const setupCheck = checkOutcomes(setup.value.sources, sources);
    if (setupCheck.polledOnceOk !== sources) {
      throw new Error(
        `the setup tick read ${setupCheck.polledOnceOk} of ${sources} sources to the end: the timed ticks would not be idle`,
      );
    }

    stage(`setup tick took ${seconds(setup.ms)} s`);
    await nextSecond();
    await sim.setFaults({ seed, probabilities: { latency: 1 }, latencyMs: latencyMs });
    stage(`single invocation, concurrency ${concurrency}`);
    const singleStore = single.store.stats().total;
    const singleTick = await measured(sim, () =>
      runTick(single, { config, owner: 'bench-single' }).then((summary) => summary.sources),
    );
    const singleDynamoDb = single.store.stats().total - singleStore;

    stage(`single invocation took ${seconds(singleTick.ms)} s`);
    await nextSecond();
    stage(`fan-out, ${workers} workers`);
    const fanned = await measured(sim, () => fanOutTick({ ...context, config, workers, batchSize }));
    await sim.setFaults(undefined);
    stage(`fan-out took ${seconds(fanned.ms)} s`);

    const singleResult = modeResult(singleTick, sources, singleDynamoDb);
    const dispatchMs = fanned.value.dispatchMs;
    return {
      sources,
      connections,
      workers,
      batchSize,
      concurrency,
      latencyMs,
      setupMs: setup.ms,
      single: singleResult,
      fanOut: {
        ...modeResult({ ...fanned, value: fanned.value.outcomes }, sources, fanned.value.dynamoDbRequests),
        dispatchMs,
        batches: fanned.value.batches,
        redelivered: fanned.value.redelivered,
        deadLetters: fanned.value.deadLetters,
      },
      speedup: round(singleTick.ms / Math.max(1, fanned.ms)),
      fanOutOwnCpuTickMs: Math.round(dispatchMs + singleTick.ms / workers),
    };
  } finally {
    await sim.setFaults(undefined).catch(() => {});
    await sim.close();
    dynamoDb.destroy();
    await dynamoDbLocal.release();
  }
}

interface BenchContext {
  sim: SimulatorProcess;
  dynamoDb: DynamoDBClient;
  pack: RulePack;
  tableName: string;
  /** One connection each; none when the sources are the top-level settings'. */
  organizations: readonly BenchOrganization[];
  /**
   * The organizations' projects as the setup tick listed them, kept across ticks as the poller's and
   * the dispatcher's containers keep theirs: an idle tick lists none again.
   */
  discoveryCache: DiscoveryCache;
}

function connectionName(org: BenchOrganization): string {
  return `org-${org.id.slice(-6)}`;
}

/**
 * A poller's (or a worker's) own Atlas clients and store on the shared table: one client with the
 * key that owns every organization, or with connections, one per connection with its own key, made
 * when the connection is first polled (as the Lambda reads a connection's secret).
 */
function dependencies(context: BenchContext): TickDependencies & {
  atlas: AtlasClient | ConnectionClients;
  store: DynamoDbStateStore;
  discoveryCache: DiscoveryCache;
  clientOf(connection: string): AtlasClient;
} {
  const store = new DynamoDbStateStore({ client: context.dynamoDb, tableName: context.tableName });
  const keys = new Map(context.organizations.map((org) => [connectionName(org), org.credentials]));
  const clients = new Map<string, AtlasClient>();
  const clientOf = (connection: string): AtlasClient => {
    let client = clients.get(connection);
    if (client === undefined) {
      const credentials = keys.get(connection) ?? context.sim.credentials;
      client = new AtlasClient({
        baseUrl: context.sim.baseUrl,
        credentials: { kind: 'digest', ...credentials },
      });
      clients.set(connection, client);
    }
    return client;
  };
  return {
    atlas:
      context.organizations.length === 0
        ? clientOf('default')
        : async (connection) => clientOf(connection.name),
    clientOf,
    store,
    discoveryCache: context.discoveryCache,
    engine: createRuleEngine({ pack: context.pack, counters: store, firstSeen: store, clock: systemClock }),
    notifier: silentNotifier,
    clock: systemClock,
  };
}

/**
 * One dispatch as the dispatcher does it (list, order oldest-waiting first, queue) and the workers
 * draining the queue, each worker with its own Atlas client and store, as separate invocations have.
 */
async function fanOutTick(
  options: BenchContext & { config: PollerConfig; workers: number; batchSize: number },
): Promise<{
  outcomes: SourceOutcome[];
  dispatchMs: number;
  batches: number;
  redelivered: number;
  deadLetters: number;
  dynamoDbRequests: number;
}> {
  const queue = new InMemorySourceQueue();
  const dispatcher = dependencies(options);
  const stores = [dispatcher.store];
  const started = performance.now();
  const { sources } = await listTickSources({
    atlas: dispatcher.atlas,
    config: options.config,
    discoveryCache: dispatcher.discoveryCache,
  });
  const order = await orderSources({ store: dispatcher.store, sources, concurrency: 1, logger: quietLogger });
  await queue.send(
    queuedSources({
      sources: order.sources,
      tickAt: Date.now(),
      maxConcurrencyPerOrg: options.workers,
    }),
  );
  const dispatchMs = Math.round(performance.now() - started);
  const outcomes: SourceOutcome[] = [];
  let batches = 0;
  let redelivered = 0;
  const worker = async (index: number): Promise<void> => {
    const deps = dependencies(options);
    stores.push(deps.store);
    // A worker is a container of its own: it learns the organizations' projects once, when it first
    // checks a message of one of them.
    const discoveryCache = new DiscoveryCache();
    for (let event = queue.receive(options.batchSize); event.Records.length > 0; ) {
      batches += 1;
      const configured = new ConfiguredSources({
        connections: effectiveConnections(options.config),
        atlas: deps.clientOf,
        cache: discoveryCache,
        clock: systemClock,
      });
      const result = await pollSourceBatch({
        event,
        queue,
        logger: quietLogger,
        standing: (message) => configured.standing(message),
        poll: (batch) =>
          runTick(deps, { config: options.config, owner: `bench-worker-${index}`, sources: batch }),
      });
      outcomes.push(...(result.summary?.sources ?? []));
      redelivered += result.response.batchItemFailures.length;
      queue.complete(event, result.response);
      event = queue.receive(options.batchSize);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  if (queue.depth > 0) throw new Error(`${queue.depth} source messages were left in the queue`);
  return {
    outcomes,
    dispatchMs,
    batches,
    redelivered,
    deadLetters: queue.deadLetters.length,
    dynamoDbRequests: stores.reduce((sum, store) => sum + store.stats().total, 0),
  };
}

interface Measured<T> {
  value: T;
  ms: number;
  cpuMs: number;
  atlas: { requests: number; challenges: number };
}

/** Runs one timed tick: its wall and CPU time, and the Atlas requests the simulator received. */
async function measured<T>(sim: SimulatorProcess, run: () => Promise<T>): Promise<Measured<T>> {
  await sim.resetCounters();
  const cpu = process.cpuUsage();
  const { value, ms } = await timed(run);
  const used = process.cpuUsage(cpu);
  const counters = await sim.counters();
  return {
    value,
    ms,
    cpuMs: Math.round((used.user + used.system) / 1_000),
    atlas: { requests: counters.requests, challenges: counters.challenges },
  };
}

function modeResult(
  tick: Measured<SourceOutcome[]>,
  sources: number,
  dynamoDbRequests: number,
): FanOutModeResult {
  const { polledOnceOk, otherOutcomes } = checkOutcomes(tick.value, sources);
  return {
    tickMs: tick.ms,
    perSourceMs: round(tick.ms / sources),
    cpuMs: tick.cpuMs,
    polledOnceOk,
    otherOutcomes,
    atlas: tick.atlas,
    dynamoDbRequests,
  };
}

/** How many sources ended `ok` exactly once, and how many outcomes were anything else. */
function checkOutcomes(
  outcomes: readonly SourceOutcome[],
  sources: number,
): { polledOnceOk: number; otherOutcomes: number } {
  const okCount = new Map<string, number>();
  for (const outcome of outcomes) {
    if (outcome.status === 'ok') okCount.set(outcome.source, (okCount.get(outcome.source) ?? 0) + 1);
  }
  const polledOnceOk = [...okCount.values()].filter((count) => count === 1).length;
  return { polledOnceOk: Math.min(polledOnceOk, sources), otherOutcomes: outcomes.length - polledOnceOk };
}

/**
 * Waits past the current second: a source whose watermark is within this second has nothing to read
 * (its window would end at its watermark) and the tick only releases it, which no deployment polling
 * every few minutes sees. Outside what is timed.
 */
async function nextSecond(): Promise<void> {
  await sleep(1_100);
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: Math.round(performance.now() - started) };
}

function seconds(ms: number): string {
  return (ms / 1_000).toFixed(1);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The result as a table. */
export function fanOutTable(result: FanOutBenchResult): string {
  const count = (value: number): string => value.toLocaleString('en-US');
  const row = (mode: string, tick: FanOutModeResult): string[] => [
    mode,
    count(result.sources),
    seconds(tick.tickMs),
    tick.perSourceMs.toFixed(1),
    (tick.cpuMs / result.sources).toFixed(1),
    count(tick.polledOnceOk),
    count(tick.atlas.requests),
    (tick.atlas.requests / result.sources).toFixed(3),
    (tick.dynamoDbRequests / result.sources).toFixed(3),
  ];
  return renderTable(
    [
      'mode',
      'sources',
      'tick (s)',
      'wall per source (ms)',
      'CPU per source (ms)',
      'polled once, ok',
      'Atlas requests',
      'Atlas req per source',
      'DynamoDB req per source',
    ],
    [
      row(`single invocation, concurrency ${result.concurrency}`, result.single),
      row(`fan-out, ${result.workers} workers in this process`, result.fanOut),
      [
        `fan-out, ${result.workers} workers with a CPU each (computed)`,
        count(result.sources),
        seconds(result.fanOutOwnCpuTickMs),
        '',
        '',
        '',
        '',
        '',
        '',
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      sources: { type: 'string' },
      workers: { type: 'string' },
      batchSize: { type: 'string' },
      concurrency: { type: 'string' },
      connections: { type: 'string' },
    },
  });
  const begun = performance.now();
  const options: FanOutBenchOptions = {
    onStage: (name) => process.stderr.write(`[${seconds(performance.now() - begun)} s] ${name}\n`),
  };
  for (const name of ['sources', 'workers', 'batchSize', 'concurrency', 'connections'] as const) {
    const given = values[name];
    if (given === undefined) continue;
    const number = Number(given);
    const least = name === 'connections' ? 0 : 1;
    if (!Number.isInteger(number) || number < least) {
      console.error(`--${name} must be a whole number of at least ${least}, not "${given}"`);
      process.exit(2);
    }
    options[name] = number;
  }
  const result = await runFanOutBenchmark(options);
  console.log(fanOutTable(result));
  console.log(JSON.stringify(result, null, 2));
}
