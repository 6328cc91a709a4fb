import { isAbsolute, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { AtlasClient, type AtlasEvent } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { BUILTIN_LAYER, compareReplays, type RulePack, replayRules } from '../../shared/rules/index.js';
import {
  ATLAS_CREDENTIAL_ENV,
  type AtlasCommandOptions,
  addAtlasOptions,
  resolveAtlasClientOptions,
} from '../atlas-options.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';
import { readEventsFile } from '../events-file.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import {
  DEFAULT_MAX_REPLAY_EVENTS,
  orderReplayEvents,
  ReplayTooLargeError,
  readReplayEvents,
} from '../replay-events.js';
import { createReplayProgress } from '../replay-progress.js';
import { formatReplayTable, type ReplayInput, type ReplayReport, replayJsonLines } from '../replay-report.js';
import { collectIds } from '../run-options.js';
import { parseSince, type SinceValue, sinceInstant } from '../since-option.js';

interface ReplayOptions extends AtlasCommandOptions {
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

/** How far back a replay from Atlas reads when `--since` is not given. */
const DEFAULT_SINCE: SinceValue = { kind: 'ago', ms: 7 * 86_400_000 };
/** How long reading Atlas may take in all, unless `--timeout` says otherwise: as `fetch`. */
const DEFAULT_READ_TIMEOUT_MS = 10 * 60_000;

/** The Atlas flags (`addAtlasOptions`), by option name, as the command line spells them. */
const ATLAS_FLAGS: Readonly<Record<string, string>> = {
  baseUrl: '--base-url',
  flavor: '--flavor',
  allowInsecureHttp: '--allow-insecure-http',
  maxAttempts: '--max-attempts',
  timeout: '--timeout',
  maxEvents: '--max-events',
};

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
          .default(DEFAULT_MAX_REPLAY_EVENTS, DEFAULT_MAX_REPLAY_EVENTS.toLocaleString('en-US')),
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
      const io = options.io ?? processCommandIo();
      checkFlags(flags, command);
      // Layer paths are relative to where the command runs (the test's folder, in tests).
      const layers = (paths: readonly string[]): string[] =>
        paths.map((path) => (path === BUILTIN_LAYER || isAbsolute(path) ? path : resolve(io.cwd, path)));
      const rulesPack = await options.loadPack(layers(flags.rules ?? []), '--rules');
      const comparePack =
        flags.compare === undefined ? undefined : await options.loadPack(layers(flags.compare), '--compare');
      const progress = createReplayProgress(io.stderr);
      let read: { events: AtlasEvent[]; input: ReplayInput };
      try {
        read =
          flags.events !== undefined
            ? await readFromFile(flags.events, progress.note)
            : await readFromAtlas(flags, io, progress);
      } finally {
        progress.done();
      }
      const { events, duplicates } = orderReplayEvents(read.events);
      if (duplicates > 0) {
        progress.note(
          `${duplicates} ${duplicates === 1 ? 'event repeats' : 'events repeat'} the id of an earlier one: each id is evaluated once, as the poller does`,
        );
      }
      const report: ReplayReport = {
        input: read.input,
        events,
        rules: { label: labelOf(flags.rules), replay: await replayRules({ pack: rulesPack, events }) },
      };
      if (comparePack !== undefined) {
        const replay = await replayRules({ pack: comparePack, events });
        report.compare = {
          label: labelOf(flags.compare),
          replay,
          comparison: compareReplays(report.rules.replay, replay),
        };
      }
      io.stdout.write(
        flags.json
          ? replayJsonLines(report)
              .map((line) => `${JSON.stringify(line)}\n`)
              .join('')
          : formatReplayTable(report),
      );
      progress.note(closingLine(report));
      const failed = report.rules.replay.failures.length + (report.compare?.replay.failures.length ?? 0);
      if (failed > 0) {
        throw new CommandFailed(
          `${failed} ${failed === 1 ? 'evaluation' : 'evaluations'} of an event failed: the report lists the events and what went wrong`,
        );
      }
    });
}

/**
 * Refuses flag combinations that cannot mean anything: a file and Atlas sources at once, Atlas flags
 * with a file, neither a file nor a source, `--all-projects` without an organization.
 */
