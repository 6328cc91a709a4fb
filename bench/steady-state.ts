import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { startBenchSimulator } from './support/bench-simulator.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import { startPollerProcess } from './support/poller-process.js';
import { renderTable } from './support/table.js';
import { checkTick } from './support/tick-check.js';

/**
 * The steady state: `sources` project sources whose cursors a first tick has set, polled again with
 * no new event. Each project holds a few events of the last minutes, inside the overlap every tick
 * reads again, so the second tick lists them and drops them as already processed: what a quiet
 * deployment does every few minutes. Only the second tick is counted.
 *
 * Targets: one Atlas request per source (its one page; the Digest nonce of the first tick is reused)
 * and at most three DynamoDB requests per source.
 */

export interface SteadyStateBenchOptions {
  /** Default 200. */
  sources?: number;
  /** Events per project inside the overlap, already processed by the first tick. Default 5. */
  eventsPerSource?: number;
  /** DynamoDB Local to use; by default the benchmark starts its own. */
  dynamoDbEndpoint?: string;
}

export interface SteadyStateBenchResult {
  sources: number;
  /** Events the second tick listed again (all processed before). */
  eventsFetched: number;
  /** Events new to the second tick: 0 when the cursors work. */
  eventsNew: number;
  durationMs: number;
  /** CPU time of the poller's process during the second tick, in milliseconds. */
  cpuMs: number;
  atlas: {
    /** HTTP requests the simulator received during the second tick. */
    requests: number;
    challenges: number;
    perSource: number;
    target: number;
    met: boolean;
  };
  dynamoDb: {
    requests: number;
    byOperation: Readonly<Record<string, number>>;
    perSource: number;
    target: number;
    met: boolean;
  };
}

const MINUTE_MS = 60_000;
const ATLAS_TARGET = 1;
const DYNAMODB_TARGET = 3;

/**
 * Runs the steady-state scenario.
 *
 * @throws Error when a tick does not end `ok` for every source, or a child process fails.
 * @example
 * ```ts
 * const result = await runSteadyStateBenchmark({ sources: 200 });
 * ```
 */
export async function runSteadyStateBenchmark(
  options: SteadyStateBenchOptions = {},
): Promise<SteadyStateBenchResult> {
  const sources = options.sources ?? 200;
  const eventsPerSource = options.eventsPerSource ?? 5;
  const sim = await startBenchSimulator();
  const dynamoDb = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const workDirectory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-steady-'));
  try {
    const generated = await sim.generateEvents({
      count: sources * eventsPerSource,
      projects: sources,
      seed: 11,
      endMs: Date.now() - 2 * MINUTE_MS,
      spanMs: 5 * MINUTE_MS,
    });
    const poller = await startPollerProcess({
      atlas: { baseUrl: sim.baseUrl, ...sim.credentials },
      projectIds: generated.projectIds,
      dynamoDbEndpoint: dynamoDb.endpoint,
      tableName: uniqueTableName('bench-steady'),
      outboxPath: join(workDirectory, 'outbox.jsonl'),
      timing: { initialLookbackSeconds: 3_600 },
    });
    try {
      checkTick((await poller.tick()).summary, { tick: 'first steady-state' });
      // Windows end on whole seconds: the next tick must start in a later second to have anything to read.
      await sleep(1_100);
      await sim.resetCounters();
      const report = await poller.tick();
      const counters = await sim.counters();
      const { summary } = report;
      checkTick(summary, { tick: 'second steady-state' });
      const atlasPerSource = round(counters.requests / sources);
      const dynamoDbPerSource = round(summary.totals.stateRequests / sources);
      return {
        sources,
        eventsFetched: summary.totals.eventsFetched,
        eventsNew: summary.totals.eventsNew,
        durationMs: summary.durationMs,
        cpuMs: Math.round(report.cpuMs),
        atlas: {
          requests: counters.requests,
          challenges: counters.challenges,
          perSource: atlasPerSource,
          target: ATLAS_TARGET,
          met: atlasPerSource <= ATLAS_TARGET,
        },
        dynamoDb: {
          requests: summary.totals.stateRequests,
          byOperation: report.stateRequestsByOperation,
          perSource: dynamoDbPerSource,
          target: DYNAMODB_TARGET,
          met: dynamoDbPerSource <= DYNAMODB_TARGET,
        },
      };
    } finally {
      await poller.close();
    }
  } finally {
    await sim.close();
    await dynamoDb.release();
    await rm(workDirectory, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The steady-state scenario as a table. */
export function steadyStateTable(result: SteadyStateBenchResult): string {
  return renderTable(
    ['steady state', 'sources', 'events re-read', 'new', 'tick s', 'Atlas req/source', 'DynamoDB req/source'],
    [
      [
        'second tick, no new event',
        String(result.sources),
        result.eventsFetched.toLocaleString('en-US'),
        String(result.eventsNew),
        (result.durationMs / 1000).toFixed(1),
        result.atlas.perSource.toFixed(3),
        result.dynamoDb.perSource.toFixed(3),
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runSteadyStateBenchmark();
  process.stdout.write(steadyStateTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'steady-state', ...result })}\n`);
}
