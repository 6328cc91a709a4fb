import { Command, CommanderError } from 'commander';
import { AtlasInsecureUrlError } from '../shared/atlas/errors.js';
import { PACKAGE_VERSION } from '../shared/package-files.js';
import { registerAuditExportCommand } from './commands/audit-export.js';
import { registerBackfillCommand } from './commands/backfill.js';
import { registerCheckCommand } from './commands/check.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerFetchCommand } from './commands/fetch.js';
import { registerRoutesCommand } from './commands/routes.js';
import { registerRulesCommand } from './commands/rules.js';
import { registerRunCommand } from './commands/run.js';
import { registerSendTestAlertCommand } from './commands/send-test-alert.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerStatusCommand } from './commands/status.js';
import { registerWebhooksCommand } from './commands/webhooks.js';
import { CommandFailed, ExitCode } from './errors.js';
import { exitCodeFor } from './exit-codes.js';

/** Builds the `atlas-audit-alerts` program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('atlas-audit-alerts')
    .description('Security alerts from the MongoDB Atlas and Ops Manager activity feed.')
    .version(
      `atlas-audit-alerts ${PACKAGE_VERSION ?? '(version unknown)'}`,
      '-V, --version',
      'print the version and exit',
    )
    .option('--no-color', 'print no ANSI colours, before or after the command (NO_COLOR=1 does the same)')
    .configureOutput({ outputError: (text, write) => write(usageErrorLine(text)) })
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();
  registerFetchCommand(program);
  registerSimulateCommand(program);
  registerRulesCommand(program);
  registerRoutesCommand(program);
  registerRunCommand(program);
  registerBackfillCommand(program);
  registerDemoCommand(program);
  registerCheckCommand(program);
  registerStatusCommand(program);
  registerSendTestAlertCommand(program);
  registerAuditExportCommand(program);
  registerWebhooksCommand(program);
  return program;
}

/**
 * A usage error as commander words it (`error: unknown option '--colour'`), as the one line every
 * other error of the command is: prefixed with the program's name, and pointing at `--help` where
 * the mistake is a name the command does not know. Subcommands inherit this from the program.
 */
function usageErrorLine(text: string): string {
  const message = text.trim().replace(/^error: /, '');
  const hint = /^unknown (option|command)|^too many arguments/.test(message)
    ? ' (--help lists what the command takes)'
    : '';
  return `atlas-audit-alerts: ${message}${hint}\n`;
}

/**
 * Runs the command line `argv` (as `process.argv`: node, script, then arguments) and returns the exit
 * code. Errors are printed as one line on stderr, never with a stack trace or a credential.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the problem (or the help) already.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (!(error instanceof CommandFailed && error.message === '')) {
      process.stderr.write(`atlas-audit-alerts: ${messageOf(error)}\n`);
    }
    return exitCodeFor(error);
  }
}

/** The one line printed for a failed command: the error's message, with the flag that answers it. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The client speaks of its allowInsecureHttp option; on the command line that is a flag.
  if (error instanceof AtlasInsecureUrlError) return `${error.message} (--allow-insecure-http)`;
  return error.message;
}
