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
  listTickSources,
  orderSources,
  type PollerConfig,
  ProjectDiscoveryCache,
  pollerConfigSchema,
  runTick,
  type SourceOutcome,
  type TickDependencies,
} from '../shared/poll/index.js';
import { createRuleEngine, loadRulePack, type RulePack } from '../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../shared/state/index.js';
import { createDynamoDbLocalClient } from '../test/support/dynamodb-local.js';
import { startBenchSimulator } from './support/bench-simulator.js';
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
 * Made to run 10,000 sources on a small machine: the simulator runs in a process of its own, both
 * modes share one table on one DynamoDB Local (the run's, when given), and SNS stands outside (every
 * alert is taken at once). Everything else runs in this one process, so the workers share its CPU
 * where Lambda gives each its own: the measured fan-out time is a pessimistic bound, and
 * `fanOutOwnCpuTickMs` computes the other bound (the single tick's cost per source spread over the
 * workers).
 */
export interface FanOutBenchOptions {
  /** Default 10,000. */
  sources?: number;
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
}

export interface FanOutBenchResult {
  sources: number;
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
  const workers = options.workers ?? 8;
  const batchSize = options.batchSize ?? 10;
  const concurrency = options.concurrency ?? 4;
  const latencyMs = options.latencyMs ?? { min: 50, max: 150 };
  const seed = options.seed ?? 5;
  const stage = options.onStage ?? (() => {});
  const sim = await startBenchSimulator();
  const dynamoDbLocal = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const dynamoDb = createDynamoDbLocalClient(dynamoDbLocal.endpoint);
  try {
    stage(`generating ${sources} projects`);
    const now = Date.now();
    const generated = await sim.generateEvents({
      count: sources * (options.eventsPerSource ?? 2),
      projects: sources,
      seed,
      spanMs: 5 * MINUTE_MS,
      endMs: now - 2 * MINUTE_MS,
    });
    const pack = await loadRulePack({ paths: [RULES] });
    const config = pollerConfigSchema.parse({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources: { projectIds: generated.projectIds },
      concurrency,
      timing: { initialLookbackSeconds: 3_600 },
    });
    const tableName = uniqueTableName('fan-out-bench');
    await createStateTable({ client: dynamoDb, tableName });
    const context = { sim, dynamoDb, pack, tableName };

    stage('setup tick (sets every cursor, no latency)');
    const single = dependencies(context);
    const setup = await timed(() =>
      runTick(single, { config: { ...config, concurrency: SETUP_CONCURRENCY }, owner: 'bench-setup' }),
    );
    const setupCheck = checkOutcomes(setup.value.sources, generated.projectIds.length);
    if (setupCheck.polledOnceOk !== sources) {
      throw new Error(
        `the setup tick read ${setupCheck.polledOnceOk} of ${sources} sources to the end: the timed ticks would not be idle`,
      );
    }

    stage(`setup tick took ${seconds(setup.ms)} s`);
    await nextSecond();
    await sim.setFaults({ seed, probabilities: { latency: 1 }, latencyMs: latencyMs });
    stage(`single invocation, concurrency ${concurrency}`);
    const singleTick = await measured(sim, () =>
      runTick(single, { config, owner: 'bench-single' }).then((summary) => summary.sources),
    );

    stage(`single invocation took ${seconds(singleTick.ms)} s`);
    await nextSecond();
    stage(`fan-out, ${workers} workers`);
    const fanned = await measured(sim, () => fanOutTick({ ...context, config, workers, batchSize }));
    await sim.setFaults(undefined);
    stage(`fan-out took ${seconds(fanned.ms)} s`);

    const singleResult = modeResult(singleTick, sources);
    const dispatchMs = fanned.value.dispatchMs;
    return {
      sources,
      workers,
      batchSize,
      concurrency,
      latencyMs,
      setupMs: setup.ms,
      single: singleResult,
      fanOut: {
        ...modeResult({ ...fanned, value: fanned.value.outcomes }, sources),
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
}

/** A poller's (or a worker's) own Atlas client and store on the shared table. */
function dependencies(
  context: BenchContext,
): TickDependencies & { atlas: AtlasClient; store: DynamoDbStateStore } {
  const store = new DynamoDbStateStore({ client: context.dynamoDb, tableName: context.tableName });
  return {
    atlas: new AtlasClient({
      baseUrl: context.sim.baseUrl,
      credentials: { kind: 'digest', ...context.sim.credentials },
    }),
    store,
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
}> {
  const queue = new InMemorySourceQueue();
  const dispatcher = dependencies(options);
  const started = performance.now();
  const { sources } = await listTickSources({ atlas: dispatcher.atlas, config: options.config });
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
    for (let event = queue.receive(options.batchSize); event.Records.length > 0; ) {
      batches += 1;
      const configured = new ConfiguredSources({
        sources: options.config.sources,
        atlas: deps.atlas,
        cache: new ProjectDiscoveryCache(),
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
  return { outcomes, dispatchMs, batches, redelivered, deadLetters: queue.deadLetters.length };
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

function modeResult(tick: Measured<SourceOutcome[]>, sources: number): FanOutModeResult {
  const { polledOnceOk, otherOutcomes } = checkOutcomes(tick.value, sources);
  return {
    tickMs: tick.ms,
    perSourceMs: round(tick.ms / sources),
    cpuMs: tick.cpuMs,
    polledOnceOk,
    otherOutcomes,
    atlas: tick.atlas,
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
    },
  });
  const begun = performance.now();
  const options: FanOutBenchOptions = {
    onStage: (name) => process.stderr.write(`[${seconds(performance.now() - begun)} s] ${name}\n`),
  };
  for (const name of ['sources', 'workers', 'batchSize', 'concurrency'] as const) {
    const given = values[name];
    if (given === undefined) continue;
    const number = Number(given);
    if (!Number.isInteger(number) || number < 1) {
      console.error(`--${name} must be a whole number of at least 1, not "${given}"`);
      process.exit(2);
    }
    options[name] = number;
  }
  const result = await runFanOutBenchmark(options);
  console.log(fanOutTable(result));
  console.log(JSON.stringify(result, null, 2));
}
