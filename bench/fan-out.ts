import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AtlasClient } from '../shared/atlas/index.js';
import { systemClock } from '../shared/clock.js';
import { InMemorySourceQueue, pollSourceBatch, queuedSources } from '../shared/fan-out/index.js';
import type { Notifier } from '../shared/notify/index.js';
import {
  listTickSources,
  type PollerConfig,
  pollerConfigSchema,
  runTick,
  type TickDependencies,
} from '../shared/poll/index.js';
import { createRuleEngine, loadRulePack, type RulePack } from '../shared/rules/index.js';
import { createStateTable, DynamoDbStateStore } from '../shared/state/index.js';
import { startSimulator } from '../simulator/index.js';
import { createDynamoDbLocalClient } from '../test/support/dynamodb-local.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import { renderTable } from './support/table.js';

/**
 * Fan-out against one invocation: `sources` project sources behind an Atlas with realistic latency
 * (every request delayed 50–150 ms by the simulator, seeded), each holding a few events already
 * processed, polled by one tick at `concurrency` (the single poller) and by a dispatcher plus
 * `workers` workers taking batches of `batchSize` from an in-memory FIFO queue, each polling its
 * batch at `concurrency`. Each mode runs on its own table: a first tick sets the cursors, the second
 * (what a deployment does every few minutes) is timed.
 *
 * Everything runs in this one process, so the workers share this machine's CPU where Lambda would give
 * each its own: the measured fan-out time is a pessimistic bound. The 10,000-source figures are
 * computed, not measured: the measured time per source of each mode, times 10,000 (see `model`).
 */
export interface FanOutBenchOptions {
  /** Default 300. */
  sources?: number;
  /** Default 8. */
  workers?: number;
  /** Default 10 (the FIFO limit). */
  batchSize?: number;
  /** Sources polled at once by the single tick and by each worker. Default 4. */
  concurrency?: number;
  /** Sources the 10,000-source line is computed for. Default 10,000. */
  modelSources?: number;
  dynamoDbEndpoint?: string;
}

export interface FanOutBenchResult {
  sources: number;
  workers: number;
  batchSize: number;
  concurrency: number;
  single: { tickMs: number; perSourceMs: number };
  fanOut: { tickMs: number; dispatchMs: number; batches: number; redelivered: number };
  /** Computed from the measured per-source times: linear in sources, workers in parallel. */
  model: { sources: number; singleTickMs: number; fanOutTickMs: number; fanOutIdealTickMs: number };
}

const RULES = fileURLToPath(new URL('../rules/', import.meta.url));
/** SNS stands outside what is measured: every alert is taken at once. */
const silentNotifier: Notifier = {
  publish: async (alerts) =>
    alerts.map((alert) => ({ status: 'sent' as const, fingerprint: alert.fingerprint })),
};

/**
 * Runs the fan-out scenario.
 *
 * @throws Error when a source does not end `ok` in a timed tick.
 * @example
 * ```ts
 * const result = await runFanOutBenchmark({ sources: 300, workers: 8 });
 * ```
 */
export async function runFanOutBenchmark(options: FanOutBenchOptions = {}): Promise<FanOutBenchResult> {
  const sources = options.sources ?? 300;
  const workers = options.workers ?? 8;
  const batchSize = options.batchSize ?? 10;
  const concurrency = options.concurrency ?? 4;
  const modelSources = options.modelSources ?? 10_000;
  const sim = await startSimulator();
  const dynamoDbLocal = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const dynamoDb = createDynamoDbLocalClient(dynamoDbLocal.endpoint);
  try {
    const generated = sim.generateEvents({
      count: sources * 3,
      projects: sources,
      seed: 17,
      spanMs: 5 * 60_000,
      endMs: sim.startedAt - 2 * 60_000,
    });
    const pack = await loadRulePack({ paths: [RULES] });
    const config = pollerConfigSchema.parse({
      atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
      sources: { projectIds: generated.projectIds },
      concurrency,
      timing: { initialLookbackSeconds: 3_600 },
    });
    const latency = { seed: 5, probabilities: { latency: 1 }, latencyMs: { min: 50, max: 150 } };

    const singleDeps = await dependencies({ sim, dynamoDb, pack });
    await runTick(singleDeps, { config, owner: 'bench-single' });
    sim.setFaults(latency);
    const single = await timed(() => runTick(singleDeps, { config, owner: 'bench-single' }));
    assertOk(single.value.sources.map((outcome) => outcome.status));
    sim.setFaults();

    const table = await dependencies({ sim, dynamoDb, pack });
    await runTick(table, { config, owner: 'bench-fan-out' });
    sim.setFaults(latency);
    const fanOut = await timed(() =>
      fanOutTick({ sim, dynamoDb, pack, config, tableName: table.tableName, workers, batchSize }),
    );
    sim.setFaults();

    const singlePerSource = single.ms / sources;
    const fanOutPerSource = (fanOut.ms - fanOut.value.dispatchMs) / sources;
    const dispatchPerSource = fanOut.value.dispatchMs / sources;
    return {
      sources,
      workers,
      batchSize,
      concurrency,
      single: { tickMs: single.ms, perSourceMs: round(singlePerSource) },
      fanOut: {
        tickMs: fanOut.ms,
        dispatchMs: fanOut.value.dispatchMs,
        batches: fanOut.value.batches,
        redelivered: fanOut.value.redelivered,
      },
      model: {
        sources: modelSources,
        singleTickMs: Math.round(singlePerSource * modelSources),
        fanOutTickMs: Math.round((dispatchPerSource + fanOutPerSource) * modelSources),
        // Each worker on its own CPU, as in Lambda: the single tick's per-source time spread over the workers.
        fanOutIdealTickMs: Math.round((dispatchPerSource + singlePerSource / workers) * modelSources),
      },
    };
  } finally {
    sim.setFaults();
    await sim.stop();
    dynamoDb.destroy();
    await dynamoDbLocal.release();
  }
}

