import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import {
  collectRuleTests,
  createRuleEngine,
  formatRuleProblems,
  loadRulePack,
  MemoryCounterStore,
  RuleLoadError,
  type RulePack,
  type RuleProblem,
  ruleFileJsonSchema,
} from '../../shared/rules/index.js';
import {
  lintRulePack,
  loadEventCatalog,
  RuleSources,
  type RuleWarning,
  ruleCoverage,
} from '../../shared/rules/lint/index.js';
import { formatRuleWarnings } from '../../shared/rules/problem-format.js';
import { formatCoverageTable } from '../coverage-table.js';
import { CommandFailed, UsageError } from '../errors.js';

/** The default rule pack shipped with the command. */
const BUILT_IN_RULES = fileURLToPath(new URL('../../rules/', import.meta.url));

/** Registers the `rules` command: validate, test and evaluate rule files, and print their schema. */
export function registerRulesCommand(program: Command): void {
  const rules = program
    .command('rules')
    .description('Validate, test and try out rule files (the built-in rules/ directory by default).');

  rules
    .command('validate')
    .description(
      'Check rule files: prints a count, or every problem with its file, line and column (exit 1). Warnings (unknown event types and fields, unused lists, CIDR host bits) are printed too.',
    )
    .argument('[paths...]', 'rule files or directories', [])
    .option('--strict', 'treat warnings as errors (exit 1)')
    .action(async (paths: string[], options: { strict?: boolean }) => {
      const pack = await loadOrReport(paths);
      const warnings = await lintPack(pack);
      if (options.strict === true && warnings.length > 0) {
        reportProblems(warnings);
        throw new CommandFailed('');
      }
      if (warnings.length > 0) {
        process.stderr.write(`${formatRuleWarnings(warnings.map(withDisplayPath))}\n`);
      }
      const disabled = pack.rules.filter((rule) => rule.spec.enabled === false).length;
      const tests = pack.rules.reduce((sum, rule) => sum + (rule.spec.tests?.length ?? 0), 0);
      const warned = warnings.length === 0 ? '' : ` (${plural(warnings.length, 'warning')})`;
      write(
        `${plural(pack.rules.length, 'rule')} (${disabled} disabled), ${plural(pack.lists.size, 'list')} and ${plural(tests, 'inline test')} in ${plural(pack.files.length, 'file')}: valid${warned}\n`,
      );
    });

  rules
    .command('coverage')
    .description(
      'Which known Atlas event types each enabled rule can match, and the known types no rule covers, by scope.',
    )
    .argument('[paths...]', 'rule files or directories', [])
    .option('--json', 'print one JSON document for scripts')
    .action(async (paths: string[], options: { json?: boolean }) => {
      const pack = await loadOrReport(paths);
      const coverage = ruleCoverage(pack, loadEventCatalog());
      write(options.json === true ? `${JSON.stringify(coverage, null, 2)}\n` : formatCoverageTable(coverage));
    });

  rules
    .command('test')
    .description('Run the inline tests of rule files: one line per test, exit 1 if any fails.')
    .argument('[paths...]', 'rule files or directories', [])
    .action(async (paths: string[]) => {
      const pack = await loadOrReport(paths);
      let failed = 0;
      const cases = collectRuleTests(pack);
      for (const test of cases) {
        const result = await test.run();
        const where = `${displayPath(test.file)}:${test.line ?? '?'}`;
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
    .option('--rules <paths...>', 'rule files or directories (default: the built-in rules)')
    .action(async (options: { events: string; rules?: string[] }) => {
      const pack = await loadOrReport(options.rules ?? []);
      const source = options.events === '-' ? 'stdin' : options.events;
      const { events, warnings } = parseEvents(await readEventsText(options.events), source);
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
      process.stderr.write(`${plural(alerts.length, 'alert')} from ${plural(events.length, 'event')}\n`);
    });

  rules
    .command('schema')
    .description('Print the JSON Schema of rule files, for editors (rules/rule-file.schema.json).')
    .action(() => {
      write(`${JSON.stringify(ruleFileJsonSchema(), null, 2)}\n`);
    });
}

/** Loads a pack; on invalid rules prints every problem on stderr and fails with exit code 1. */
async function loadOrReport(paths: readonly string[]): Promise<RulePack> {
  try {
    return await loadRulePack({ paths: paths.length === 0 ? [BUILT_IN_RULES] : paths });
  } catch (error) {
    if (!(error instanceof RuleLoadError)) throw error;
    reportProblems(error.problems);
    throw new CommandFailed('');
  }
}

/** Prints problems (or warnings made errors by --strict) on stderr, with a count. */
function reportProblems(found: readonly RuleProblem[]): void {
  const problems = found.map(withDisplayPath);
  const files = new Set(problems.map((problem) => problem.file)).size;
  process.stderr.write(
    `${formatRuleProblems(problems)}\n${plural(problems.length, 'problem')} in ${plural(files, 'file')}\n`,
  );
}

/** The warnings of a loaded pack, checked against the event catalog. */
async function lintPack(pack: RulePack): Promise<RuleWarning[]> {
  return lintRulePack(pack, { catalog: loadEventCatalog(), sources: await RuleSources.read(pack.files) });
}

function withDisplayPath<T extends RuleProblem>(problem: T): T {
  return { ...problem, file: displayPath(problem.file) };
}

async function readEventsText(file: string): Promise<string> {
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks).toString('utf8');
    }
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as { code?: unknown }).code === 'ENOENT' ? 'no such file' : String(error);
    throw new UsageError(`cannot read the events file ${file}: ${reason}`, { cause: error });
  }
}

/**
 * Events from a JSON array, an Atlas events page (`{"results": [...]}`), a single event object, or JSON
 * Lines; with a warning for each entry that no rule can read.
 */
function parseEvents(text: string, file: string): { events: AtlasEvent[]; warnings: string[] } {
  let entries: unknown[];
  const trimmed = text.trim();
  try {
    const whole: unknown = trimmed === '' ? [] : JSON.parse(trimmed);
    entries = Array.isArray(whole) ? whole : hasResults(whole) ? whole.results : [whole];
  } catch {
    entries = trimmed.split('\n').flatMap((line, index) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch (error) {
        throw new UsageError(
          `${file} line ${index + 1} is not JSON (${error instanceof Error ? error.message : String(error)}): give JSON Lines, a JSON array or an Atlas events page`,
        );
      }
    });
  }
  const events: AtlasEvent[] = [];
  const warnings: string[] = [];
  entries.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      warnings.push(`${file} entry ${index + 1} is not an object: skipped`);
      return;
    }
    const event = entry as AtlasEvent;
    if (typeof event.eventTypeName !== 'string') {
      const lowerCased = Object.keys(event).some((key) => key !== key.toLowerCase())
        ? ''
        : ' and its keys are all lower case (Atlas spells them camelCase, such as eventTypeName)';
      warnings.push(
        `${file} entry ${index + 1} (id ${String(event.id ?? 'none')}) has no eventTypeName${lowerCased}: only rules that name no event type can match it`,
      );
    }
    events.push(event);
  });
  return { events, warnings };
}

function hasResults(value: unknown): value is { results: unknown[] } {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { results?: unknown }).results)
  );
}

function displayPath(file: string): string {
  const shown = relative(process.cwd(), file);
  return shown === '' || shown.startsWith('..') ? file : shown;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function write(text: string): void {
  process.stdout.write(text);
}
