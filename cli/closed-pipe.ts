/** A stream the command writes to, as far as a closed pipe is concerned. */
export interface PipedStream {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Options of {@link endQuietlyOnClosedPipe}. */
export interface ClosedPipeOptions {
  /** The streams a reader may close: stdout and stderr. */
  streams: readonly PipedStream[];
  /** Ends the process; called with 0 once, when a reader has gone and no work winds down. */
  exit: (code: number) => void;
}

/** Told once when a reader has gone; returns the function that stops listening. */
export type ClosedPipeSubscription = (listener: () => void) => () => void;

const windingDown = new Set<() => void>();
let readerGone = false;

/**
 * Makes a reader that goes away (`atlas-audit-alerts rules test | head -1`, `--help | head`) end the
 * command quietly with exit 0, as `cat` and `git log` do: nobody is left to read what it would print,
 * and a stack trace for `EPIPE` would only hide the lines the reader did take. Any other error of a
 * stream is left to Node's own handling (an uncaught error).
 *
 * A command holding state of its own (a poll tick's leases and alert claims) subscribes with
 * {@link onClosedPipe}: it is told instead, stops its work the way it stops on a signal, and returns;
 * the process then ends with the exit code the command gives, its leases and claims freed.
 *
 * @example
 * ```ts
 * endQuietlyOnClosedPipe({ streams: [process.stdout, process.stderr], exit: (code) => process.exit(code) });
 * ```
 */
export function endQuietlyOnClosedPipe(options: ClosedPipeOptions): void {
  for (const stream of options.streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      if (readerGone) return;
      readerGone = true;
      if (windingDown.size === 0) {
        options.exit(0);
        return;
      }
      for (const listener of [...windingDown]) listener();
    });
  }
}

/**
 * Subscribes to the reader of stdout or stderr going away, for a command that must free what it
 * holds before the process ends; while subscribed, a closed pipe does not end the process at once.
 * A listener subscribed after the reader went is told at once.
 *
 * @example
 * ```ts
 * const unsubscribe = onClosedPipe(() => stop.stopNow('the reader of the output went away'));
 * try { await work(); } finally { unsubscribe(); }
 * ```
 */
export const onClosedPipe: ClosedPipeSubscription = (listener) => {
  if (readerGone) {
    queueMicrotask(listener);
    return () => {};
  }
  windingDown.add(listener);
  return () => {
    windingDown.delete(listener);
  };
};
