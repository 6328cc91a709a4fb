import { pathToFileURL } from 'node:url';
import { runBacklogBenchmark } from './backlog.js';
import { renderTable } from './support/table.js';

/**
 * A backlog on one source whose every page takes `pageLatencyMs` to answer: the tick can take no
 * less than pages × latency, since a source's pages follow `next` links one after another. What it
 * measures is how much of the evaluation and delivery hides behind the reading (the next window is
 * read while the last one is evaluated). Target: the tick within 1.2 × pages needed × latency.
 *
 * The simulator announces a rate limit (`RateLimit-Limit`) twice what one source can ask at this
 * latency, so the poller never has to pace itself: at the simulator's default of 100 requests a
 * minute, 200 pages could not be read in less than two minutes whatever the latency, and the figure
 * would measure the limit rather than the poller. `paced` says whether any request waited anyway.
 */

export interface PagedBacklogBenchOptions {
  /** Default 100,000. */
  events?: number;
  /** Default 300. */
  pageLatencyMs?: number;
  /** DynamoDB Local to use; by default the benchmark starts its own. */
  dynamoDbEndpoint?: string;
}

export interface PagedBacklogBenchResult {
  events: number;
  pageLatencyMs: number;
  /** Pages the events need at 500 a page. */
  pagesNeeded: number;
  /** Pages the poller read (a window cut shorter costs the page that showed it too long). */
  pagesRead: number;
  /** Pages needed × latency, in milliseconds: the floor of one source's walk. */
  floorMs: number;
  durationMs: number;
  /**
   * CPU time of the poller's process during the tick, in milliseconds: when it comes near the floor
   * (a loaded machine, or the Lambda's fraction of a vCPU), the tick cannot stay near the floor.
   */
  cpuMs: number;
  /** Requests per minute the simulator announced in `RateLimit-Limit`. */
  rateLimitPerMinute: number;
  /** Atlas requests that waited for the announced limit (0 when the limit did not bind). */
  paced: number;
  /** Duration / floor. */
  ratio: number;
  target: number;
  met: boolean;
}

const TARGET_RATIO = 1.2;
const MINUTE_MS = 60_000;

/** Twice the requests a minute one source can send when each page takes `pageLatencyMs`. */
function unboundRateLimit(pageLatencyMs: number): number {
  return 2 * Math.ceil(MINUTE_MS / Math.max(1, pageLatencyMs));
}

/**
 * Runs the paged backlog scenario: the backlog benchmark with one project and a latency on every
 * events page.
 *
 * @throws As `runBacklogBenchmark`.
 * @example
 * ```ts
 * const result = await runPagedBacklogBenchmark({ events: 100_000, pageLatencyMs: 300 });
 * ```
 */
export async function runPagedBacklogBenchmark(
  options: PagedBacklogBenchOptions = {},
): Promise<PagedBacklogBenchResult> {
  const pageLatencyMs = options.pageLatencyMs ?? 300;
  const rateLimitPerMinute = unboundRateLimit(pageLatencyMs);
  const backlog = await runBacklogBenchmark({
    events: options.events ?? 100_000,
    projects: 1,
    pageLatencyMs,
    atlasRateLimitPerMinute: rateLimitPerMinute,
    ...(options.dynamoDbEndpoint === undefined ? {} : { dynamoDbEndpoint: options.dynamoDbEndpoint }),
  });
  const floorMs = backlog.atlas.pagesNeeded * pageLatencyMs;
  const ratio = Math.round((backlog.durationMs / floorMs) * 100) / 100;
  return {
    events: backlog.events,
    pageLatencyMs,
    pagesNeeded: backlog.atlas.pagesNeeded,
    pagesRead: backlog.atlas.pagesRead,
    floorMs,
    durationMs: backlog.durationMs,
    cpuMs: backlog.cpuMs,
    rateLimitPerMinute,
    paced: backlog.atlas.paced,
    ratio,
    target: TARGET_RATIO,
    met: ratio <= TARGET_RATIO,
  };
}

/** The paged backlog scenario as a table. */
export function pagedBacklogTable(result: PagedBacklogBenchResult): string {
  return renderTable(
    [
      'paged backlog',
      'events',
      'pages needed',
      'pages read',
      'paced',
      'floor s',
      'tick s',
      'CPU s',
      'tick / floor',
    ],
    [
      [
        `1 source, ${result.pageLatencyMs} ms a page`,
        result.events.toLocaleString('en-US'),
        String(result.pagesNeeded),
        String(result.pagesRead),
        String(result.paced),
        (result.floorMs / 1000).toFixed(1),
        (result.durationMs / 1000).toFixed(1),
        (result.cpuMs / 1000).toFixed(1),
        `${result.ratio.toFixed(2)} x`,
      ],
    ],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runPagedBacklogBenchmark();
  process.stdout.write(pagedBacklogTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'paged-backlog', ...result })}\n`);
}
