import { type Command, Option } from 'commander';
import { ATLAS_CREDENTIAL_ENV, addAtlasOptions } from '../atlas-options.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { collectIds, type PollCommandOptions } from '../poll-options.js';

/** The parsed flags of `check`. */
export interface CheckOptions extends PollCommandOptions {
  json?: boolean;
  /** Milliseconds. */
  timeout: number;
  /** The bucket the stack made for audit logs, to look in for Atlas's objects. */
  auditBucket?: string;
  /** The audit log export's key prefix, when no settings give it. */
  auditPrefix?: string;
}

/** How long the whole check may take, unless `--timeout` says otherwise. */
const DEFAULT_CHECK_TIMEOUT_MS = 2 * 60_000;

/**
 * Registers `check`: a preflight against the Atlas that `run` would poll, with the same flags, config
 * file and credentials. Prints one line per check on stdout (or one JSON document with `--json`) and
 * exits 1 when a check failed, 0 otherwise (warnings included).
 *
 * @example
 * ```sh
 * atlas-audit-alerts check --org 5f4e3d2c1b0a998877665544 --all-projects
 * ```
 */
export function registerCheckCommand(program: Command, io?: PollCommandIo): void {
  addAtlasOptions(
    program
      .command('check')
      .description(
        'Check that Atlas answers, accepts the credentials and this address, and grants every role the configured sources need.',
      )
      .option(
        '--config <file>',
        'YAML or JSON file with the poller settings, as run takes (flags override it)',
      )
      .option(
        '--org <ids...>',
        'organization ids to check (org events, API keys, projects)',
        collectIds('--org'),
      )
      .option('--project <ids...>', 'project ids to check (project events)', collectIds('--project'))
      .option('--all-projects', 'also check every project of each --org')
      .option('--json', 'print one JSON document instead of lines')
      .option(
        '--audit-bucket <name>',
        "the bucket the stack made for audit logs: check that Atlas's export wrote to it (with AWS credentials that may list it)",
      )
      .option(
        '--audit-prefix <path>',
        'the audit log export key prefix, when the config file has no auditLogs (default: the bucket root)',
      )
      .addOption(
        new Option('--timeout <duration>', 'give up when the whole check took DURATION')
          .argParser(durationArgument({ minMs: 1_000 }))
          .default(DEFAULT_CHECK_TIMEOUT_MS, formatDuration(DEFAULT_CHECK_TIMEOUT_MS)),
      ),
  )
    .addHelpText(
      'after',
      `
Credentials come from the environment, as for run: ${ATLAS_CREDENTIAL_ENV.publicKey} and
${ATLAS_CREDENTIAL_ENV.privateKey} (an API key), or ${ATLAS_CREDENTIAL_ENV.clientId} and ${ATLAS_CREDENTIAL_ENV.clientSecret}.

When the config file has audit logs (auditLogs.projects, top level or per connection) or --audit-bucket
is given, check also lists the bucket (--audit-bucket, the AuditLogBucketName output) under each
project's prefix for an object Atlas wrote, with the AWS
credentials and region of the environment.

Examples:
  atlas-audit-alerts check --org 5f4e3d2c1b0a998877665544 --all-projects
  atlas-audit-alerts check --config poller.yaml --json
  atlas-audit-alerts check --config deploy/prod.yaml --audit-bucket my-atlas-audit-logs`,
    )
    .action(async (options: CheckOptions, command: Command) => {
      const { checkAction } = await import('../actions/check.js');
      await checkAction(options, command, io);
    });
}
