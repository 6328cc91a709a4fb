/**
 * `npm run mutate [-- <area>...] [--file <path>]... [--concurrency N] [--force]`: StrykerJS over the
 * core modules of one or more areas of `shared/` (all of them when none is named), then one table of
 * mutation scores per file. `--file` narrows a run to some of the areas' modules, each with its own
 * test files, for an area too slow to run whole. Runs are incremental: results of unchanged code and
 * tests are reused from `reports/mutation/<area>/incremental.json` (`reports/mutation/<area>/<module>/`
 * for a `--file` run); `--force` runs every mutant again. The HTML report of each run is written to the
 * same folder, as `index.html`.
 *
 * Exits 1 when a file scores below {@link REQUIRED_SCORE} percent, 2 on a usage error.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { MutantResult, PartialStrykerOptions } from '@stryker-mutator/api/core';
import { Stryker } from '@stryker-mutator/core';
import { type MutationAreaName, mutationAreas } from './areas.js';

/** The score every core module is held to. */
const REQUIRED_SCORE = 90;

/** Mutants counted in a score: detected ones over all that a test could have detected. */
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

interface FileScore {
  file: string;
  detected: number;
  undetected: number;
}

/** What one Stryker run mutates and runs: an area, or some of its modules. */
interface MutationRun {
  area: MutationAreaName;
  mutate: string[];
  testFiles: string[];
  reportDir: string;
}

/**
 * The runs for `areas`: one per area, or with `files`, one per named module of those areas (a module's
 * test files are the entry of `testFiles` at its index in `mutate`).
 */
function plannedRuns(areas: readonly MutationAreaName[], files: readonly string[]): MutationRun[] {
  const runs: MutationRun[] = [];
  for (const area of areas) {
    const { mutate, testFiles } = mutationAreas[area];
    if (files.length === 0) {
      runs.push({
        area,
        mutate: [...mutate],
        testFiles: [...testFiles],
        reportDir: `reports/mutation/${area}`,
      });
      continue;
    }
    mutate.forEach((file, index) => {
      const tests = testFiles[index];
      if (!files.includes(file) || tests === undefined) return;
      const module = file.replace(/^.*\//, '').replace(/\.ts$/, '');
      runs.push({
        area,
        mutate: [file],
        testFiles: [tests],
        reportDir: `reports/mutation/${area}/${module}`,
      });
    });
  }
  return runs;
}

function strykerOptions(run: MutationRun, concurrency: number, force: boolean): PartialStrykerOptions {
  const { reportDir } = run;
  return {
    testRunner: 'vitest',
    vitest: {
      configFile: mutationAreas[run.area].dynamoDbLocal
        ? 'vitest.config.ts'
        : 'test/mutation/vitest.config.ts',
      related: false,
    },
    mutate: run.mutate,
    testFiles: run.testFiles,
    coverageAnalysis: 'perTest',
    concurrency,
    incremental: true,
    incrementalFile: `${reportDir}/incremental.json`,
    force,
    reporters: ['clear-text', 'html', 'json', 'progress'],
    htmlReporter: { fileName: `${reportDir}/index.html` },
    jsonReporter: { fileName: `${reportDir}/mutation.json` },
    clearTextReporter: { reportTests: false, reportMutants: true, reportScoreTable: true },
    thresholds: { high: REQUIRED_SCORE, low: 80, break: null },
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['cdk.out', 'dist', 'coverage', '.atlas-audit-alerts', 'reports'],
    cleanTempDir: 'always',
    // Static mutants (constants evaluated once, when a module loads) are not reliably re-evaluated by the
    // vitest runner between mutants, and each one would run every test file: left out and counted apart.
    ignoreStatic: true,
    timeoutMS: 10_000,
  };
}

function scoresByFile(results: readonly MutantResult[]): FileScore[] {
  const byFile = new Map<string, FileScore>();
  for (const result of results) {
    // Static mutants are left out of runs (see ignoreStatic); an incremental file from an older run
    // may still hold them.
    if (result.static === true) continue;
    const file = relative(process.cwd(), result.fileName);
    const score = byFile.get(file) ?? { file, detected: 0, undetected: 0 };
    if (DETECTED.has(result.status)) score.detected += 1;
    if (UNDETECTED.has(result.status)) score.undetected += 1;
    byFile.set(file, score);
  }
  return [...byFile.values()].sort((a, b) => a.file.localeCompare(b.file));
}

function percent(score: FileScore): number {
  const total = score.detected + score.undetected;
  return total === 0 ? 100 : (100 * score.detected) / total;
}

function printTable(scores: readonly FileScore[]): void {
  const width = Math.max(...scores.map((score) => score.file.length), 'file'.length);
  console.log(`\n${'file'.padEnd(width)}  score    detected  survived`);
  for (const score of scores) {
    const mark = percent(score) < REQUIRED_SCORE ? `  below ${REQUIRED_SCORE}%` : '';
    console.log(
      `${score.file.padEnd(width)}  ${percent(score).toFixed(1).padStart(5)}%  ${String(score.detected).padStart(8)}  ${String(score.undetected).padStart(8)}${mark}`,
    );
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      concurrency: { type: 'string', default: '2' },
      force: { type: 'boolean', default: false },
      file: { type: 'string', multiple: true, default: [] },
    },
  });
  const known = Object.keys(mutationAreas);
  const unknown = positionals.filter((name) => !known.includes(name));
  const concurrency = Number(values.concurrency);
  const areas = (positionals.length > 0 ? positionals : known) as MutationAreaName[];
  const modules: string[] = areas.flatMap((area) => mutationAreas[area]?.mutate ?? []);
  const unknownFiles = values.file.filter((file) => !modules.includes(file));
  if (unknown.length > 0 || unknownFiles.length > 0 || !Number.isInteger(concurrency) || concurrency < 1) {
    console.error(
      `usage: npm run mutate -- [${known.join('|')}]... [--file shared/<area>/<module>.ts]... [--concurrency N] [--force]` +
        (unknown.length > 0 ? `\nunknown area: ${unknown.join(', ')}` : '') +
        (unknownFiles.length > 0
          ? `\nnot a module of ${areas.join(', ')}: ${unknownFiles.join(', ')} (modules: ${modules.join(', ')})`
          : ''),
    );
    return 2;
  }
  const scores: FileScore[] = [];
  for (const run of plannedRuns(areas, values.file)) {
    console.log(`\nmutation testing ${run.mutate.length === 1 ? run.mutate[0] : `shared/${run.area}`}`);
    const results = await new Stryker(strykerOptions(run, concurrency, values.force)).runMutationTest();
    scores.push(...scoresByFile(results));
  }
  printTable(scores);
  return scores.some((score) => percent(score) < REQUIRED_SCORE) ? 1 : 0;
}

// Stryker leaves handles open and sets its own exit code: end with the one this run earned.
process.exit(await main());
