import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDeployConfig } from '../infra/index.js';
import { renderTable } from './support/table.js';

/**
 * `npm run cost`: the poller's memory sized from the backlog benchmark's CPU, and what the stack costs
 * a month for 10, 100 and 1,000 projects at a 1- and a 5-minute schedule, from the requests and CPU the
 * steady-state benchmark measured per idle source. Reads a `npm run bench` results file (default
 * `bench/load-results.json`) and prints the tables `docs/load.md` shows; a test keeps the two equal.
 */

/** Published on-demand prices in us-east-1, as looked up on {@link PRICES.date}; free tiers left out. */
export const PRICES = {
  date: '2026-11-24',
  region: 'us-east-1',
  /** Lambda on Arm (the stack's architecture), first tier, per GB-second. */
  lambdaGbSecond: 0.000_013_333_4,
  /** Lambda, per million invocations. */
  lambdaMillionRequests: 0.2,
  /** DynamoDB on-demand, per million write request units. */
  dynamoDbMillionWrites: 0.625,
  /** DynamoDB on-demand, per million read request units. */
  dynamoDbMillionReads: 0.125,
  /** SNS standard topic, per million publishes. */
  snsMillionPublishes: 0.5,
  /** SNS email delivery, per 100,000 notifications. */
  snsHundredThousandEmails: 2,
} as const;

/** Memory at which Lambda gives a function one full vCPU; CPU share scales linearly below it. */
export const MIB_PER_VCPU = 1_769;
/**
 * The part of the timeout the backlog tick's CPU may fill: the rest is for waiting on Atlas and
 * DynamoDB, and for the difference between the benchmark machine's cores and Lambda's.
 */
export const CPU_SHARE_OF_TIMEOUT = 0.5;
/** Lambda memory is sized in steps of this many MiB here. */
const MEMORY_STEP_MIB = 128;

/** What the model assumes beyond the measurements; each is stated in the doc next to the table. */
export const ASSUMPTIONS = {
  /** Seconds Atlas takes to answer one events page (the measured 300 ms). */
  atlasSecondsPerRequest: 0.3,
  /** Seconds DynamoDB takes to answer one request from Lambda in the same region. */
  dynamoDbSecondsPerRequest: 0.01,
  /** Alerts a project raises a day, each published once and mailed to one address. */
  alertsPerProjectPerDay: 1,
  daysPerMonth: 30,
} as const;

/** The figures of one `npm run bench` results file the model reads. */
export interface MeasuredLoad {
  date: string;
  machine: string;
  backlog: { events: number; cpuMs: number };
  steadyState: {
    sources: number;
    cpuMs: number;
    atlasRequests: number;
    byOperation: Readonly<Record<string, number>>;
  };
}

/**
 * Reads the backlog and steady-state figures from a results file.
 *
 * @throws Error naming the file and the missing figure when the file lacks one of them.
 * @example
 * ```ts
 * const load = readMeasuredLoad(JSON.parse(await readFile('bench/load-results.json', 'utf8')), 'bench/load-results.json');
 * ```
 */
export function readMeasuredLoad(json: unknown, file: string): MeasuredLoad {
  const value = json as {
    date?: unknown;
    machine?: { cpuModel?: unknown; cores?: unknown; loadAverage?: { start?: unknown; end?: unknown } };
    results?: {
      backlog?: { events?: unknown; cpuMs?: unknown };
      steadyState?: {
        sources?: unknown;
        cpuMs?: unknown;
        atlas?: { requests?: unknown };
        dynamoDb?: { byOperation?: unknown };
      };
    };
  };
  const backlog = value.results?.backlog;
  const steady = value.results?.steadyState;
  const need = (name: string, figure: unknown): number => {
    if (typeof figure !== 'number' || !Number.isFinite(figure)) {
      throw new Error(
        `${file} has no ${name}: run npm run bench -- --only backlog,steady-state --out ${file}`,
      );
    }
    return figure;
  };
  const byOperation = steady?.dynamoDb?.byOperation;
  if (typeof byOperation !== 'object' || byOperation === null)
    need('steadyState.dynamoDb.byOperation', undefined);
  const machine = value.machine;
  return {
    date: String(value.date ?? 'unknown date'),
    machine: `${String(machine?.cpuModel ?? 'unknown CPU')}, ${String(machine?.cores ?? '?')} cores, load ${String(machine?.loadAverage?.start ?? '?')}–${String(machine?.loadAverage?.end ?? '?')}`,
    backlog: {
      events: need('backlog.events', backlog?.events),
      cpuMs: need('backlog.cpuMs', backlog?.cpuMs),
    },
    steadyState: {
      sources: need('steadyState.sources', steady?.sources),
      cpuMs: need('steadyState.cpuMs', steady?.cpuMs),
      atlasRequests: need('steadyState.atlas.requests', steady?.atlas?.requests),
      byOperation: byOperation as Record<string, number>,
    },
  };
}

/**
 * The memory a poller needs so that a tick of the benchmark's backlog fits its timeout: CPU seconds
 * over the vCPU share that memory buys, within {@link CPU_SHARE_OF_TIMEOUT} of the timeout, rounded up
 * to a step of 128 MiB.
 *
 * @example
 * ```ts
 * pollerMemoryForBacklog({ cpuMs: 17_000, timeoutSeconds: 180 }); // 384
 * ```
 */
export function pollerMemoryForBacklog(options: { cpuMs: number; timeoutSeconds: number }): number {
  const cpuSeconds = options.cpuMs / 1000;
  const mib = (cpuSeconds * MIB_PER_VCPU) / (options.timeoutSeconds * CPU_SHARE_OF_TIMEOUT);
  return Math.max(MEMORY_STEP_MIB, Math.ceil(mib / MEMORY_STEP_MIB) * MEMORY_STEP_MIB);
}

