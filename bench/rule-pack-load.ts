import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadRulePack, measureRulePackFootprint, rulePackHeapBudget } from '../shared/rules/index.js';
import { rulePackWarnings } from '../shared/rules/lint/index.js';
import { type ImportTiming, runColdStartBenchmark } from './cold-start.js';
import { generateRuleMix } from './support/rule-mix.js';

/**
 * A large user layer, end to end: the built-in pack plus generated rules and layer-wide exceptions
 * (by default 1,000 of each, every exception applying to every rule), checked as `rules validate`
 * checks it, then bundled as `cdk synth` bundles it and imported in fresh processes with the heap limits
 * of a 256 MiB Lambda function: the cold start the function pays. Targets: `rules validate` under
 * 10 s of CPU, the loaded pack within its share of the heap, a median import under 1 s of CPU (on a
 * shared machine, wall time also counts other processes' turns on the core; it is reported beside).
 */

export interface RulePackLoadBenchOptions {
  rules?: number | undefined;
  exceptions?: number | undefined;
  /** Fresh processes importing the bundle; the median is reported. */
  runs?: number | undefined;
  lambdaMemoryMiB?: number | undefined;
}

export interface RulePackLoadBenchResult {
  rules: number;
  exceptions: number;
  lambdaMemoryMiB: number;
  /** CPU time of loading, linting and measuring the layers, as `rules validate` does. */
  validateCpuMs: number;
  serializedBytes: number;
  heapBytes: number;
  heapBudgetBytes: number;
  imports: ImportTiming[];
  met: boolean;
}

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const VALIDATE_TARGET_CPU_MS = 10_000;
const IMPORT_TARGET_MS = 1_000;

/**
 * Generates the layer, validates it, and times the bundle's import under Lambda's heap limits.
 *
 * @throws {Error} when the pack does not load, or a process cannot import the bundle (out of memory).
 * @example
 * ```ts
 * const result = await runRulePackLoadBenchmark({ rules: 1_000, exceptions: 1_000, runs: 5 });
 * ```
 */
export async function runRulePackLoadBenchmark(
  options: RulePackLoadBenchOptions = {},
): Promise<RulePackLoadBenchResult> {
  const ruleCount = options.rules ?? 1_000;
  const exceptionCount = options.exceptions ?? 1_000;
  const lambdaMemoryMiB = options.lambdaMemoryMiB ?? 256;
  const directory = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-rule-pack-load-'));
  try {
    const layer = join(directory, 'layer.yaml');
    writeFileSync(layer, generateRuleMix({ count: ruleCount, exceptions: exceptionCount, seed: 29 }));
    const cpuBefore = process.cpuUsage();
    const pack = await loadRulePack({
      paths: ['builtin', layer],
      builtinDirectory: join(PROJECT_ROOT, 'rules'),
    });
    rulePackWarnings(pack);
    const footprint = measureRulePackFootprint(pack);
    const cpu = process.cpuUsage(cpuBefore);
    const validateCpuMs = Math.round((cpu.user + cpu.system) / 1000);
    const coldStart = await runColdStartBenchmark({
      rules: ['builtin', layer],
      runs: options.runs ?? 5,
      lambdaMemoryMiB,
    });
    // Judged against this scenario's target, not the default pack's cold-start one.
    const imports = coldStart.imports.map((timing) => ({
      ...timing,
      target: IMPORT_TARGET_MS,
      met: timing.medianCpuMs < IMPORT_TARGET_MS,
    }));
    const heapBudgetBytes = rulePackHeapBudget(lambdaMemoryMiB);
    return {
      rules: pack.rules.length,
      exceptions: pack.exceptions.length,
      lambdaMemoryMiB,
      validateCpuMs,
      serializedBytes: footprint.serializedBytes,
      heapBytes: footprint.heapBytes,
      heapBudgetBytes,
      imports,
      met:
        validateCpuMs < VALIDATE_TARGET_CPU_MS &&
        footprint.heapBytes <= heapBudgetBytes &&
        imports.every((timing) => timing.met),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const numberAfter = (flag: string): number | undefined => {
    const index = process.argv.indexOf(flag);
    return index === -1 ? undefined : Number(process.argv[index + 1]);
  };
  const result = await runRulePackLoadBenchmark({
    rules: numberAfter('--rules'),
    exceptions: numberAfter('--exceptions'),
    runs: numberAfter('--runs'),
    lambdaMemoryMiB: numberAfter('--lambda-memory'),
  });
  process.stdout.write(
    `rule pack load: ${result.rules} rules and ${result.exceptions} exceptions (the built-in pack and a generated layer), Node ${process.version}\n` +
      `  rules validate: ${(result.validateCpuMs / 1000).toFixed(1)} s of CPU (target < ${VALIDATE_TARGET_CPU_MS / 1000} s)\n` +
      `  serialized ${mib(result.serializedBytes)}; loaded, the pack holds ${mib(result.heapBytes)} of heap, of the ${mib(result.heapBudgetBytes)} a ${result.lambdaMemoryMiB} MiB function gives it\n`,
  );
  for (const timing of result.imports) {
    process.stdout.write(
      `  ${timing.scenario}: median CPU ${timing.medianCpuMs.toFixed(0)} ms (target < ${IMPORT_TARGET_MS} ms), wall ${timing.medianMs.toFixed(0)} ms (min ${timing.minMs.toFixed(0)}, max ${timing.maxMs.toFixed(0)}), ${timing.runs} runs\n`,
    );
  }
  process.stdout.write(`${JSON.stringify({ benchmark: 'rule-pack-load', ...result })}\n`);
  if (!result.met) process.exitCode = 1;
}
