import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDeployConfig } from '../infra/index.js';
import { MAX_ITEMS_PER_PAGE } from '../shared/atlas/index.js';
import { startBenchSimulator } from './support/bench-simulator.js';
import { openBenchDynamoDb, uniqueTableName } from './support/dynamodb.js';
import { startPollerProcess } from './support/poller-process.js';
import { renderTable } from './support/table.js';
import { checkTick } from './support/tick-check.js';

/**
 * A backlog: `events` project events spread over `projects` projects in the simulator (the last 50
 * minutes), read by the first tick of a fresh poller with DynamoDB Local and the outbox notifier.
 * The poller runs in a process of its own and the simulator in another, so the peak RSS is the
 * poller's alone. By default that process gets the V8 heap limits the Lambda Node.js runtime gives
 * the stack's poller (its default memory size): with Node's defaults on a machine with many GB, the
 * collector lets garbage pile up and the RSS says more about the machine than about the poller.
 * The largest heap in use is sampled too.
 *
 * Targets: Atlas requests equal the pages needed (500 events a page, at least one page a source), plus
 * one IP access-list read per project (its first inventory snapshot), plus at most one Digest
 * challenge per source; peak RSS under 300 MB; at most 0.1 DynamoDB requests per
 * alert published.
 */

export interface BacklogBenchOptions {
  /** Default 100,000. */
  events?: number;
  /** Default 20. */
  projects?: number;
  /** DynamoDB Local to use; by default the benchmark starts its own. */
  dynamoDbEndpoint?: string;
  /**
   * `lambda` (default): the V8 heap limits of a Lambda function with the stack's default poller
   * memory; `machine`: Node's defaults, sized from this machine's memory.
   */
  heap?: 'lambda' | 'machine';
  /** A delay the simulator adds to every events page, in milliseconds. Default: none. */
  pageLatencyMs?: number;
  /** Requests per minute the simulator announces in `RateLimit-Limit`. Default: the simulator's (100). */
  atlasRateLimitPerMinute?: number;
  /** The poller's event budget (`maxEventsInMemory`). Default: sized from the heap limit. */
  maxEventsInMemory?: number;
}

export interface BacklogBenchResult {
  events: number;
  projects: number;
  /** Events the tick processed for the first time. */
  eventsNew: number;
  alertsPublished: number;
  /** Sources that ended `ok`. */
  sourcesOk: number;
  /** Windows committed over all sources: one cursor commit each. */
  windowsCommitted: number;
  /** Wall time of the tick, in milliseconds. */
  durationMs: number;
  /** New events per second of the tick's wall time, from the first request to the last commit. */
  eventsPerSecond: number;
  /** CPU time of the poller's process during the tick, in milliseconds. */
  cpuMs: number;
  atlas: {
    /** HTTP requests the simulator received during the tick. */
    requests: number;
    /**
     * Pages the poller read: the pages needed, plus each window's partial last page and the page that
     * showed a window too long; the target allows one beyond those needed per window. Windows are
     * bounded by the event budget, so a backlog larger than a source's share of it takes several.
     */
    pagesRead: number;
    /** Pages the events need at 500 a page (at least one per source). */
    pagesNeeded: number;
    /** The first tick's inventory snapshot of each project: one access-list read each. */
    inventoryReads: number;
    /** Organization and project names the alerts show, read once each (`GET /orgs/{id}`, `GET /groups/{id}`). */
    nameReads: number;
    challenges: number;
    /** Requests that waited for the simulator's announced `RateLimit-Remaining` to recover. */
    paced: number;
    /**
     * Requests = pages read + inventory reads + name reads + challenges (nothing else is asked, nothing
     * asked twice), pages read at most pages needed + one per window, no more challenges than sources,
     * and no more name reads than sources and their organization.
     */
    met: boolean;
  };
  dynamoDb: {
    requests: number;
    byOperation: Readonly<Record<string, number>>;
    /** DynamoDB requests per alert published. */
    perAlert: number;
    target: number;
    /** At most {@link DYNAMODB_PER_ALERT_TARGET} requests per alert. */
    met: boolean;
  };
  memory: {
    /** The memory size whose Lambda heap limits the poller ran with; undefined with Node's defaults. */
    lambdaMemoryMiB: number | undefined;
    /** The V8 options of the poller's process. */
    nodeOptions: readonly string[];
    /** RSS of the poller's process once built, before the tick, in MB. */
    startRssMb: number;
    /** Peak RSS of the poller's process, in MB. */
    peakRssMb: number;
    /** The largest V8 heap in use during the tick (sampled), in MB: what the poller itself held. */
    peakHeapUsedMb: number;
    /** The largest memory outside the heap (buffers) during the tick (sampled), in MB. */
    peakExternalMb: number;
    targetMb: number;
    met: boolean;
  };
}