type Sim = Awaited<ReturnType<typeof startSimulator>>;

async function dependencies(options: {
  sim: Sim;
  dynamoDb: ReturnType<typeof createDynamoDbLocalClient>;
  pack: RulePack;
  tableName?: string;
}): Promise<TickDependencies & { tableName: string }> {
  const tableName = options.tableName ?? uniqueTableName('fan-out-bench');
  if (options.tableName === undefined) await createStateTable({ client: options.dynamoDb, tableName });
  const store = new DynamoDbStateStore({ client: options.dynamoDb, tableName });
  return {
    tableName,
    atlas: new AtlasClient({
      baseUrl: options.sim.baseUrl,
      credentials: { kind: 'digest', ...options.sim.credentials },
    }),
    store,
    engine: createRuleEngine({ pack: options.pack, counters: store, firstSeen: store, clock: systemClock }),
    notifier: silentNotifier,
    clock: systemClock,
  };
}

/** One dispatch and the workers draining the queue, each worker with its own client and store. */
async function fanOutTick(options: {
  sim: Sim;
  dynamoDb: ReturnType<typeof createDynamoDbLocalClient>;
  pack: RulePack;
  config: PollerConfig;
  tableName: string;
  workers: number;
  batchSize: number;
}): Promise<{ dispatchMs: number; batches: number; redelivered: number }> {
  const queue = new InMemorySourceQueue();
  const dispatcher = await dependencies({ ...options });
  const started = performance.now();
  const { sources } = await listTickSources({ atlas: dispatcher.atlas, config: options.config });
  await queue.send(
    queuedSources({ sources, tickStartedAt: Date.now(), maxConcurrencyPerOrg: options.workers }),
  );
  const dispatchMs = Math.round(performance.now() - started);
  let batches = 0;
  let redelivered = 0;
  const worker = async (index: number): Promise<void> => {
    const deps = await dependencies({ ...options });
    for (let event = queue.receive(options.batchSize); event.Records.length > 0; ) {
      batches += 1;
      const result = await pollSourceBatch({
        event,
        queue,
        logger: { debug() {}, info() {}, warn() {}, error() {} },
        poll: (batch) =>
          runTick(deps, { config: options.config, owner: `bench-worker-${index}`, sources: batch }),
      });
      redelivered += result.response.batchItemFailures.length;
      queue.complete(event, result.response);
      event = queue.receive(options.batchSize);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  if (queue.depth > 0) throw new Error(`${queue.depth} source messages were left in the queue`);
  return { dispatchMs, batches, redelivered };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: Math.round(performance.now() - started) };
}

function assertOk(statuses: readonly string[]): void {
  const bad = statuses.filter((status) => status !== 'ok');
  if (bad.length > 0)
    throw new Error(`${bad.length} sources did not end ok: ${[...new Set(bad)].join(', ')}`);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The result as a table. */
export function fanOutTable(result: FanOutBenchResult): string {
  const seconds = (ms: number): string => (ms / 1_000).toFixed(1);
  return renderTable(
    ['mode', 'sources', 'tick (s)', `${result.model.sources.toLocaleString('en')} sources (s, computed)`],
    [
      [
        'single invocation',
        String(result.sources),
        seconds(result.single.tickMs),
        seconds(result.model.singleTickMs),
      ],
      [
        `fan-out, ${result.workers} workers in this process`,
        String(result.sources),
        seconds(result.fanOut.tickMs),
        seconds(result.model.fanOutTickMs),
      ],
      [`fan-out, ${result.workers} workers with a CPU each`, '', '', seconds(result.model.fanOutIdealTickMs)],
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
  const options: FanOutBenchOptions = {};
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
