import { type Command, InvalidArgumentError, Option } from 'commander';
import { ATLAS_FLAVORS, type AtlasFlavor } from '../shared/atlas/client-options.js';

/** The environment variables credentials are read from: the names the Atlas CLI uses. */
export const ATLAS_CREDENTIAL_ENV = {
  publicKey: 'MONGODB_ATLAS_PUBLIC_API_KEY',
  privateKey: 'MONGODB_ATLAS_PRIVATE_API_KEY',
  clientId: 'MONGODB_ATLAS_CLIENT_ID',
  clientSecret: 'MONGODB_ATLAS_CLIENT_SECRET',
} as const;

/** The parsed values of the flags {@link addAtlasOptions} defines. */
export interface AtlasCommandOptions {
  baseUrl?: string;
  flavor?: AtlasFlavor;
  allowInsecureHttp?: boolean;
  maxAttempts?: number;
}

/** Environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Adds the flags every command that talks to Atlas shares: `--base-url`, `--flavor`,
 * `--allow-insecure-http` and `--max-attempts`. Defined once so `fetch`, `run`, `backfill` and `demo`
 * read them the same way.
 *
 * @example
 * ```ts
 * addAtlasOptions(program.command('run')).action(async (options: AtlasCommandOptions) => { ... });
 * ```
 */
export function addAtlasOptions(command: Command): Command {
  return command
    .option(
      '--base-url <url>',
      'Atlas or Ops Manager address; http:// only to loopback unless --allow-insecure-http (default: https://cloud.mongodb.com)',
    )
    .addOption(
      new Option(
        '--flavor <flavor>',
        'the API generation: atlas-v2 for current Atlas, atlas-v1 for its legacy API, ops-manager for Ops Manager and Cloud Manager',
      )
        .choices(ATLAS_FLAVORS)
        .default('atlas-v2'),
    )
    .option('--allow-insecure-http', 'allow a plain http:// base URL to a host that is not loopback')
    .option(
      '--max-attempts <n>',
      'HTTP attempts per request before giving up; 1 disables retries (default: 5)',
      parseAttempts,
    );
}

function parseAttempts(value: string): number {
  const attempts = Number(value);
  if (!/^\d+$/.test(value) || attempts < 1 || attempts > 20) {
    throw new InvalidArgumentError('use a whole number from 1 to 20.');
  }
  return attempts;
}
