import { type Command, Option } from 'commander';
import { AtlasClient } from '../../shared/atlas/index.js';
import { DEFAULT_CONNECTION } from '../../shared/poll/index.js';
import { ATLAS_CREDENTIAL_ENV, addAtlasOptions } from '../atlas-options.js';
import { formatCheckJson, formatCheckReport } from '../check-report.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { type CheckResult, runPreflight } from '../preflight-checks.js';
import { collectIds, type PollCommandOptions, resolveRunSettings } from '../run-options.js';
import { exitCodeForFailures } from '../tick-exit-code.js';

interface CheckOptions extends PollCommandOptions {
  json?: boolean;
  /** Milliseconds. */
  timeout: number;
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

Examples:
  atlas-audit-alerts check --org 5f4e3d2c1b0a998877665544 --all-projects
  atlas-audit-alerts check --config poller.yaml --json`,
    )
    .action(async (options: CheckOptions, command: Command) => {
      const { stdout, env, cwd } = io ?? processCommandIo();
      const settings = await resolveRunSettings({
        options,
        flavorGiven: command.getOptionValueSource('flavor') === 'cli',
        env,
        cwd,
      });
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new Error('timeout')), options.timeout);
      const named = settings.connections.some(({ connection }) => connection.name !== DEFAULT_CONNECTION);
      const results: CheckResult[] = [];
      try {
        // One connection after the other, each with its own credentials, within one --timeout.
        for (const { connection, atlas } of settings.connections) {
          const client = new AtlasClient(atlas);
          try {
            const checked = await runPreflight({
              client,
              config: {
                ...settings.config,
                atlas: { baseUrl: connection.baseUrl, flavor: connection.flavor },
                sources: connection.sources,
                timing: connection.timing,
                inventory: connection.inventory,
              },
              credentialsKind: atlas.credentials.kind,
              credentialsId:
                atlas.credentials.kind === 'digest'
                  ? atlas.credentials.publicKey
                  : atlas.credentials.clientId,
              signal: deadline.signal,
            });
            results.push(
              ...(named ? checked.map((result) => ({ ...result, connection: connection.name })) : checked),
            );
          } finally {
            await client.close();
          }
        }
      } catch (error) {
        if (!deadline.signal.aborted) throw error;
        throw new CommandFailed(
          `gave up after ${formatDuration(options.timeout)} (--timeout): Atlas answered too slowly; run again with a longer --timeout`,
          ExitCode.network,
        );
      } finally {
        clearTimeout(timer);
      }
      stdout.write(options.json ? formatCheckJson(results) : formatCheckReport(results));
      const failures = results.filter((result) => result.status === 'fail');
      // As run and fetch exit: 3 when Atlas refused the credentials, their permissions or this address.
      if (failures.length > 0) throw new CommandFailed('', exitCodeForFailures(failures));
    });
}
