/** A stream the command writes to, as far as a closed pipe is concerned. */
export interface PipedStream {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Options of {@link endQuietlyOnClosedPipe}. */
export interface ClosedPipeOptions {
  /** The streams a reader may close: stdout and stderr. */
  streams: readonly PipedStream[];
  /** Ends the process; called with 0 once, when a reader has gone. */
  exit: (code: number) => void;
}

/**
 * Makes a reader that goes away (`atlas-audit-alerts rules test | head -1`, `--help | head`) end the
 * command quietly with exit 0, as `cat` and `git log` do: nobody is left to read what it would print,
 * and a stack trace for `EPIPE` would only hide the lines the reader did take. Any other error of a
 * stream is left to Node's own handling (an uncaught error).
 *
 * @example
 * ```ts
 * endQuietlyOnClosedPipe({ streams: [process.stdout, process.stderr], exit: (code) => process.exit(code) });
 * ```
 */
export function endQuietlyOnClosedPipe(options: ClosedPipeOptions): void {
  let ended = false;
  for (const stream of options.streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      if (ended) return;
      ended = true;
      options.exit(0);
    });
  }
}
