import { type Command, InvalidArgumentError, Option } from 'commander';
import type { RulePack } from '../../shared/rules/index.js';
import { ATLAS_CREDENTIAL_ENV, type AtlasCommandOptions, addAtlasOptions } from '../atlas-options.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { collectIds } from '../poll-options.js';
import { DEFAULT_MAX_REPLAY_EVENTS } from '../replay-events.js';
import { parseSince, type SinceValue } from '../since-option.js';

/** The parsed flags of `rules replay`. */
export interface ReplayOptions extends AtlasCommandOptions {
  rules?: string[];
  compare?: string[];
  events?: string;
  org?: string[];
  project?: string[];
  allProjects?: boolean;
  since?: SinceValue;
  json?: boolean;
  /** Milliseconds the reads from Atlas may take in all. */
  timeout: number;
  maxEvents: number;
}

/** Options of {@link registerReplayCommand}. */
export interface RegisterReplayCommandOptions {
  /**
   * Loads the rule set named by rule paths (the built-in rules for none), as the other `rules`
   * commands load theirs; on invalid rules it prints the problems and throws. `flag` is the one the
   * paths were given with, for the advice the problems give.
   */
  loadPack: (paths: readonly string[], flag: '--rules' | '--compare') => Promise<RulePack>;
  /** The process's own streams and environment by default. */
  io?: PollCommandIo;
}

/** How long reading Atlas may take in all, unless `--timeout` says otherwise: as `fetch`. */
const DEFAULT_READ_TIMEOUT_MS = 10 * 60_000;

/**
 * Registers `rules replay` under the `rules` command: evaluates a rule set over past events, read
 * from Atlas (`--org`, `--project`, `--all-projects`, `--since`, the credentials and Atlas flags of
 * `run`) or from a file (`--events`), with state in memory only and nothing delivered, and prints
 * per rule the events matched and the alerts raised, and the alerts by severity. With `--compare` it
 * evaluates a second rule set over the same events, shows both side by side and lists every event
 * whose alerts changed. A table by default, JSON Lines with `--json`; progress and warnings on
 * stderr. Exit 0, or 1 when an event could not be evaluated (the report says which).
 *
 * @example
 * ```sh
 * atlas-audit-alerts rules replay --org 5f4e3d2c1b0a998877665544 --all-projects --since 7d --compare builtin my-rules
 * ```
 */
export function registerReplayCommand(rules: Command, options: RegisterReplayCommandOptions): void {
  addAtlasOptions(
    rules
      .command('replay')
      .description(
        'Evaluate rules over past events from Atlas or a file, writing no state and sending nothing: per rule the events matched and the alerts raised; with --compare, a second rule set side by side and the events whose alerts change.',
      )
      .option(
        '--rules <layers...>',
        'rule layers in order: files or directories, builtin for the built-in pack (default: builtin)',
      )
      .option(
        '--compare <layers...>',
        'a second set of rule layers to evaluate over the same events and compare with --rules (builtin my-rules: the built-in pack tuned by my-rules)',
      )
      .option(
        '--events <file>',
        'replay this file instead of reading Atlas: JSON Lines, a JSON array or an Atlas events page; - for stdin',
      )
      .option('--org <ids...>', 'read the events of these organizations', collectIds('--org'))
      .option('--project <ids...>', 'read the events of these projects', collectIds('--project'))
      .option('--all-projects', 'also read the events of every project of each --org')
      .option(
        '--since <when>',
        'read events created since a duration ago (7d, 12h) or an ISO-8601 date or instant (default: 7d)',
        parseSince,
      )
      .option('--json', 'print JSON Lines instead of a table')
      .addOption(
        new Option(
          '--timeout <duration>',
          'give up reading Atlas when it took DURATION in all, however slowly it answers',
        )
          .argParser(durationArgument({ minMs: 1_000 }))
          .default(DEFAULT_READ_TIMEOUT_MS, formatDuration(DEFAULT_READ_TIMEOUT_MS)),
      )
      .addOption(
        new Option(
          '--max-events <count>',
          'stop reading Atlas past COUNT events, all sources together: a replay holds them all in memory',
        )
          .argParser(parseMaxEvents)
          .default(DEFAULT_MAX_REPLAY_EVENTS, groupedDigits(DEFAULT_MAX_REPLAY_EVENTS)),
      ),
  )
    .addHelpText(
      'after',
      `
Credentials for Atlas come from the environment, as for run: ${ATLAS_CREDENTIAL_ENV.publicKey} and
${ATLAS_CREDENTIAL_ENV.privateKey} (an API key), or ${ATLAS_CREDENTIAL_ENV.clientId} and ${ATLAS_CREDENTIAL_ENV.clientSecret}.

Examples:
  atlas-audit-alerts rules replay --org 5f4e3d2c1b0a998877665544 --all-projects --since 7d
  atlas-audit-alerts rules replay --events events.jsonl --rules builtin --compare builtin my-rules
  atlas-audit-alerts rules replay --project 5f4e3d2c1b0a998877665545 --since 2024-05-01 --json`,
    )
    .action(async (flags: ReplayOptions, command: Command) => {
      const { replayAction } = await import('../actions/replay.js');
      await replayAction(flags, command, options);
    });
}

function parseMaxEvents(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 10_000_000) {
    throw new InvalidArgumentError('use a whole number of events from 1 to 10000000.');
  }
  return count;
}

/**
 * A whole number with a comma every three digits, as `toLocaleString('en-US')` writes it, without
 * the locale data it loads first, which cost every start of the command about 18 ms.
 */
function groupedDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+$)/g, ',');
}
