import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { clusterSource, type TickSummary } from '../shared/poll/index.js';
import type { SimulatorCounters } from '../simulator/index.js';
import { startBenchSimulator } from './support/bench-simulator.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import { type PollerProcess, type PollerTickReport, startPollerProcess } from './support/poller-process.js';
import type { SimulatorProcess } from './support/simulator-process.js';
import type { StateRequestOwner } from './support/state-requests-by-source.js';
import { renderTable } from './support/table.js';
import { checkTick } from './support/tick-check.js';

/**
 * The steady state: `sources` project sources whose cursors a first tick has set, polled again with
 * no new event. Each project holds a few events of the last minutes, inside the overlap every tick
 * reads again, so the second tick lists them and drops them as already processed: what a quiet
 * deployment does every few minutes. Only the second tick is counted.
 *
 * Each project also holds dedicated clusters, each with a few authentication attempts of the last
 * minutes in its access history. A first poller polls the projects alone (the figures above); a
 * second one, with `sources.accessHistory: true` and a table of its own, polls the same projects and
 * their clusters, each cluster a source of its own. In its second tick, Atlas requests are counted by
 * route, and DynamoDB requests by the kind of source whose items each names (see `requestShares`),
 * so that a cluster is compared with a project source of the same tick; what the clusters added to
 * the first poller's tick, by operation, is reported beside it.
 *
 * Targets: one Atlas request per source (its one page; the Digest nonce of the first tick is reused)
 * and at most three DynamoDB requests per source; per cluster, one Atlas request (its access history:
 * the cluster listing is kept across ticks) and no more DynamoDB requests than an idle events source.
 */

export interface SteadyStateBenchOptions {
  /** Default 200. */
  sources?: number;
  /** Events per project inside the overlap, already processed by the first tick. Default 5. */
  eventsPerSource?: number;
  /** Dedicated clusters per project, read by the poller with access history. Default 1. */
  clustersPerSource?: number;
  /** Access-history lines per cluster inside the overlap, already processed by the first tick. Default 5. */
  linesPerCluster?: number;
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
  /** The same idle tick with the projects' clusters polled too. */
  clusters: ClusterSteadyStateResult;
}

/** The second tick of the poller with `sources.accessHistory: true`: the projects and their clusters. */
export interface ClusterSteadyStateResult {
  /** Cluster sources polled (dedicated clusters), besides the `sources` project sources. */
  clusters: number;
  /** Access-history lines the second tick listed again (all processed before). */
  linesFetched: number;
  /** Lines new to the second tick: 0 when the cursors work. */
  linesNew: number;
  durationMs: number;
  /** CPU time of this poller's process during its second tick, in milliseconds. */
  cpuMs: number;
  atlas: {
    /** HTTP requests the simulator received during the tick, for every source. */
    requests: number;
    challenges: number;
    /** `GET /groups/{groupId}/events`: the project sources' own. */
    eventsReads: number;
    /** `GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}`. */
    accessHistoryReads: number;
    /** `GET /groups/{groupId}/clusters`: 0 while the listing of the first tick is kept. */
    clusterListings: number;
    /**
     * The same route in the first tick, which listed the clusters: one request per project, and the
     * Digest challenge of the poller's first request, a listing.
     */
    firstTickListings: number;
    /** Access-history reads and cluster listings, per cluster. */
    perCluster: number;
    target: number;
    met: boolean;
  };
  dynamoDb: {
    /** DynamoDB requests of the tick, for every source. */
    requests: number;
    byOperation: Readonly<Record<string, number>>;
    /**
     * The same requests by the kind of source whose items they name: the read of when each source
     * was last polled, which names them all, shared out among them; `other` (alerts, counters, names)
     * should be absent from an idle tick.
     */
    bySource: Readonly<Partial<Record<StateRequestOwner, number>>>;
    /** Requests for the cluster sources, per cluster. */
    perCluster: number;
    /** The target: requests for the project (events) sources of the same tick, per project source. */
    perEventsSource: number;
    met: boolean;
    /**
     * What the clusters added to the tick, by operation: its requests less those of the tick without
     * clusters. A cross-check of `bySource`: the part of the shared read the clusters bear, and any
     * batch more that their number makes the tick read, show here too.
     */
    addedByOperation: Readonly<Record<string, number>>;
  };
}

const MINUTE_MS = 60_000;
const ATLAS_TARGET = 1;
const DYNAMODB_TARGET = 3;
const CLUSTER_ATLAS_TARGET = 1;

