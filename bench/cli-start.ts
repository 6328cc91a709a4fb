import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildState } from '../cli/build-state.mjs';
import { packAndInstall, REPO_ROOT } from '../test/support/packed-install.js';
import { median, renderTable } from './support/table.js';

/**
 * How fast the command starts: `atlas-audit-alerts --help` from the checkout (`cli/bin.mjs`, which
 * runs the build in dist/) and from the package as a user installs it (`npm pack`, then installed into
 * an empty folder), next to a bare `node -e 0`, each in fresh processes taking turns, so that a busy
 * moment of the machine falls on all of them alike. Reports the median, fastest and slowest wall time
 * of the processes of each, the median of what each took more than the bare Node of its round, and
 * the peak RSS of one more process each where `/usr/bin/time` exists.
 * Target: a median under 300 ms for the command, from the checkout and installed.
 */

export interface CliStartBenchOptions {
  /** Processes per command; the median is reported. */
  runs?: number;
  /** Also pack and install the package, and time the installed command (about 10 s more). */
  installed?: boolean;
  /** The arguments of the command. */
  args?: readonly string[];
}

export interface StartTiming {
  /** What was started: `node -e 0`, `checkout`, `installed`. */
  name: string;
  command: string;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /**
   * The median over rounds of this start's time minus the bare Node's of the same round: what the
   * command itself costs, less moved by how busy the machine is than the times themselves.
   */
  overNodeMs: number | undefined;
  /** Peak resident memory of one process, in MiB; undefined without `/usr/bin/time`. */
  peakRssMiB: number | undefined;
  /** The target median in milliseconds; undefined for the bare Node. */
  target: number | undefined;
  met: boolean | undefined;
}

export interface CliStartBenchResult {
  node: string;
  args: readonly string[];
  timings: StartTiming[];
}

const TARGET_MS = 300;
const BARE = 'node -e 0';
const TIME = '/usr/bin/time';

interface Started {
  name: string;
  argv: string[];
  target: number | undefined;
}

/**
 * Times the starts. Refuses to time a checkout whose build is missing or older than the sources: the
 * command would run the sources through tsx, which is not what a user runs.
 *
 * @throws {Error} when the build is not current, a process fails, or packing or installing fails.
 * @example
 * ```ts
 * const result = await runCliStartBenchmark({ runs: 10, installed: true });
 * ```
 */
export async function runCliStartBenchmark(options: CliStartBenchOptions = {}): Promise<CliStartBenchResult> {
  const runs = options.runs ?? 10;
  const args = options.args ?? ['--help'];
  const state = buildState(REPO_ROOT);
  if (state !== 'current') {
    throw new Error(`the build in dist/ is ${state}: run npm run build first, so that the checkout runs it`);
  }
  const directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-cli-start-'));
  try {
    const started: Started[] = [
      { name: BARE, argv: ['-e', '0'], target: undefined },
      { name: 'checkout', argv: [join(REPO_ROOT, 'cli', 'bin.mjs'), ...args], target: TARGET_MS },
    ];
    if (options.installed !== false) {
      const { bin } = await packAndInstall({ directory });
      started.push({ name: 'installed', argv: [bin, ...args], target: TARGET_MS });
    }
    const times = new Map(started.map((entry) => [entry.name, [] as number[]]));
    // One warm-up round fills the file system cache; then each round starts every command once,
    // the order turning from one round to the next.
    for (let round = -1; round < runs; round++) {
      for (let index = 0; index < started.length; index++) {
        const entry = started[(index + Math.max(round, 0)) % started.length] as Started;
        const ms = timeStart(entry.argv, directory);
        if (round >= 0) times.get(entry.name)?.push(ms);
      }
    }
    return {
      node: process.version,
      args,
      timings: started.map((entry) => {
        const list = times.get(entry.name) ?? [];
        const bare = times.get(BARE) ?? [];
        const medianMs = round1(median(list));
        return {
          name: entry.name,
          command: entry.name === BARE ? BARE : `node ${shown(entry.argv)}`,
          runs: list.length,
          medianMs,
          minMs: round1(Math.min(...list)),
          maxMs: round1(Math.max(...list)),
          overNodeMs:
            entry.name === BARE
              ? undefined
              : round1(median(list.map((ms, round) => ms - (bare[round] ?? 0)))),
          peakRssMiB: peakRss(entry.argv, directory),
          target: entry.target,
          met: entry.target === undefined ? undefined : medianMs <= entry.target,
        };
      }),
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Wall time of one process, from spawn to exit, in milliseconds. */
function timeStart(argv: readonly string[], cwd: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node ${argv.join(' ')} exited ${result.status ?? result.signal}: ${result.stderr}`);
  }
  return ms;
}

/** The peak RSS of one process, as /usr/bin/time measures it; undefined where it is missing. */
function peakRss(argv: readonly string[], cwd: string): number | undefined {
  if (!existsSync(TIME)) return undefined;
  const result = spawnSync(TIME, ['-f', '%M', process.execPath, ...argv], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const kib = Number(result.stderr.trim().split('\n').at(-1));
  return result.status === 0 && Number.isFinite(kib) ? round1(kib / 1024) : undefined;
}

function shown(argv: readonly string[]): string {
  return argv.map((part) => part.replace(REPO_ROOT, '').replace(/^.*\/app\//, '<app>/')).join(' ');
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * The result as a table.
 *
 * @example
 * ```ts
 * process.stdout.write(cliStartTable(await runCliStartBenchmark()));
 * ```
 */
export function cliStartTable(result: CliStartBenchResult): string {
  return renderTable(
    ['start', 'runs', 'median ms', 'min ms', 'max ms', 'over node -e 0', 'peak RSS MiB', 'target', 'met'],
    result.timings.map((timing) => [
      timing.name,
      String(timing.runs),
      timing.medianMs.toFixed(1),
      timing.minMs.toFixed(1),
      timing.maxMs.toFixed(1),
      timing.overNodeMs === undefined ? '-' : `${timing.overNodeMs.toFixed(1)} ms`,
      timing.peakRssMiB === undefined ? '-' : timing.peakRssMiB.toFixed(1),
      timing.target === undefined ? '-' : `<= ${timing.target} ms`,
      timing.met === undefined ? '-' : timing.met ? 'yes' : 'NO',
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10' },
      'checkout-only': { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
    },
  });
  const result = await runCliStartBenchmark({
    runs: Number(values.runs),
    installed: !values['checkout-only'],
  });
  process.stdout.write(
    `atlas-audit-alerts ${result.args.join(' ')}: wall time of fresh processes, Node ${result.node}, median of ${values.runs} runs each\n`,
  );
  process.stdout.write(cliStartTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'cli-start', result })}\n`);
  if (values.strict && result.timings.some((timing) => timing.met === false)) process.exitCode = 1;
}
