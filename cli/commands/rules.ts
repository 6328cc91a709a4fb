import { Argument, type Command, InvalidArgumentError } from 'commander';
import type { PollCommandIo } from '../poll-command-io.js';
import { registerReplayCommand } from './replay.js';

/** The parsed flags of a `rules` command that takes layers. */
export interface RulesLayerOptions {
  rules?: string[];
}

/** The parsed flags of `rules validate`. */
export interface RulesValidateOptions extends RulesLayerOptions {
  strict?: boolean;
  memory?: number;
}

/** The parsed flags of `rules coverage`. */
export interface RulesCoverageOptions extends RulesLayerOptions {
  json?: boolean;
}

/** The parsed flags of `rules eval`. */
export interface RulesEvalOptions extends RulesLayerOptions {
  events: string;
}

/** The memory of the deployed poller unless `poller.memoryMiB` says otherwise. */
export const DEFAULT_FUNCTION_MEMORY_MIB = 256;

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
    .action(async (paths: string[], options: RulesValidateOptions) => {
      const { rulesValidateAction } = await import('../actions/rules.js');
      await rulesValidateAction(paths, options);
    });

  rules
    .command('coverage')
    .description(
      'Which known Atlas event types each enabled rule can match, and the known types no rule covers: first those of the curated security-relevant list, then all, by scope.',
    )
    .addArgument(layersArgument())
    .option('--rules <layers...>', 'the same layers, as other commands take them')
    .option('--json', 'print one JSON document for scripts')
    .action(async (paths: string[], options: RulesCoverageOptions) => {
      const { rulesCoverageAction } = await import('../actions/rules.js');
      await rulesCoverageAction(paths, options);
    });

  rules
    .command('test')
    .description(
      'Run the inline tests of rule layers, each against the rules as its layer leaves them: one line per test, exit 1 if any fails.',
    )
    .addArgument(layersArgument())
    .option('--rules <layers...>', 'the same layers, as other commands take them')
    .action(async (paths: string[], options: RulesLayerOptions) => {
      const { rulesTestAction } = await import('../actions/rules.js');
      await rulesTestAction(paths, options);
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
    .action(async (options: RulesEvalOptions) => {
      const { rulesEvalAction } = await import('../actions/rules.js');
      await rulesEvalAction(options);
    });

  registerReplayCommand(rules, {
    loadPack: async (paths, flag) => {
      const { loadOrReport } = await import('../actions/rules.js');
      return loadOrReport(paths, flag);
    },
    ...(io === undefined ? {} : { io }),
  });

  rules
    .command('schema')
    .description('Print the JSON Schema of rule files, for editors (rules/rule-file.schema.json).')
    .action(async () => {
      const { rulesSchemaAction } = await import('../actions/rules.js');
      rulesSchemaAction();
    });
}

function parseMemory(value: string): number {
  const memory = Number(value);
  if (!/^\d+$/.test(value) || memory < 128 || memory > 10_240) {
    throw new InvalidArgumentError('use a whole number of MiB from 128 to 10240, as Lambda takes.');
  }
  return memory;
}
