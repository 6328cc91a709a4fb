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
import type { SimulateCommandIo, SimulateOptions } from '../commands/simulate.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';

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
 * Runs `simulate` (see `registerSimulateCommand`): its flags, and the process's streams and signals
 * unless `io` replaces them.
 */
export async function simulateAction(options: SimulateOptions, io?: SimulateCommandIo): Promise<void> {
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
}