/** The simulator's counter keys of the routes the clusters' tick uses. */
const STEADY_STATE_ROUTES = {
  events: 'GET /groups/{groupId}/events',
  accessHistory: 'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}',
  clusterListing: 'GET /groups/{groupId}/clusters',
} as const;

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
  const clustersPerSource = options.clustersPerSource ?? 1;
  const linesPerCluster = options.linesPerCluster ?? 5;
  if (!Number.isInteger(clustersPerSource) || clustersPerSource < 1) {
    throw new Error(`clustersPerSource must be a whole number of at least 1 (got ${clustersPerSource})`);
  }
  const sim = await startBenchSimulator();
  const dynamoDb = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const workDirectory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-steady-'));
  const pollers: PollerProcess[] = [];
  try {
    // The same last minutes for events and lines: inside the overlap the second tick reads again.
    const endMs = Date.now() - 2 * MINUTE_MS;
    const spanMs = 5 * MINUTE_MS;
    const generated = await sim.generateEvents({
      count: sources * eventsPerSource,
      projects: sources,
      seed: 11,
      endMs,
      spanMs,
    });
    const clusters = await addClusters(sim, generated.projectIds, {
      clustersPerSource,
      linesPerCluster,
      endMs,
      spanMs,
    });
    const start = async (name: string, accessHistory: boolean): Promise<PollerProcess> => {
      const poller = await startPollerProcess({
        atlas: { baseUrl: sim.baseUrl, ...sim.credentials },
        projectIds: generated.projectIds,
        accessHistory,
        dynamoDbEndpoint: dynamoDb.endpoint,
        tableName: uniqueTableName(`bench-steady-${name}`),
        outboxPath: join(workDirectory, `outbox-${name}.jsonl`),
        timing: { initialLookbackSeconds: 3_600 },
      });
      pollers.push(poller);
      return poller;
    };
    const eventsOnly = await start('events', false);
    const withClusters = await start('clusters', true);
    checkTick((await eventsOnly.tick()).summary, { tick: 'first steady-state' });
    await sim.resetCounters();
    const first = (await withClusters.tick()).summary;
    const firstCounters = await sim.counters();
    checkTick(first, { tick: 'first steady-state with clusters' });
    checkClusterSources(first, clusters, 'first');
    // Windows end on whole seconds: the next tick must start in a later second to have anything to read.
    await sleep(1_100);
    await sim.resetCounters();
    const report = await eventsOnly.tick();
    const counters = await sim.counters();
    await sim.resetCounters();
    const clusterReport = await withClusters.tick();
    const clusterCounters = await sim.counters();
    const { summary } = report;
    checkTick(summary, { tick: 'second steady-state' });
    checkTick(clusterReport.summary, { tick: 'second steady-state with clusters' });
    checkClusterSources(clusterReport.summary, clusters, 'second');
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
      clusters: clusterFigures({
        clusters,
        eventsOnly: report,
        withClusters: clusterReport,
        counters: clusterCounters,
        firstTickListings: firstCounters.byPath[STEADY_STATE_ROUTES.clusterListing] ?? 0,
        projects: sources,
      }),
    };
  } finally {
    for (const poller of pollers) await poller.close();
    await sim.close();
    await dynamoDb.release();
    await rm(workDirectory, { recursive: true, force: true });
  }
}

/**
 * Adds `clustersPerSource` dedicated clusters to every project, each with `linesPerCluster`
 * authentication attempts in `[endMs - spanMs, endMs]`, and returns their source names.
 */
async function addClusters(
  sim: SimulatorProcess,
  projectIds: readonly string[],
  options: { clustersPerSource: number; linesPerCluster: number; endMs: number; spanMs: number },
): Promise<string[]> {
  const added = await Promise.all(
    projectIds.flatMap((groupId, project) =>
      Array.from({ length: options.clustersPerSource }, async (_, index) => {
        const clusterName = `steady-${index + 1}`;
        await sim.addCluster(groupId, {
          name: clusterName,
          providerSettings: { providerName: 'AWS', instanceSizeName: 'M10', regionName: 'US_EAST_1' },
        });
        await sim.generateAccessLogs({
          groupId,
          clusterName,
          count: options.linesPerCluster,
          seed: 13 + project * options.clustersPerSource + index,
          endMs: options.endMs,
          spanMs: options.spanMs,
        });
        return clusterSource(groupId, clusterName).name;
      }),
    ),
  );
  return added;
}

