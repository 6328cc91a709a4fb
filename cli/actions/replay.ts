import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { AtlasClient, type AtlasEvent } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { BUILTIN_LAYER, compareReplays, replayRules } from '../../shared/rules/index.js';
import { resolveAtlasClientOptions } from '../atlas-credentials.js';
import type { RegisterReplayCommandOptions, ReplayOptions } from '../commands/replay.js';
import { formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';
import { readEventsFile } from '../events-file.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { orderReplayEvents, ReplayTooLargeError, readReplayEvents } from '../replay-events.js';
import { createReplayProgress } from '../replay-progress.js';
import { formatReplayTable, type ReplayInput, type ReplayReport, replayJsonLines } from '../replay-report.js';
import { type SinceValue, sinceInstant } from '../since-option.js';

/** How far back a replay from Atlas reads when `--since` is not given. */
const DEFAULT_SINCE: SinceValue = { kind: 'ago', ms: 7 * 86_400_000 };
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
 * Runs `rules replay` (see `registerReplayCommand`): its flags, the command they were given to, and
 * the rule loader and streams of `options`.
 */
export async function replayAction(
  flags: ReplayOptions,
  command: Command,
  options: RegisterReplayCommandOptions,
): Promise<void> {
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
