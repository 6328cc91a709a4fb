import { type Command, Option } from 'commander';
import { type AtlasCommandOptions, addAtlasOptions, type Environment } from '../atlas-options.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import { collectIds } from '../poll-options.js';
import { parseSince, type SinceValue } from '../since-option.js';

/** The parsed flags every `fetch` subcommand takes. */
export interface FetchCommonOptions extends AtlasCommandOptions {
  /** Milliseconds the whole command may take. */
  timeout: number;
}

/** How long a `fetch` may take in all, unless `--timeout` says otherwise. */
const DEFAULT_FETCH_TIMEOUT_MS = 10 * 60_000;

/** The parsed flags of `fetch events`. */
export interface FetchEventsOptions extends FetchCommonOptions {
  project?: string[];
  org?: string[];
  allProjects?: boolean;
  since?: SinceValue;
  until?: SinceValue;
  type?: string[];
  includeRaw?: boolean;
}

/** The parsed flags of `fetch api-keys`. */
export interface FetchApiKeysOptions extends FetchCommonOptions {
  org: string;
}

/** The parsed flags of `fetch access-list`. */
export interface FetchAccessListOptions extends FetchCommonOptions {
  org: string;
  key: string;
}

/** A stream the command writes to; `isTTY` decides whether progress is shown. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean };

/** Where the command reads its environment and writes its output: the process's own by default. */
export interface FetchCommandIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
}

/**
 * Registers `fetch events`, `fetch api-keys` and `fetch access-list`: reads from Atlas and prints one
 * JSON object per line on stdout, every page followed. Progress goes to stderr, and only when stderr
 * is a terminal, so pipes get clean JSON Lines.
 *
 * @example
 * ```sh
 * atlas-audit-alerts fetch events --org 5f4e3d2c1b0a998877665544 --since 2024-05-01T00:00:00Z --type API_KEY_CREATED
 * ```
 */
export function registerFetchCommand(program: Command, io?: FetchCommandIo): void {
  const fetch = program
    .command('fetch')
    .description('Read events, API keys or access lists from Atlas and print them as JSON Lines.');

  addFetchOptions(
    fetch
      .command('events')
      .description(
        'Print the events of projects and organizations, one JSON object per line; from several, merged newest first.',
      )
      .option(
        '--project <ids...>',
        'project (group) ids; repeat the flag or separate ids with commas',
        collectIds('--project'),
      )
      .option(
        '--org <ids...>',
        'organization ids; repeat the flag or separate ids with commas',
        collectIds('--org'),
      )
      .option('--all-projects', 'also read every project of each --org')
      .option(
        '--since <when>',
        'only events created at or after this time: a duration back from now (7d, 12h) or an ISO-8601 date or instant (2024-05-01T00:00:00Z)',
        parseSince,
      )
      .option(
        '--until <when>',
        'only events created at or before this time, written as --since is',
        parseSince,
      )
      .option('--type <eventType>', 'only this event type; repeat it, or separate types with commas', collect)
      .option('--include-raw', "include each event's raw document"),
  ).action(async (options: FetchEventsOptions) => {
    const { fetchEventsAction } = await import('../actions/fetch.js');
    await fetchEventsAction(options, io);
  });

  addFetchOptions(
    fetch
      .command('api-keys')
      .description("Print an organization's API keys (private keys masked), one JSON object per line.")
      .requiredOption('--org <id>', 'organization id'),
  ).action(async (options: FetchApiKeysOptions) => {
    const { fetchApiKeysAction } = await import('../actions/fetch.js');
    await fetchApiKeysAction(options, io);
  });

  addFetchOptions(
    fetch
      .command('access-list')
      .description("Print an API key's access-list entries, one JSON object per line.")
      .requiredOption('--org <id>', 'organization id')
      .requiredOption('--key <id>', 'API key id'),
  ).action(async (options: FetchAccessListOptions) => {
    const { fetchAccessListAction } = await import('../actions/fetch.js');
    await fetchAccessListAction(options, io);
  });
}

/** The Atlas options and `--timeout`. */
function addFetchOptions(command: Command): Command {
  return addAtlasOptions(command).addOption(
    new Option(
      '--timeout <duration>',
      'give up when the whole command took DURATION, however slowly Atlas answers',
    )
      .argParser(durationArgument({ minMs: 1_000 }))
      .default(DEFAULT_FETCH_TIMEOUT_MS, formatDuration(DEFAULT_FETCH_TIMEOUT_MS)),
  );
}

function collect(value: string, previous: string[] | undefined): string[] {
  const types = value
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '');
  return [...(previous ?? []), ...types];
}