function checkFlags(flags: ReplayOptions, command: Command): void {
  const atlasSources = [
    ...(flags.org === undefined ? [] : ['--org']),
    ...(flags.project === undefined ? [] : ['--project']),
    ...(flags.allProjects ? ['--all-projects'] : []),
    ...(flags.since === undefined ? [] : ['--since']),
  ];
  if (flags.events !== undefined) {
    const atlasFlags = Object.entries(ATLAS_FLAGS)
      .filter(([name]) => command.getOptionValueSource(name) === 'cli')
      .map(([, flag]) => flag);
    const ignored = [...atlasSources, ...atlasFlags];
    if (ignored.length > 0) {
      throw new UsageError(
        `--events replays a file, and ${ignored.join(', ')} ${ignored.length === 1 ? 'is' : 'are'} for reading Atlas: give --events alone, or drop it to read from Atlas`,
      );
    }
    return;
  }
  if (flags.org === undefined && flags.project === undefined) {
    throw new UsageError(
      'nothing to replay: give --events FILE, or --org ID and/or --project ID to read from Atlas (--all-projects adds every project of each org)',
    );
  }
  if (flags.allProjects && flags.org === undefined) {
    throw new UsageError('--all-projects reads the projects of each --org: give at least one --org ID');
  }
}

async function readFromFile(
  path: string,
  note: (text: string) => void,
): Promise<{ events: AtlasEvent[]; input: ReplayInput }> {
  const { events, warnings } = await readEventsFile(path);
  for (const warning of warnings) note(`atlas-audit-alerts: ${warning}`);
  return { events, input: { kind: 'file', path: path === '-' ? 'stdin' : path } };
}

async function readFromAtlas(
  flags: ReplayOptions,
  io: PollCommandIo,
  progress: ReturnType<typeof createReplayProgress>,
): Promise<{ events: AtlasEvent[]; input: ReplayInput }> {
  const atlas = resolveAtlasClientOptions(flags, io.env);
  const to = systemClock.now();
  const from = sinceInstant(flags.since ?? DEFAULT_SINCE, to);
  if (from >= to) {
    throw new UsageError('--since is not in the past: give an earlier instant or a duration such as 7d');
  }
  const client = new AtlasClient({ ...atlas, logger: progress.logger });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new ReplayTimedOut()), flags.timeout);
  try {
    const { events, sources } = await readReplayEvents({
      atlas: client,
      selection: {
        orgIds: flags.org ?? [],
        projectIds: flags.project ?? [],
        allProjects: flags.allProjects === true,
      },
      from,
      to,
      maxEvents: flags.maxEvents,
      signal: deadline.signal,
      onPage: (read) => progress.page(read),
      onSource: (read) => progress.source(read),
    });
    return { events, input: { kind: 'atlas', sources: sources.map((read) => read.source), from, to } };
  } catch (error) {
    if (error instanceof ReplayTooLargeError) throw new CommandFailed(error.message);
    if (!(error instanceof ReplayTimedOut)) throw error;
    throw new CommandFailed(
      `gave up after ${formatDuration(flags.timeout)} (--timeout): Atlas answered too slowly, or the sources hold more pages than that allows. Replay a shorter --since or fewer sources, or give a longer --timeout`,
      ExitCode.network,
    );
  } finally {
    clearTimeout(timer);
    await client.close();
  }
}

/** The reason the deadline aborts the reads with. */
class ReplayTimedOut extends Error {
  constructor() {
    super('rules replay reached its --timeout');
    this.name = 'ReplayTimedOut';
  }
}

function parseMaxEvents(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 10_000_000) {
    throw new InvalidArgumentError('use a whole number of events from 1 to 10000000.');
  }
  return count;
}

function labelOf(paths: readonly string[] | undefined): string {
  return paths === undefined || paths.length === 0 ? 'built-in rules' : paths.join(' ');
}

function closingLine(report: ReplayReport): string {
  const events = `${report.events.length} ${report.events.length === 1 ? 'event' : 'events'}`;
  const alerts = (count: number): string => `${count} ${count === 1 ? 'alert' : 'alerts'}`;
  const { compare } = report;
  if (compare === undefined) return `Replayed ${events}: ${alerts(report.rules.replay.alerts)}`;
  return `Replayed ${events}: ${alerts(report.rules.replay.alerts)} with --rules, ${alerts(compare.replay.alerts)} with --compare; ${compare.comparison.eventsChanged} ${compare.comparison.eventsChanged === 1 ? 'event' : 'events'} changed`;
}
