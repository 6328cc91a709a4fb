import type { Environment } from './atlas-options.js';
import { type ClosedPipeSubscription, onClosedPipe } from './closed-pipe.js';
import { processStopSignals, type StopSignals } from './stop-signals.js';

/** A stream a command writes to; `isTTY` decides whether progress and colour are shown. */
export type CommandOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Where `run`, `backfill` and `demo` read their environment and write: the process's own by default. */
export interface PollCommandIo {
  /** Alerts (console notifier) and the demo's report. */
  stdout: CommandOutput;
  /** Tick reports, progress, warnings. */
  stderr: CommandOutput;
  env: Environment;
  /** Relative paths in flags are resolved against it. */
  cwd: string;
  signals: StopSignals;
  /** Told when the reader of stdout or stderr goes away (`| head`); none in tests that do not say. */
  closedPipe?: ClosedPipeSubscription;
}

/**
 * The process's own streams, environment, directory and signals.
 *
 * @example
 * ```ts
 * const { stdout, stderr } = io ?? processCommandIo();
 * ```
 */
export function processCommandIo(): PollCommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signals: processStopSignals,
    closedPipe: onClosedPipe,
  };
}
