import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI in a child process with only `env` for Atlas credentials (none inherited), without
 * blocking this process: the test's own HTTP server must keep answering meanwhile. `unset` names
 * variables of this process the child does not inherit.
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  options: { unset?: readonly string[] } = {},
): Promise<CliResult> {
  const unset = new Set(options.unset ?? []);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MONGODB_ATLAS_') && !unset.has(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Runs the CLI with its stdout pipe closed by the reader before the command writes anything (the
 * command takes a second to start), as `| head -0` would: every write then fails with EPIPE.
 */
export function runCliClosingStdout(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MONGODB_ATLAS_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}
