/** Where a long-running command learns it should stop: the process's signals, or a test's trigger. */
export interface StopSignals {
  /** Calls `listener` with the signal's name each time one arrives; returns the unsubscribe function. */
  subscribe(listener: (signal: string) => void): () => void;
}

/**
 * SIGINT and SIGTERM of this process. While subscribed, they no longer end the process at once: the
 * command decides.
 *
 * @example
 * ```ts
 * const unsubscribe = processStopSignals.subscribe((signal) => stopping.request(signal));
 * ```
 */
export const processStopSignals: StopSignals = {
  subscribe(listener) {
    const onSignal = (signal: NodeJS.Signals): void => listener(signal);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  },
};

/** Options of {@link GracefulStop}. */
export interface GracefulStopOptions {
  signals: StopSignals;
  /** Told what happens on each signal. */
  stderr: NodeJS.WritableStream;
  /**
   * How long a tick in progress may go on after a first SIGTERM before it is aborted: a service
   * manager or container runtime kills the process soon after it sends one. Default 5 s.
   */
  termGraceMs?: number;
}

const DEFAULT_TERM_GRACE_MS = 5_000;

/**
 * Two-step stop for polling loops: the first SIGINT or SIGTERM lets the current tick finish (its
 * cursors and alert records are then complete) and ends any wait; a second one aborts the tick
 * (`abortSignal`), which stops at once and keeps the cursors where they were. A first SIGTERM gives
 * the tick `termGraceMs` to finish, then aborts it: whoever sent it kills the process soon after.
 *
 * @example
 * ```ts
 * const stop = new GracefulStop({ signals: processStopSignals, stderr: process.stderr });
 * while (!stop.requested) {
 *   await stop.during(() => runTick(deps, { config, owner, signal: stop.abortSignal }));
 *   await stop.wait(60_000);
 * }
 * stop.dispose();
 * ```
 */
export class GracefulStop {
  readonly #abort = new AbortController();
  readonly #wake = new Set<() => void>();
  readonly #stderr: NodeJS.WritableStream;
  readonly #unsubscribe: () => void;
  readonly #termGraceMs: number;
  #requested: string | undefined;
  #busy = false;
  #grace: NodeJS.Timeout | undefined;

  constructor(options: GracefulStopOptions) {
    this.#stderr = options.stderr;
    this.#termGraceMs = options.termGraceMs ?? DEFAULT_TERM_GRACE_MS;
    this.#unsubscribe = options.signals.subscribe((signal) => this.#onSignal(signal));
  }

  /** The signal that asked to stop, once one has. */
  get requested(): string | undefined {
    return this.#requested;
  }

  /** Aborted on the second signal. */
  get abortSignal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Runs one tick: a first signal meanwhile lets it finish, a second aborts it. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.#busy = true;
    try {
      return await work();
    } finally {
      this.#busy = false;
    }
  }

  /** Resolves after `ms`, or as soon as a stop is requested. */
  wait(ms: number): Promise<void> {
    if (this.#requested !== undefined || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake.add(done);
    });
  }

  /**
   * Stops at once, as a second signal does: the tick in progress is aborted, freeing its leases and
   * the claims of alerts not delivered, and any wait ends. For a reader that closed the output, who
   * would read no more of it.
   */
  stopNow(reason: string): void {
    this.#requested ??= reason;
    for (const wake of [...this.#wake]) wake();
    this.#stopNow(reason);
  }

  /** Ends the current wait early without asking to stop (a push has queued a source). */
  wakeUp(): void {
    for (const wake of [...this.#wake]) wake();
  }

  /** Stops listening for signals. */
  dispose(): void {
    clearTimeout(this.#grace);
    this.#unsubscribe();
    for (const wake of [...this.#wake]) wake();
  }

  #onSignal(signal: string): void {
    if (this.#requested === undefined) {
      this.#requested = signal;
      const graced = this.#busy && signal === 'SIGTERM';
      this.#stderr.write(
        !this.#busy
          ? `${signal}: stopping\n`
          : graced
            ? `${signal}: finishing the current tick for up to ${this.#termGraceMs / 1_000} s, then stopping\n`
            : `${signal}: finishing the current tick, then stopping (${signal} again stops at once)\n`,
      );
      for (const wake of [...this.#wake]) wake();
      if (graced) {
        this.#grace = setTimeout(() => this.#stopNow(signal), this.#termGraceMs);
        this.#grace.unref();
      }
      return;
    }
    this.#stopNow(signal);
  }

  #stopNow(signal: string): void {
    if (!this.#abort.signal.aborted) {
      this.#stderr.write(
        `${signal}: stopping now; unfinished sources keep their cursors and are read again next run\n`,
      );
      this.#abort.abort(new Error(`stopped by ${signal}`));
    }
  }
}