const MINUTE_MS = 60_000;
const PEAK_RSS_TARGET_MB = 300;
/** DynamoDB requests per alert published in the backlog: claims, marks and counters in batches. */
export const DYNAMODB_PER_ALERT_TARGET = 0.1;

/**
 * Runs the backlog scenario.
 *
 * @throws Error when the tick does not read every event (a source failed or was cut short), when
 *   DynamoDB Local cannot start, or when a child process fails.
 * @example
 * ```ts
 * const result = await runBacklogBenchmark({ events: 100_000, projects: 20 });
 * ```
 */
export async function runBacklogBenchmark(options: BacklogBenchOptions = {}): Promise<BacklogBenchResult> {
  const events = options.events ?? 100_000;
  const projects = options.projects ?? 20;
  const lambdaMemoryMiB = (options.heap ?? 'lambda') === 'lambda' ? defaultPollerMemoryMiB() : undefined;
  const sim = await startBenchSimulator(
    options.atlasRateLimitPerMinute === undefined
      ? {}
      : { rateLimitPerMinute: options.atlasRateLimitPerMinute },
  );
  const dynamoDb = await openBenchDynamoDb(options.dynamoDbEndpoint);
  const workDirectory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-backlog-'));
  try {
    const generated = await sim.generateEvents({
      count: events,
      projects,
      seed: 7,
      endMs: Date.now() - 2 * MINUTE_MS,
      spanMs: 50 * MINUTE_MS,
    });
    const pagesNeeded = generated.projectCounts.reduce(
      (sum, count) => sum + Math.max(1, Math.ceil(count / MAX_ITEMS_PER_PAGE)),
      0,
    );
    const poller = await startPollerProcess({
      atlas: { baseUrl: sim.baseUrl, ...sim.credentials },
      projectIds: generated.projectIds,
      dynamoDbEndpoint: dynamoDb.endpoint,
      tableName: uniqueTableName('bench-backlog'),
      outboxPath: join(workDirectory, 'outbox.jsonl'),
      timing: { initialLookbackSeconds: 3_600 },
      ...(options.maxEventsInMemory === undefined ? {} : { maxEventsInMemory: options.maxEventsInMemory }),
      ...(lambdaMemoryMiB === undefined ? {} : { lambdaMemoryMiB }),
    });
    try {
      if (options.pageLatencyMs !== undefined) {
        await sim.setFaults({
          probabilities: { latency: 1 },
          latencyMs: options.pageLatencyMs,
          routes: ['GET /groups/{groupId}/events'],
        });
      }
      await sim.resetCounters();
      const report = await poller.tick();
      const counters = await sim.counters();
      const { summary } = report;
      checkTick(summary, { tick: 'backlog', eventsNew: events });
      const requests = counters.requests;
      const inventoryReads = summary.sources.filter(
        (source) => source.inventory?.projectEntries !== undefined,
      ).length;
      // What alerts name: projects, organizations, and the alert configurations the events are about.
      const nameReads = [
        'GET /groups/{groupId}',
        'GET /orgs/{orgId}',
        'GET /groups/{groupId}/alertConfigs/{alertConfigId}',
        'GET /orgs/{orgId}/teams/{teamId}',
      ].reduce((sum, route) => sum + (counters.byPath[route] ?? 0), 0);
      const peakRssMb = toMb(report.peakRssBytes);
      const pagesRead = summary.sources.reduce((sum, source) => sum + source.pagesRead, 0);
      const windowsCommitted = summary.sources.reduce((sum, source) => sum + source.windowsCommitted, 0);
      return {
        events,
        projects,
        eventsNew: summary.totals.eventsNew,
        alertsPublished: sumValues(summary.totals.alerts.published),
        sourcesOk: summary.totals.sourcesOk,
        windowsCommitted,
        durationMs: summary.durationMs,
        eventsPerSecond: Math.round((summary.totals.eventsNew / Math.max(1, summary.durationMs)) * 1000),
        cpuMs: Math.round(report.cpuMs),
        atlas: {
          requests,
          pagesRead,
          pagesNeeded,
          inventoryReads,
          nameReads,
          challenges: counters.challenges,
          paced: report.atlasPaced,
          met:
            requests === pagesRead + inventoryReads + nameReads + counters.challenges &&
            pagesRead <= pagesNeeded + windowsCommitted &&
            counters.challenges <= projects &&
            nameReads <= 2 * projects + 1,
        },
        dynamoDb: dynamoDbFigures(
          summary.totals.stateRequests,
          report.stateRequestsByOperation,
          sumValues(summary.totals.alerts.published),
        ),
        memory: {
          lambdaMemoryMiB,
          nodeOptions: poller.nodeOptions,
          startRssMb: toMb(poller.startRssBytes),
          peakRssMb,
          peakHeapUsedMb: toMb(report.peakHeapUsedBytes),
          peakExternalMb: toMb(report.peakExternalBytes),
          targetMb: PEAK_RSS_TARGET_MB,
          met: peakRssMb < PEAK_RSS_TARGET_MB,
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

/** The memory size the stack gives the poller unless configured otherwise. */
function defaultPollerMemoryMiB(): number {
  const config = parseDeployConfig({
    input: { sources: { orgIds: ['5f4e3d2c1b0a998877665544'] } },
    origin: 'the backlog benchmark',
  });
  return config.poller.memoryMiB;
}

function dynamoDbFigures(
  requests: number,
  byOperation: Readonly<Record<string, number>>,
  alerts: number,
): BacklogBenchResult['dynamoDb'] {
  const perAlert = Math.round((requests / Math.max(1, alerts)) * 1000) / 1000;
  return {
    requests,
    byOperation,
    perAlert,
    target: DYNAMODB_PER_ALERT_TARGET,
    met: perAlert <= DYNAMODB_PER_ALERT_TARGET,
  };
}

function toMb(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

function sumValues(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((sum, value) => sum + value, 0);
}

/** The backlog scenario as a table. */
export function backlogTable(result: BacklogBenchResult): string {
  return renderTable(
    [
      'backlog',
      'events',
      'events/s',
      'tick s',
      'Atlas req',
      'pages needed',
      'challenges',
      'DynamoDB req',
      'per alert (≤0.1)',
      'peak RSS MB',
    ],
    [
      [
        `${result.projects} projects, ${result.alertsPublished.toLocaleString('en-US')} alerts`,
        result.eventsNew.toLocaleString('en-US'),
        result.eventsPerSecond.toLocaleString('en-US'),
        (result.durationMs / 1000).toFixed(1),
        result.atlas.requests.toLocaleString('en-US'),
        result.atlas.pagesNeeded.toLocaleString('en-US'),
        String(result.atlas.challenges),
        result.dynamoDb.requests.toLocaleString('en-US'),
        result.dynamoDb.perAlert.toFixed(3),
        result.memory.peakRssMb.toFixed(1),
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runBacklogBenchmark();
  process.stdout.write(backlogTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'backlog', ...result })}\n`);
}