/** Throws unless the tick polled exactly the clusters added, each once, besides the projects. */
function checkClusterSources(summary: TickSummary, clusters: readonly string[], tick: string): void {
  const polled = summary.sources
    .filter((source) => source.kind === 'cluster')
    .map((source) => source.source)
    .sort();
  const expected = [...clusters].sort();
  if (polled.length !== expected.length || polled.some((name, index) => name !== expected[index])) {
    throw new Error(
      `the ${tick} steady-state tick with clusters polled ${polled.length} cluster sources where ${expected.length} were added (first polled: ${polled[0] ?? 'none'})`,
    );
  }
}

function clusterFigures(options: {
  clusters: readonly string[];
  eventsOnly: PollerTickReport;
  withClusters: PollerTickReport;
  counters: SimulatorCounters;
  firstTickListings: number;
  projects: number;
}): ClusterSteadyStateResult {
  const { counters, withClusters, eventsOnly } = options;
  const clusters = options.clusters.length;
  const { summary } = withClusters;
  const clusterSources = summary.sources.filter((source) => source.kind === 'cluster');
  const route = (key: string): number => counters.byPath[key] ?? 0;
  const accessHistoryReads = route(STEADY_STATE_ROUTES.accessHistory);
  const clusterListings = route(STEADY_STATE_ROUTES.clusterListing);
  const atlasPerCluster = round((accessHistoryReads + clusterListings) / clusters);
  const bySource = withClusters.stateRequestsBySource;
  const dynamoDbPerCluster = round((bySource.cluster ?? 0) / clusters);
  const dynamoDbPerEventsSource = round((bySource.project ?? 0) / options.projects);
  return {
    clusters,
    linesFetched: clusterSources.reduce((sum, source) => sum + source.eventsFetched, 0),
    linesNew: clusterSources.reduce((sum, source) => sum + source.eventsNew, 0),
    durationMs: summary.durationMs,
    cpuMs: Math.round(withClusters.cpuMs),
    atlas: {
      requests: counters.requests,
      challenges: counters.challenges,
      eventsReads: route(STEADY_STATE_ROUTES.events),
      accessHistoryReads,
      clusterListings,
      firstTickListings: options.firstTickListings,
      perCluster: atlasPerCluster,
      target: CLUSTER_ATLAS_TARGET,
      met: atlasPerCluster <= CLUSTER_ATLAS_TARGET,
    },
    dynamoDb: {
      requests: summary.totals.stateRequests,
      byOperation: withClusters.stateRequestsByOperation,
      bySource: Object.fromEntries(
        Object.entries(bySource).map(([owner, count]) => [owner, round(count ?? 0)]),
      ),
      perCluster: dynamoDbPerCluster,
      perEventsSource: dynamoDbPerEventsSource,
      met: dynamoDbPerCluster <= dynamoDbPerEventsSource,
      addedByOperation: difference(
        withClusters.stateRequestsByOperation,
        eventsOnly.stateRequestsByOperation,
      ),
    },
  };
}

/** `after` less `before`, per key, the keys that differ only. */
function difference(
  after: Readonly<Record<string, number>>,
  before: Readonly<Record<string, number>>,
): Record<string, number> {
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])].sort();
  const result: Record<string, number> = {};
  for (const key of keys) {
    const change = (after[key] ?? 0) - (before[key] ?? 0);
    if (change !== 0) result[key] = change;
  }
  return result;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The steady-state scenario as tables: the project sources alone, then with their clusters. */
export function steadyStateTable(result: SteadyStateBenchResult): string {
  const { clusters } = result;
  return (
    renderTable(
      [
        'steady state',
        'sources',
        'events re-read',
        'new',
        'tick s',
        'Atlas req/source',
        'DynamoDB req/source',
      ],
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
    ) +
    renderTable(
      [
        'steady state with clusters',
        'clusters',
        'lines re-read',
        'new',
        'tick s',
        'listings',
        'Atlas req/cluster',
        'DynamoDB req/cluster',
        'per events source',
      ],
      [
        [
          `second tick, ${result.sources} projects and their clusters`,
          String(clusters.clusters),
          clusters.linesFetched.toLocaleString('en-US'),
          String(clusters.linesNew),
          (clusters.durationMs / 1000).toFixed(1),
          String(clusters.atlas.clusterListings),
          clusters.atlas.perCluster.toFixed(3),
          clusters.dynamoDb.perCluster.toFixed(3),
          clusters.dynamoDb.perEventsSource.toFixed(3),
        ],
      ],
    )
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runSteadyStateBenchmark();
  process.stdout.write(steadyStateTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'steady-state', ...result })}\n`);
}
