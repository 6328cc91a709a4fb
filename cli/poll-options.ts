import { type Command, InvalidArgumentError } from 'commander';
import { ATLAS_ID_PATTERN } from '../shared/atlas/atlas-id.js';
import { ATLAS_CREDENTIAL_ENV, type AtlasCommandOptions, addAtlasOptions } from './atlas-options.js';
import { durationArgument } from './duration-option.js';
import { DEFAULT_STATE_FILE } from './run-targets.js';

/** The parsed values of the flags {@link addPollOptions} defines. */
export interface PollCommandOptions extends AtlasCommandOptions {
  config?: string;
  org?: string[];
  project?: string[];
  allProjects?: boolean;
  accessHistory?: boolean;
  rules?: string[];
  state?: string;
  notify?: string;
  /** Milliseconds. */
  overlap?: number;
  /** Milliseconds. */
  lag?: number;
  /** Milliseconds. */
  lookback?: number;
  /** Milliseconds. */
  inventoryInterval?: number;
  concurrency?: number;
  verbose?: boolean;
}

/**
 * Adds the flags `run` and `backfill` share: the Atlas flags of `fetch`, the sources, `--config`,
 * `--rules`, `--state`, `--notify`, the timings and `--verbose`.
 *
 * @example
 * ```ts
 * addPollOptions(program.command('run')).option('--once', 'one tick').action(...);
 * ```
 */
export function addPollOptions(command: Command): Command {
  return addAtlasOptions(
    command
      .option('--config <file>', 'YAML or JSON file with the poller settings (flags override it)')
      .option(
        '--org <ids...>',
        'organization ids whose events (and API keys) are polled',
        collectIds('--org'),
      )
      .option('--project <ids...>', 'project ids whose events are polled', collectIds('--project'))
      .option('--all-projects', 'also poll every project of each --org')
      .option(
        '--access-history',
        'also read the database access history (logins) of every dedicated cluster of the polled projects',
      )
      .option(
        '--rules <layers...>',
        'rule layers in order: files or directories, builtin for the built-in pack (default: builtin)',
      )
      .option('--state <store>', `file:PATH or dynamodb:TABLE (default: file:${DEFAULT_STATE_FILE})`)
      .option('--notify <target>', 'console, outbox:PATH or sns:TOPIC_ARN (default: console)')
      .option('--overlap <duration>', 'how far back each tick reads again (default: 15m)', durationArgument())
      .option('--lag <duration>', 'how far behind now each window ends (default: 30s)', durationArgument())
      .option(
        '--lookback <duration>',
        'how far back the first tick of a new source reads; 0 starts from now (default: 1h)',
        durationArgument(),
      )
      .option(
        '--inventory-interval <duration>',
        "how often each org's API keys and access lists are compared (default: 1h)",
        durationArgument(),
      )
      .option('--concurrency <n>', 'sources polled at once (default: 4)', parseConcurrency)
      .option('--verbose', 'log what the poller does on stderr')
      .addHelpText(
        'after',
        `
Credentials come from the environment: ${ATLAS_CREDENTIAL_ENV.publicKey} and ${ATLAS_CREDENTIAL_ENV.privateKey}
(an API key), or ${ATLAS_CREDENTIAL_ENV.clientId} and ${ATLAS_CREDENTIAL_ENV.clientSecret} (a service account).`,
      ),
  );
}

/**
 * A commander parser for a flag that takes Atlas ids, repeated or comma-separated, each checked.
 *
 * @example
 * ```ts
 * command.option('--org <ids...>', 'organization ids', collectIds('--org'));
 * ```
 */
export function collectIds(flag: string): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous) => {
    const ids = value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    for (const id of ids) {
      if (!ATLAS_ID_PATTERN.test(id)) {
        throw new InvalidArgumentError(
          `${JSON.stringify(id)} is not an Atlas id: ${flag} takes 24-character hexadecimal ids such as 5f4e3d2c1b0a998877665544.`,
        );
      }
    }
    return [...(previous ?? []), ...ids];
  };
}

function parseConcurrency(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 32) {
    throw new InvalidArgumentError('use a whole number from 1 to 32.');
  }
  return count;
}