/** One line of the cost table: dollars a month. */
export interface MonthlyCost {
  projects: number;
  scheduleMinutes: number;
  lambda: number;
  dynamoDb: number;
  sns: number;
  total: number;
}

const WRITES = new Set(['UpdateItem', 'PutItem', 'DeleteItem']);

/**
 * What one configuration costs a month, every project idle but for its daily alerts: per tick and
 * project, the steady state's Atlas requests, DynamoDB requests and CPU per source.
 *
 * @example
 * ```ts
 * monthlyCost({ load, projects: 100, scheduleMinutes: 5, memoryMiB: 384, concurrency: 4 });
 * ```
 */
export function monthlyCost(options: {
  load: MeasuredLoad;
  projects: number;
  scheduleMinutes: number;
  memoryMiB: number;
  concurrency: number;
}): MonthlyCost {
  const { load, projects, scheduleMinutes, memoryMiB, concurrency } = options;
  const steady = load.steadyState;
  const ticks = (ASSUMPTIONS.daysPerMonth * 24 * 60) / scheduleMinutes;
  let writesPerSource = 0;
  let readsPerSource = 0;
  let requestsPerSource = 0;
  for (const [operation, count] of Object.entries(steady.byOperation)) {
    requestsPerSource += count / steady.sources;
    // A BatchGetItem reads one cursor item per source: one read unit each (strongly consistent, < 4 KB).
    if (operation === 'BatchGetItem') readsPerSource += 1;
    else if (WRITES.has(operation)) writesPerSource += count / steady.sources;
    else writesPerSource += (2 * count) / steady.sources;
  }
  const vcpu = memoryMiB / MIB_PER_VCPU;
  const cpuSeconds = ((steady.cpuMs / 1000) * projects) / steady.sources / vcpu;
  const waitSeconds =
    (projects *
      ((steady.atlasRequests / steady.sources) * ASSUMPTIONS.atlasSecondsPerRequest +
        requestsPerSource * ASSUMPTIONS.dynamoDbSecondsPerRequest)) /
    concurrency;
  const gbSeconds = (memoryMiB / 1024) * (cpuSeconds + waitSeconds) * ticks;
  const lambda = gbSeconds * PRICES.lambdaGbSecond + (ticks / 1e6) * PRICES.lambdaMillionRequests;
  const dynamoDb =
    ((writesPerSource * projects * ticks) / 1e6) * PRICES.dynamoDbMillionWrites +
    ((readsPerSource * projects * ticks) / 1e6) * PRICES.dynamoDbMillionReads;
  const alerts = projects * ASSUMPTIONS.alertsPerProjectPerDay * ASSUMPTIONS.daysPerMonth;
  const sns = (alerts / 1e6) * PRICES.snsMillionPublishes + (alerts / 1e5) * PRICES.snsHundredThousandEmails;
  return { projects, scheduleMinutes, lambda, dynamoDb, sns, total: lambda + dynamoDb + sns };
}

/** The deploy configuration's defaults the model uses. */
export function stackDefaults(): { memoryMiB: number; timeoutSeconds: number; concurrency: number } {
  const config = parseDeployConfig({
    input: { sources: { orgIds: ['5f4e3d2c1b0a998877665544'] } },
    origin: 'the cost model',
  });
  return {
    memoryMiB: config.poller.memoryMiB,
    timeoutSeconds: config.poller.timeoutSeconds,
    concurrency: config.concurrency,
  };
}

const dollars = (value: number): string => `$${value < 10 ? value.toFixed(2) : value.toFixed(0)}`;

/**
 * The sizing line and the cost table, as `docs/load.md` shows them.
 *
 * @example
 * ```ts
 * process.stdout.write(renderCostReport(load));
 * ```
 */
export function renderCostReport(load: MeasuredLoad): string {
  const defaults = stackDefaults();
  const needed = pollerMemoryForBacklog({
    cpuMs: load.backlog.cpuMs,
    timeoutSeconds: defaults.timeoutSeconds,
  });
  const rows: string[][] = [];
  for (const scheduleMinutes of [1, 5]) {
    for (const projects of [10, 100, 1_000]) {
      const cost = monthlyCost({
        load,
        projects,
        scheduleMinutes,
        memoryMiB: defaults.memoryMiB,
        concurrency: defaults.concurrency,
      });
      rows.push([
        projects.toLocaleString('en-US'),
        `${scheduleMinutes} min`,
        dollars(cost.lambda),
        dollars(cost.dynamoDb),
        dollars(cost.sns),
        dollars(cost.total),
      ]);
    }
  }
  const sizing =
    `Backlog of ${load.backlog.events.toLocaleString('en-US')} events: ${(load.backlog.cpuMs / 1000).toFixed(1)} s of CPU ` +
    `-> at least ${needed} MiB for a ${defaults.timeoutSeconds} s timeout; default ${defaults.memoryMiB} MiB.\n` +
    `Measured ${load.date} on ${load.machine}; prices ${PRICES.region}, ${PRICES.date}.\n\n`;
  return `${sizing}${renderTable(['projects', 'schedule', 'Lambda', 'DynamoDB', 'SNS', 'total a month'], rows)}`;
}

/** The results file the model reads by default. */
export const DEFAULT_LOAD_RESULTS = fileURLToPath(new URL('./load-results.json', import.meta.url));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2] ?? DEFAULT_LOAD_RESULTS;
  const load = readMeasuredLoad(JSON.parse(await readFile(file, 'utf8')), file);
  process.stdout.write(renderCostReport(load));
}
