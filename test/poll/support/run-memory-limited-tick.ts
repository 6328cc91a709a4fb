import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { lambdaHeapOptions } from '../../../shared/lambda-heap.js';
import type { MemoryLimitedTickOptions, MemoryLimitedTickReport } from './memory-limited-tick.js';

const CHILD = fileURLToPath(new URL('./memory-limited-tick.ts', import.meta.url));

/** How a memory-limited tick's process ended, and what it wrote. */
export interface MemoryLimitedTickRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The report on stdout, when the process wrote one. */
  report: MemoryLimitedTickReport | undefined;
  /** The end of stderr, for the failure message. */
  stderr: string;
}

/**
 * Runs one tick in a process of its own (see `memory-limited-tick.ts`) with the V8 heap limits the
 * Lambda runtime gives the stack's default function (256 MiB: `--max-semi-space-size=12`,
 * `--max-old-space-size=231`), or the given `nodeOptions`.
 *
 * @example
 * ```ts
 * const run = await runMemoryLimitedTick({ baseUrl, credentials, projectIds, dynamoDbEndpoint, tableName });
 * ```
 */
export function runMemoryLimitedTick(
  options: MemoryLimitedTickOptions,
  nodeOptions: readonly string[] = lambdaHeapOptions(256),
): Promise<MemoryLimitedTickRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeOptions, '--import', 'tsx', CHILD, JSON.stringify(options)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = `${stderr}${chunk}`.slice(-8_000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      let report: MemoryLimitedTickReport | undefined;
      try {
        report = line === '' ? undefined : (JSON.parse(line) as MemoryLimitedTickReport);
      } catch {
        report = undefined;
      }
      resolve({ code, signal, report, stderr: stderr.slice(-4_000) });
    });
  });
}
