import { relative } from 'node:path';
import {
  checkRulePackFootprint,
  collectRuleTests,
  createRuleEngine,
  formatRuleProblems,
  MemoryCounterStore,
  measureRulePackFootprint,
  RuleLoadError,
  type RulePack,
  type RuleProblem,
  ruleFileJsonSchema,
} from '../../shared/rules/index.js';
import {
  loadEventCatalog,
  loadSecurityEventTypes,
  ruleCoverage,
  rulePackWarnings,
  splitWarnings,
} from '../../shared/rules/lint/index.js';
import { formatRuleWarnings } from '../../shared/rules/problem-format.js';
import {
  DEFAULT_FUNCTION_MEMORY_MIB,
  type RulesCoverageOptions,
  type RulesEvalOptions,
  type RulesLayerOptions,
  type RulesValidateOptions,
} from '../commands/rules.js';
import { formatCoverageTable } from '../coverage-table.js';
import { CommandFailed } from '../errors.js';
import { readEventsFile } from '../events-file.js';
import { counted } from '../plural.js';
import { loadRuleLayers } from '../rule-layers.js';

/** Runs `rules validate`: checks the layers given as arguments and with `--rules`. */
export async function rulesValidateAction(paths: string[], options: RulesValidateOptions): Promise<void> {
  const pack = await loadOrReport([...paths, ...(options.rules ?? [])]);
  const { errors, warnings } = splitWarnings({
    pack,
    warnings: rulePackWarnings(pack),
    strict: options.strict,
  });
  if (errors.length > 0) {
    reportProblems([...errors, ...warnings], errors.length);
    throw new CommandFailed('');
  }
  if (warnings.length > 0) {
    process.stderr.write(`${formatRuleWarnings(warnings.map(withDisplayPath))}\n`);
  }
  checkRulePackFootprint(measureRulePackFootprint(pack), {
    memoryMiB: options.memory ?? DEFAULT_FUNCTION_MEMORY_MIB,
    memorySetting: 'poller.memoryMiB when deploying; check with rules validate --memory',
  });
  const disabled = pack.rules.filter((rule) => rule.spec.enabled === false).length;
  const layers =
    pack.layers.length > 1 ? ` (layers: ${pack.layers.map((layer) => layer.name).join(', ')})` : '';
  const warned = warnings.length === 0 ? '' : ` (${counted(warnings.length, 'warning')})`;
  write(
    `${counted(pack.rules.length, 'rule')} (${disabled} disabled), ${counted(pack.lists.size, 'list')} and ${counted(pack.tests.length, 'inline test')} in ${counted(pack.files.length, 'file')}${layers}: valid${warned}\n`,
  );
}

/** Runs `rules coverage`: the event types the layers' enabled rules can match, and those none covers. */
export async function rulesCoverageAction(paths: string[], options: RulesCoverageOptions): Promise<void> {
  const pack = await loadOrReport([...paths, ...(options.rules ?? [])]);
  const coverage = ruleCoverage(pack, loadEventCatalog(), loadSecurityEventTypes());
  write(options.json === true ? `${JSON.stringify(coverage, null, 2)}\n` : formatCoverageTable(coverage));
}

/** Runs `rules test`: the inline tests of each layer, one line each. */
export async function rulesTestAction(paths: string[], options: RulesLayerOptions): Promise<void> {
  const pack = await loadOrReport([...paths, ...(options.rules ?? [])]);
  let failed = 0;
  const cases = collectRuleTests(pack);
  const layered = pack.layers.length > 1;
  for (const test of cases) {
    const result = await test.run();
    const where = `${layered ? `${test.layer}: ` : ''}${displayPath(test.file)}:${test.line ?? '?'}`;
    write(`${result.passed ? 'ok  ' : 'FAIL'}  ${test.ruleId} › ${test.name} (${where})\n`);
    for (const failure of result.failures) write(`        ${failure}\n`);
    if (!result.passed) failed++;
  }
  write(`${cases.length - failed} passed, ${failed} failed\n`);
  if (failed > 0) throw new CommandFailed('');
}

/** Runs `rules eval`: one JSON line per alert the events raise. */
export async function rulesEvalAction(options: RulesEvalOptions): Promise<void> {
  const pack = await loadOrReport(options.rules ?? []);
  const { events, warnings } = await readEventsFile(options.events);
  for (const warning of warnings) process.stderr.write(`atlas-audit-alerts: ${warning}\n`);
  const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
  const alerts = await engine.evaluate(events);
  for (const alert of alerts) {
    const line = {
      ruleId: alert.ruleId,
      severity: alert.severity,
      title: alert.title,
      summary: alert.summary,
      eventIds: alert.events.map((event) => event.id ?? null),
      fingerprint: alert.fingerprint,
      ...(alert.rollUp === undefined
        ? {}
        : {
            rollUp: {
              suppressed: alert.rollUp.suppressed,
              first: new Date(alert.rollUp.first).toISOString(),
              last: new Date(alert.rollUp.last).toISOString(),
            },
          }),
    };
    write(`${JSON.stringify(line)}\n`);
  }
  process.stderr.write(`${counted(alerts.length, 'alert')} from ${counted(events.length, 'event')}\n`);
}

/** Runs `rules schema`: prints the JSON Schema of rule files. */
export function rulesSchemaAction(): void {
  write(`${JSON.stringify(ruleFileJsonSchema(), null, 2)}\n`);
}

/** Loads rule layers; on invalid rules prints every problem on stderr and fails with exit code 1. */
export async function loadOrReport(paths: readonly string[], layersFlag?: string): Promise<RulePack> {
  try {
    return await loadRuleLayers(paths, layersFlag);
  } catch (error) {
    if (!(error instanceof RuleLoadError)) throw error;
    reportProblems(error.problems);
    throw new CommandFailed('');
  }
}

/**
 * Prints problems (and warnings made errors) on stderr, the first `count` of `found`, with the
 * warnings after them marked among them in file and line order, then a count of the problems and of
 * the files they are in.
 */
function reportProblems(found: readonly RuleProblem[], count = found.length): void {
  const problems = found.map(withDisplayPath);
  const files = new Set(problems.slice(0, count).map((problem) => problem.file)).size;
  const fileOrder = new Map<string, number>();
  for (const problem of problems)
    if (!fileOrder.has(problem.file)) fileOrder.set(problem.file, fileOrder.size);
  const shown = [...problems].sort(
    (a, b) =>
      (fileOrder.get(a.file) ?? 0) - (fileOrder.get(b.file) ?? 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
  process.stderr.write(
    `${formatRuleProblems(shown)}\n${counted(count, 'problem')} in ${counted(files, 'file')}\n`,
  );
}

function withDisplayPath<T extends RuleProblem>(problem: T): T {
  return { ...problem, file: displayPath(problem.file) };
}

function displayPath(file: string): string {
  const shown = relative(process.cwd(), file);
  return shown === '' || shown.startsWith('..') ? file : shown;
}

function write(text: string): void {
  process.stdout.write(text);
}
