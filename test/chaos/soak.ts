/**
 * The chaos soak: the seeds of the chaos suite (test/chaos/chaos.test.ts), many more of them, with the
 * figures printed at the end.
 *
 *   npm run soak -- --seeds 1000              seeds 1 to 1000; DynamoDB Local restarted once, halfway
 *   npm run soak -- --seeds 1000 --minutes 15 stop starting seeds after 15 minutes
 *   npm run soak -- --seeds 400 --concurrency 3   poll three sources at once (interleavings vary)
 *   npm run soak -- --seed 123 [--restart]    replay one seed (with the DynamoDB Local restart)
 *   npm run soak -- --seeds 300 --events-only no access history in any seed (three in four read it)
 *
 * Exits 1 when a seed fails, after printing the seed and how to replay it.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { startChaosEnvironment } from './support/chaos-environment.js';
import {
  CHAOS_FAULT_KINDS,
  type ChaosFaultKind,
  type ChaosSeedReport,
  runChaosSeed,
  seedProblems,
} from './support/chaos-scenario.js';

const USAGE =
  'usage: npm run soak -- [--seeds N] [--from N] [--minutes M] [--concurrency C] [--events-only]\n' +
  '       npm run soak -- --seed N [--restart] [--concurrency C] [--events-only]';

interface SoakOptions {
  seeds: number[];
  /** The seed during which DynamoDB Local is stopped and started again. */
  restartSeed: number | undefined;
  deadline: number;
  /** Sources each tick polls at once. */
  concurrency: number;
  /** No seed reads access history; by default three in four do. */
  eventsOnly: boolean;
}

function parseSoakArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      seeds: { type: 'string' },
      from: { type: 'string' },
      seed: { type: 'string' },
      restart: { type: 'boolean' },
      minutes: { type: 'string' },
      concurrency: { type: 'string' },
      'events-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function parseOptions(argv: readonly string[]): SoakOptions {
  let values: ReturnType<typeof parseSoakArgs>['values'];
  try {
    values = parseSoakArgs(argv).values;
  } catch (error) {
    // An unknown option or a missing value: say which, and how to call it.
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const integer = (name: string, text: string | undefined, fallback: number): number => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 0) {
      console.error(`--${name} must be a whole number, got ${JSON.stringify(text)}\n${USAGE}`);
      process.exit(2);
    }
    return value;
  };
  const minutes = integer('minutes', values.minutes, 0);
  const concurrency = Math.max(1, integer('concurrency', values.concurrency, 1));
  const deadline = minutes === 0 ? Number.POSITIVE_INFINITY : Date.now() + minutes * 60_000;
  const eventsOnly = values['events-only'] ?? false;
  if (values.seed !== undefined) {
    const seed = integer('seed', values.seed, 1);
    return {
      seeds: [seed],
      restartSeed: values.restart ? seed : undefined,
      deadline,
      concurrency,
      eventsOnly,
    };
  }
  const count = integer('seeds', values.seeds, 1_000);
  const from = integer('from', values.from, 1);
  const seeds = Array.from({ length: count }, (_, index) => from + index);
  return { seeds, restartSeed: seeds[Math.floor(count / 2)], deadline, concurrency, eventsOnly };
}

function pad(label: string, value: string | number): string {
  return `  ${label.padEnd(26)}${String(value).padStart(10)}`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const env = await startChaosEnvironment();
  const started = Date.now();
  const faults = Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 0])) as Record<
    ChaosFaultKind,
    number
  >;
  const totals = {
    seeds: 0,
    accessHistorySeeds: 0,
    ticks: 0,
    expected: 0,
    accessHistoryExpected: 0,
    notOwed: 0,
    published: 0,
    duplicates: 0,
    inWindow: 0,
    lost: 0,
  };
  const failures: Array<{ report: ChaosSeedReport; problems: string[] }> = [];
  try {
    for (const seed of options.seeds) {
      if (Date.now() >= options.deadline) break;
      const report = await runChaosSeed(env, {
        seed,
        restartDynamo: seed === options.restartSeed,
        concurrency: options.concurrency,
        ...(options.eventsOnly ? { accessHistory: false } : {}),
      });
      totals.seeds += 1;
      if (report.accessHistory) totals.accessHistorySeeds += 1;
      totals.ticks += report.ticks;
      totals.expected += report.alertsExpected;
      totals.accessHistoryExpected += report.accessHistoryAlertsExpected;
      totals.notOwed += report.alertsNotOwed;
      totals.published += report.alertsPublished;
      totals.duplicates += report.duplicates;
      totals.inWindow += report.duplicatesInMarkWindow;
      totals.lost += report.lost.length;
      for (const kind of CHAOS_FAULT_KINDS) faults[kind] += report.faults[kind];
      const problems = seedProblems(report);
      if (problems.length > 0) {
        failures.push({ report, problems });
        console.error(`seed ${seed} FAILED: ${problems.join(' | ')}`);
      }
      if (totals.seeds % 50 === 0) {
        console.error(`… ${totals.seeds} seeds, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
  } finally {
    await env.close();
  }

  const seconds = (Date.now() - started) / 1000;
  const first = options.seeds[0] ?? 0;
  const last = first + totals.seeds - 1;
  const restarted = options.restartSeed !== undefined && options.restartSeed <= last;
  const totalFaults = Object.values(faults).reduce((sum, count) => sum + count, 0);
  const lines = [
    `chaos soak: ${totals.seeds} seeds (${first} to ${last}) in ${seconds.toFixed(1)} s; ` +
      `Node ${process.version}, ${cpus().length} CPUs, ${options.concurrency} source(s) at once`,
    `DynamoDB Local stopped and restarted: ${restarted ? `once, during seed ${options.restartSeed}` : 'no'}`,
    pad('seeds', totals.seeds),
    pad('  with access history', totals.accessHistorySeeds),
    pad('ticks', totals.ticks),
    pad('faults injected', totalFaults),
    ...CHAOS_FAULT_KINDS.map((kind) => pad(`  ${kind}`, faults[kind])),
    pad('alerts expected', totals.expected),
    pad('  on access history', totals.accessHistoryExpected),
    pad('alerts not owed', totals.notOwed),
    pad('alerts published', totals.published),
    pad('duplicates', totals.duplicates),
    pad('  in publish/mark window', totals.inWindow),
    pad('lost', totals.lost),
    pad('failed seeds', failures.length),
  ];
  console.log(lines.join('\n'));
  for (const { report } of failures) {
    const restart = report.seed === options.restartSeed ? ' --restart' : '';
    const concurrency = options.concurrency === 1 ? '' : ` --concurrency ${options.concurrency}`;
    const eventsOnly = options.eventsOnly ? ' --events-only' : '';
    console.log(
      `replay seed ${report.seed}: npm run soak -- --seed ${report.seed}${restart}${concurrency}${eventsOnly}`,
    );
  }
  if (options.seeds.length === 1 && failures.length > 0) {
    console.log(JSON.stringify(failures[0]?.report, null, 2));
  }
  process.exitCode = failures.length > 0 ? 1 : 0;
}

await main();
