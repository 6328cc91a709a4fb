import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { pollerEsbuildOptions } from '../infra/bundling.js';
import { parseDeployConfig } from '../infra/config.js';
import { pollerEnvironment } from '../infra/poller-environment.js';
import { buildRulePackFile } from '../infra/rule-pack-file.js';
import { lambdaHeapOptions } from '../shared/lambda-heap.js';
import { currentNodeRuntime, type NodeRuntime } from './support/node-runtime.js';

/**
 * The poller's cold start: the size of the bundle the stack deploys (built with the stack's own esbuild
 * options and the default rule pack) and the time a fresh Node process takes to import it, which is the
 * module-scope work of a Lambda cold start (configuration parsing, rule pack compilation, clients).
 * Targets: a bundle under 1.5 MiB minified; a median import under 500 ms.
 */

export interface ColdStartBenchOptions {
  /** Fresh processes per scenario; the median is reported. */
  runs?: number;
  /** Rule directories, relative to the project root. */
  rules?: readonly string[];
  /**
   * The Node executables to time the import on, each in its own fresh processes; their runs alternate,
   * so a busy moment of the machine falls on all of them alike. Default: the Node running this.
   */
  runtimes?: readonly NodeRuntime[];
  /** Import with the V8 heap limits of a Lambda function of this much memory. Default: Node's own. */
  lambdaMemoryMiB?: number;
}

export interface BundleSize {
  bundleBytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
  target: number;
  met: boolean;
}

export interface ImportTiming {
  scenario: string;
  /** The Node version the processes ran, as `v24.21.0`. */
  node: string;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /**
   * Median CPU time (user and system, all threads) the process spent on the import: unlike the wall
   * time, it hardly grows when other work shares the machine.
   */
  medianCpuMs: number;
  target: number;
  met: boolean;
}

export interface ColdStartBenchResult {
  size: BundleSize;
  imports: ImportTiming[];
  ruleCount: number;
  /** The heap the loaded rule pack holds, as `cdk synth` measured it, in bytes. */
  ruleHeapBytes: number;
}

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE_TARGET_BYTES = 1.5 * 1024 * 1024;
const IMPORT_TARGET_MS = 500;

/**
 * Builds the poller bundle and times its import in fresh processes, on each of the given runtimes.
 *
 * @throws {Error} when the bundle cannot be built or a process fails to import it, with its stderr.
 * @example
 * ```ts
 * const { size, imports } = await runColdStartBenchmark({ runs: 5 });
 * ```
 */
export async function runColdStartBenchmark(
  options: ColdStartBenchOptions = {},
): Promise<ColdStartBenchResult> {
  const runs = options.runs ?? 20;
  const workDirectory = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-cold-start-'));
  try {
    const outdir = join(workDirectory, 'bundle');
    const rulePack = buildRulePackFile({
      paths: options.rules ?? ['rules'],
      baseDirectory: PROJECT_ROOT,
      outputDirectory: outdir,
      // Generated layers name fields the catalog does not know: what is timed is the load, not the lint.
      strict: false,
    });
    // The function's code as the construct assembles it: the bundle, and the rule pack beside it.
    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir }));
    const bundlePath = join(outdir, 'index.mjs');
    const bundleBytes = statSync(bundlePath).size;
    const size: BundleSize = {
      bundleBytes,
      gzipBytes: gzipSync(await readFile(bundlePath)).length,
      sourceMapBytes: statSync(`${bundlePath}.map`).size,
      target: BUNDLE_TARGET_BYTES,
      met: bundleBytes < BUNDLE_TARGET_BYTES,
    };
    const environment = lambdaLikeEnvironment();
    const heap = options.lambdaMemoryMiB === undefined ? [] : lambdaHeapOptions(options.lambdaMemoryMiB);
    const heapNote =
      options.lambdaMemoryMiB === undefined ? '' : `, heap of a ${options.lambdaMemoryMiB} MiB Lambda`;
    const nodeOptions = (...flags: string[]): string =>
      [...flags, ...heap].filter((flag) => flag !== '').join(' ');
    const imports = timeImports({
      bundlePath,
      runs,
      runtimes: options.runtimes ?? [currentNodeRuntime()],
      scenarios: [
        {
          scenario: `import, as deployed (--enable-source-maps${heapNote})`,
          environment: { ...environment, NODE_OPTIONS: nodeOptions(environment.NODE_OPTIONS ?? '') },
        },
        {
          scenario: `import without source maps${heapNote}`,
          environment: { ...environment, NODE_OPTIONS: nodeOptions() },
        },
      ],
    });
    return { size, imports, ruleCount: rulePack.ruleCount, ruleHeapBytes: rulePack.heapBytes };
  } finally {
    rmSync(workDirectory, { recursive: true, force: true });
  }
}

