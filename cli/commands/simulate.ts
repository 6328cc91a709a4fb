import { type Command, InvalidArgumentError } from 'commander';
import type { Logger } from '../../shared/logger.js';
import {
  type AtlasSimulator,
  SeedValidationError,
  type SimulatorOptions,
  SimulatorOptionsError,
  SimulatorStartError,
  startSimulator,
} from '../../simulator/index.js';
import { ATLAS_CREDENTIAL_ENV } from '../atlas-options.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';

interface SimulateOptions {
  port: number;
  host: string;
  data?: string;
  publicKey?: string;
  privateKey?: string;
  nonceTtl?: number;
  enforceAccessList?: boolean;
  json?: boolean;
  verbose?: boolean;
}

/** Where the command writes, and how it learns it should stop: the process's own by default. */
export interface SimulateCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Resolves with the name of what stopped the simulator (a signal name). */
  waitForStop: () => Promise<string>;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function parseInteger(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(number >= min && number <= max)) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    }
    return number;
  };
}

function requestLogger(stderr: NodeJS.WritableStream): Logger {
  const write = (level: string, message: string, attributes?: Record<string, unknown>): void => {
    const details = attributes === undefined ? '' : ` ${JSON.stringify(attributes)}`;
    stderr.write(`${level} ${message}${details}\n`);
  };
  return {
    debug: (message, attributes) => {
      write('debug', message, attributes);
    },
    info: (message, attributes) => {
      write('info', message, attributes);
    },
    warn: (message, attributes) => {
      write('warn', message, attributes);
    },
    error: (message, attributes) => {
      write('error', message, attributes);
    },
  };
}

/** Quotes a value for a POSIX shell, so printed commands can be pasted as they are. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The connection details a user needs: base URLs, the simulator's throwaway credentials, its
 * organizations and projects, and commands to point the CLI and curl at it.
 */
function describeSimulator(sim: AtlasSimulator): string {
  const { publicKey, privateKey } = sim.credentials;
  const project = sim.projects[0];
  const lines = [
    `Atlas simulator listening on ${sim.baseUrl}`,
    `  API base URLs: ${sim.baseUrl}/api/atlas/v2 (--flavor atlas-v2), ${sim.baseUrl}/api/atlas/v1.0 (atlas-v1), ${sim.baseUrl}/api/public/v1.0 (ops-manager)`,
    '',
    'Credentials (throwaway test values of this simulator, not Atlas keys):',
    `  API key, HTTP Digest:   public key ${publicKey}   private key ${privateKey}`,
  ];
  if (sim.serviceAccount !== undefined) {
    lines.push(
      `  Service account, OAuth: client id ${sim.serviceAccount.clientId}   client secret ${sim.serviceAccount.clientSecret}`,
    );
  }
  lines.push('', 'Organizations:');
  for (const org of sim.orgs) lines.push(`  ${org.id}  ${org.name}`);
  lines.push('Projects:');
  for (const item of sim.projects) lines.push(`  ${item.id}  ${item.name} (org ${item.orgId})`);
  lines.push(
    '',
    'Point the CLI at it:',
    `  export ${ATLAS_CREDENTIAL_ENV.publicKey}=${shellQuote(publicKey)}`,
    `  export ${ATLAS_CREDENTIAL_ENV.privateKey}=${shellQuote(privateKey)}`,
    `  atlas-audit-alerts fetch events --base-url ${sim.baseUrl} --flavor atlas-v2 ${
      project === undefined ? `--org ${sim.orgIds[0]}` : `--project ${project.id}`
    }`,
    '',
    'Or with curl:',
    `  curl --digest -u ${shellQuote(`${publicKey}:${privateKey}`)} -H 'Accept: application/vnd.atlas.2023-01-01+json' \\`,
    `    '${sim.baseUrl}/api/atlas/v2/orgs/${sim.orgIds[0]}/events?itemsPerPage=5&pretty=true'`,
    '',
    'Press Ctrl+C to stop.',
  );
  return `${lines.join('\n')}\n`;
}

async function start(options: SimulatorOptions): Promise<AtlasSimulator> {
  try {
    return await startSimulator(options);
  } catch (error) {
    if (error instanceof SeedValidationError || error instanceof SimulatorOptionsError) {
      throw new UsageError(error.message, { cause: error });
    }
    if (error instanceof SimulatorStartError) {
      throw new CommandFailed(error.message, ExitCode.failed);
    }
    throw error;
  }
}

/**
 * Registers `simulate`: runs the Atlas simulator until SIGINT or SIGTERM and prints how to reach it.
 * Its credentials are throwaway test values and are printed on purpose.
 *
 * @example
 * ```sh
 * atlas-audit-alerts simulate --port 8089 --data my-seed.json
 * ```
 */
export function registerSimulateCommand(program: Command, io?: SimulateCommandIo): void {
  program
    .command('simulate')
    .description('Run the Atlas API simulator (digest and OAuth auth, seeded data) until stopped.')
    .option('--port <n>', 'port to listen on; 0 picks a free one', parseInteger('--port', 0, 65_535), 0)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--data <file>', 'seed JSON file (default: the built-in seed, simulator/default-seed.json)')
    .option(
      '--public-key <key>',
      'an extra API key public key (Organization Owner everywhere); needs --private-key',
    )
    .option('--private-key <key>', 'its private key (a throwaway value: it is printed)')
    .option('--nonce-ttl <seconds>', 'how long a digest nonce lives', parseInteger('--nonce-ttl', 1, 86_400))
    .option('--enforce-access-list', "refuse callers outside the API key's access list")
    .option('--json', 'print the connection details as one JSON line instead of text')
    .option('--verbose', 'log every request on stderr')
    .action(async (options: SimulateOptions) => {
      const { stdout, stderr, waitForStop } = io ?? {
        stdout: process.stdout,
        stderr: process.stderr,
        waitForStop: waitForSignal,
      };
      if ((options.publicKey === undefined) !== (options.privateKey === undefined)) {
        throw new UsageError('simulate needs --public-key and --private-key together, or neither.');
      }
      const sim = await start({
        host: options.host,
        port: options.port,
        ...(options.data === undefined ? {} : { seed: options.data }),
        ...(options.publicKey === undefined || options.privateKey === undefined
          ? {}
          : { publicKey: options.publicKey, privateKey: options.privateKey }),
        ...(options.nonceTtl === undefined ? {} : { nonceTtlMs: options.nonceTtl * 1000 }),
        ...(options.enforceAccessList ? { enforceAccessList: true } : {}),
        ...(options.verbose ? { logger: requestLogger(stderr) } : {}),
      });
      const stop = waitForStop();
      if (options.json) {
        stdout.write(
          `${JSON.stringify({
            baseUrl: sim.baseUrl,
            credentials: sim.credentials,
            serviceAccount: sim.serviceAccount ?? null,
            orgIds: sim.orgIds,
            projectIds: sim.projectIds,
          })}\n`,
        );
      } else {
        stdout.write(describeSimulator(sim));
      }
      const reason = await stop;
      await sim.stop();
      stderr.write(`Atlas simulator stopped (${reason}).\n`);
    });
}
