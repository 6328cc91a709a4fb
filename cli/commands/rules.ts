import { relative } from 'node:path';
import { Argument, type Command, InvalidArgumentError } from 'commander';
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
import { formatCoverageTable } from '../coverage-table.js';
import { CommandFailed } from '../errors.js';
import { readEventsFile } from '../events-file.js';
import { counted } from '../plural.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { loadRuleLayers } from '../rule-layers.js';
import { registerReplayCommand } from './replay.js';

/** The memory of the deployed poller unless `poller.memoryMiB` says otherwise. */
const DEFAULT_FUNCTION_MEMORY_MIB = 256;

const LAYERS_HELP =
  'rule layers in order: files or directories, builtin for the built-in pack (default: builtin)';

/** The layers as arguments: `rules validate builtin my-rules`; none means the built-in pack. */
function layersArgument(): Argument {
  return new Argument(
    '[layers...]',
    'rule layers in order: files or directories, builtin for the built-in pack',
  ).default([], 'builtin');
}

/**
 * Registers the `rules` command: validate, test, evaluate and replay rule files, and print their
 * schema. `io` replaces the process's streams and environment for `rules replay` (tests).
 */
export function registerRulesCommand(program: Command, io?: PollCommandIo): void {
  const rules = program
    .command('rules')
    .description(
      'Validate, test and try out rule layers (the built-in pack by default; `builtin my-rules` tunes it).',
    );

  rules
    .command('validate')
    .description(
      'Check rule layers: prints a count, or every problem with its file, line and column (exit 1). Unknown event types and fields in your own layers are problems; the other warnings (unused lists, CIDR host bits, untested user rules, exceptions that never match, a layer list without builtin first) are printed too.',
    )
    .addArgument(layersArgument())
    .option('--rules <layers...>', 'the same layers, as other commands take them')
    .option('--strict', 'treat every warning as an error (exit 1), as rules.strict: true does at synth')
    .option(
      '--no-strict',
      'treat no warning as an error, unknown names in your own layers included, as rules.strict: false does',
    )
    .option(
      '--memory <MiB>',
      `the memory of the function the pack is deployed to (poller.memoryMiB): a pack that, loaded, would hold more than a quarter of its heap fails (default: ${DEFAULT_FUNCTION_MEMORY_MIB})`,
      parseMemory,
    )
    .action(async (paths: string[], options: { rules?: string[]; strict?: boolean; memory?: number }) => {
      const pack = await loadOrReport([...paths, ...(options.rules ?? [])]);
      const { errors, warnings } = splitWarnings({
        pack,
        warnings: await rulePackWarnings(pack),
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
    });

  rules
    .command('coverage')
    .description(
      'Which known Atlas event types each enabled rule can match, and the known types no rule covers: first those of the curated security-relevant list, then all, by scope.',
    )
    .addArgument(layersArgument())
    .option('--rules <layers...>', 'the same layers, as other commands take them')
    .option('--json', 'print one JSON document for scripts')
    .action(async (paths: string[], options: { rules?: string[]; json?: boolean }) => {
      const pack = await loadOrReport([...paths, ...(options.rules ?? [])]);
      const coverage = ruleCoverage(pack, loadEventCatalog(), loadSecurityEventTypes());
      write(options.json === true ? `${JSON.stringify(coverage, null, 2)}\n` : formatCoverageTable(coverage));
    });

  rules
    .command('test')
    .description(
      'Run the inline tests of rule layers, each against the rules as its layer leaves them: one line per test, exit 1 if any fails.',
    )
    .addArgument(layersArgument())
    .option('--rules <layers...>', 'the same layers, as other commands take them')
    .action(async (paths: string[], options: { rules?: string[] }) => {
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
    });

  rules
    .command('eval')
    .description(
      "Evaluate events against rules and print one JSON line per alert. Events are read in order, and stateful rules use each event's created time as their clock.",
    )
    .requiredOption(
      '--events <file>',
      'JSON Lines, a JSON array of events, or an Atlas events page ({"results": [...]}); - for stdin',
    )
    .option('--rules <layers...>', LAYERS_HELP)
    .action(async (options: { events: string; rules?: string[] }) => {
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
        };
        write(`${JSON.stringify(line)}\n`);
      }
      process.stderr.write(`${counted(alerts.length, 'alert')} from ${counted(events.length, 'event')}\n`);
    });

  registerReplayCommand(rules, { loadPack: loadOrReport, ...(io === undefined ? {} : { io }) });

  rules
    .command('schema')
    .description('Print the JSON Schema of rule files, for editors (rules/rule-file.schema.json).')
    .action(() => {
      write(`${JSON.stringify(ruleFileJsonSchema(), null, 2)}\n`);
    });
}

/** Loads rule layers; on invalid rules prints every problem on stderr and fails with exit code 1. */
async function loadOrReport(paths: readonly string[], layersFlag?: string): Promise<RulePack> {
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

function parseMemory(value: string): number {
  const memory = Number(value);
  if (!/^\d+$/.test(value) || memory < 128 || memory > 10_240) {
    throw new InvalidArgumentError('use a whole number of MiB from 128 to 10240, as Lambda takes.');
  }
  return memory;
}

function write(text: string): void {
  process.stdout.write(text);
}