/** The variables the stack gives the function, with resource names of realistic length. */
function lambdaLikeEnvironment(): Record<string, string> {
  const config = parseDeployConfig({
    input: { sources: { orgIds: ['5f4e3d2c1b0a998877665544'], allProjectsOfOrgs: true } },
    origin: 'the cold-start benchmark',
  });
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    ...pollerEnvironment({
      config,
      resources: {
        tableName: 'AtlasAuditAlerts-StateTable962DE04C-1A2B3C4D5E6F7',
        topicArn: 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertsTopicCF7C81C9-1A2B3C4D5E6F',
        secretArn:
          'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentialsSecret30718703-AbCdEf',
      },
      toJsonString: JSON.stringify,
    }),
  };
}

interface ImportScenario {
  scenario: string;
  environment: Record<string, string>;
}

interface TimeImportsOptions {
  bundlePath: string;
  runs: number;
  runtimes: readonly NodeRuntime[];
  scenarios: readonly ImportScenario[];
}

/** Every scenario on every runtime, `runs` times each; run after run, all of them take their turn. */
function timeImports({ bundlePath, runs, runtimes, scenarios }: TimeImportsOptions): ImportTiming[] {
  const url = JSON.stringify(pathToFileURL(bundlePath).href);
  const script = [
    'const cpuBefore = process.cpuUsage();',
    'const started = performance.now();',
    `await import(${url});`,
    'const ms = performance.now() - started;',
    'const cpu = process.cpuUsage(cpuBefore);',
    'process.stdout.write(JSON.stringify([ms, (cpu.user + cpu.system) / 1000]));',
  ].join(' ');
  const cases = runtimes.flatMap((runtime) =>
    scenarios.map((scenario) => ({ runtime, scenario, timings: [] as number[], cpuTimes: [] as number[] })),
  );
  for (let run = 0; run < runs; run++) {
    for (const { runtime, scenario, timings, cpuTimes } of cases) {
      const result = spawnSync(runtime.execPath, ['--input-type=module', '-e', script], {
        env: scenario.environment,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const [ms, cpuMs] = parseFigures(result.stdout);
      if (result.status !== 0 || ms === undefined || cpuMs === undefined) {
        throw new Error(
          `A fresh Node ${runtime.version} process could not import the bundle (exit ${result.status}): ${result.stderr.slice(-2000)}`,
        );
      }
      timings.push(ms);
      cpuTimes.push(cpuMs);
    }
  }
  return cases.map(({ runtime, scenario, timings, cpuTimes }) => {
    const medianMs = round(median(timings));
    return {
      scenario: scenario.scenario,
      node: runtime.version,
      runs,
      medianMs,
      minMs: round(Math.min(...timings)),
      maxMs: round(Math.max(...timings)),
      medianCpuMs: round(median(cpuTimes)),
      target: IMPORT_TARGET_MS,
      met: medianMs < IMPORT_TARGET_MS,
    };
  });
}

/** The child's `[wall ms, CPU ms]`, or no figures when it printed something else. */
function parseFigures(stdout: string): [number, number] | [] {
  try {
    const figures: unknown = JSON.parse(stdout);
    if (Array.isArray(figures) && figures.length === 2 && figures.every(Number.isFinite)) {
      return [figures[0] as number, figures[1] as number];
    }
  } catch {
    // Not JSON: the import printed something or failed; the caller reports it.
  }
  return [];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return `${line(header)}\n${rows.map(line).join('\n')}\n`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runColdStartBenchmark();
  const { size, imports } = result;
  process.stdout.write(
    `poller cold start, Node ${process.version}, ${result.ruleCount} rules in the bundle\n`,
  );
  process.stdout.write(
    table(
      ['bundle', 'minified', 'gzip', 'source map', 'target', 'met'],
      [
        [
          'index.mjs',
          kib(size.bundleBytes),
          kib(size.gzipBytes),
          kib(size.sourceMapBytes),
          `< ${kib(size.target)}`,
          size.met ? 'yes' : 'NO',
        ],
      ],
    ),
  );
  process.stdout.write(
    table(
      ['scenario', 'node', 'runs', 'median ms', 'min ms', 'max ms', 'median CPU ms', 'target', 'met'],
      imports.map((timing) => [
        timing.scenario,
        timing.node,
        String(timing.runs),
        timing.medianMs.toFixed(1),
        timing.minMs.toFixed(1),
        timing.maxMs.toFixed(1),
        timing.medianCpuMs.toFixed(1),
        `< ${timing.target}`,
        timing.met ? 'yes' : 'NO',
      ]),
    ),
  );
  process.stdout.write(`${JSON.stringify({ benchmark: 'cold-start', ...result })}\n`);
  if (!size.met || imports.some((timing) => !timing.met)) process.exitCode = 1;
}
