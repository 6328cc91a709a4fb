import { pathToFileURL } from 'node:url';
import { runBacklogBenchmark } from './backlog.js';
import { renderTable } from './support/table.js';

/**
 * The peak RSS of the poller's process over backlogs of growing size (the backlog benchmark, each
 * size in a fresh poller process with the Lambda's heap limits): with the events held bounded by the
 * tick's budget, memory must not follow the backlog. Target: the largest peak within 10% of the
 * smallest.
 */

export interface BacklogMemoryBenchOptions {
  /** Backlog sizes, smallest first. Default 10,000, 100,000 and 300,000. */
  sizes?: readonly number[];
  /** Default 20. */
  projects?: number;
  /** DynamoDB Local to use; by default the benchmark starts its own. */
  dynamoDbEndpoint?: string;
  /** The poller's event budget (`maxEventsInMemory`). Default: sized from the heap limit. */
  maxEventsInMemory?: number;
}

export interface BacklogMemoryBenchResult {
  projects: number;
  runs: Array<{ events: number; peakRssMb: number; peakHeapUsedMb: number; durationMs: number }>;
  /** Largest peak RSS / smallest. */
  spread: number;
  target: number;
  met: boolean;
}

const TARGET_SPREAD = 1.1;

/**
 * Runs the backlog benchmark at each size and compares the peaks.
 *
 * @throws As `runBacklogBenchmark`.
 * @example
 * ```ts
 * const result = await runBacklogMemoryBenchmark({ sizes: [10_000, 100_000, 300_000] });
 * ```
 */
export async function runBacklogMemoryBenchmark(
  options: BacklogMemoryBenchOptions = {},
): Promise<BacklogMemoryBenchResult> {
  const projects = options.projects ?? 20;
  const runs: BacklogMemoryBenchResult['runs'] = [];
  for (const events of options.sizes ?? [10_000, 100_000, 300_000]) {
    const backlog = await runBacklogBenchmark({
      events,
      projects,
      ...(options.dynamoDbEndpoint === undefined ? {} : { dynamoDbEndpoint: options.dynamoDbEndpoint }),
      ...(options.maxEventsInMemory === undefined ? {} : { maxEventsInMemory: options.maxEventsInMemory }),
    });
    runs.push({
      events,
      peakRssMb: backlog.memory.peakRssMb,
      peakHeapUsedMb: backlog.memory.peakHeapUsedMb,
      durationMs: backlog.durationMs,
    });
  }
  const peaks = runs.map((run) => run.peakRssMb);
  const spread = Math.round((Math.max(...peaks) / Math.max(1, Math.min(...peaks))) * 100) / 100;
  return { projects, runs, spread, target: TARGET_SPREAD, met: spread <= TARGET_SPREAD };
}

/** The memory scenario as a table. */
export function backlogMemoryTable(result: BacklogMemoryBenchResult): string {
  return renderTable(
    ['backlog memory', 'events', 'peak RSS MB', 'peak heap MB', 'tick s'],
    result.runs.map((run) => [
      `${result.projects} projects`,
      run.events.toLocaleString('en-US'),
      run.peakRssMb.toFixed(1),
      run.peakHeapUsedMb.toFixed(1),
      (run.durationMs / 1000).toFixed(1),
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // `--max-events-in-memory N` runs the sizes with that budget instead of the one sized from the heap.
  const at = process.argv.indexOf('--max-events-in-memory');
  const budget = at === -1 ? undefined : Number(process.argv[at + 1]);
  if (budget !== undefined && !(Number.isInteger(budget) && budget >= 2_000)) {
    process.stderr.write('--max-events-in-memory takes a whole number of events, at least 2000\n');
    process.exit(2);
  }
  const result = await runBacklogMemoryBenchmark(budget === undefined ? {} : { maxEventsInMemory: budget });
  process.stdout.write(backlogMemoryTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'backlog-memory', ...result })}\n`);
}
