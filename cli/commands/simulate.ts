import { type Command, InvalidArgumentError } from 'commander';

/** The parsed flags of `simulate`. */
export interface SimulateOptions {
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

function parseInteger(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(number >= min && number <= max)) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    }
    return number;
  };
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
      const { simulateAction } = await import('../actions/simulate.js');
      await simulateAction(options, io);
    });
}
