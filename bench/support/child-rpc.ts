import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Calls into a child Node process over its IPC channel, for benchmarks that keep the simulator and
 * the poller in processes of their own (so that each one's memory and CPU is its own). A call is a
 * method name and its parameters; the child answers with a result or an error message, matched by id.
 */

interface RpcRequest {
  id: number;
  method: string;
  params: unknown;
}

type RpcReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** What a child serves: one async function per method. */
export type RpcHandlers = Record<string, (params: never) => unknown>;

/** A running child process that answers calls. */
export interface RpcChild {
  readonly pid: number;
  /**
   * Calls a method of the child and resolves with its result.
   *
   * @throws Error with the child's message when the method failed, or when the child exited first
   *   (with the tail of its stderr).
   */
  call<T>(method: string, params?: unknown): Promise<T>;
  /** Calls `stop` when the child serves it, closes the channel and waits for the exit (kills after 5 s). */
  close(): Promise<void>;
  /**
   * Kills the child at once (SIGKILL) and waits for its exit, for a child that may not answer; its own
   * children see their channel close and stop.
   */
  kill(): Promise<void>;
}

const STDERR_TAIL_CHARS = 4_000;
const EXIT_GRACE_MS = 5_000;

/**
 * Forks `script` as a child that serves calls with {@link serveRpc}: a TypeScript module (`.ts`) runs
 * through tsx, a JavaScript one (a bundle) on plain Node; `nodeOptions` are added to its command line.
 *
 * @example
 * ```ts
 * const child = forkRpcChild(new URL('./simulator-child.ts', import.meta.url));
 * const counters = await child.call<SimulatorCounters>('counters');
 * await child.close();
 * ```
 */
export function forkRpcChild(script: URL, options: { nodeOptions?: readonly string[] } = {}): RpcChild {
  const path = fileURLToPath(script);
  const child: ChildProcess = fork(path, [], {
    execArgv: [
      ...cpuProfileOptions(),
      ...(path.endsWith('.ts') ? ['--import', 'tsx'] : []),
      ...(options.nodeOptions ?? []),
    ],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exitMessage: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitMessage = `the benchmark child ${path} exited (${signal ?? code})${stderr === '' ? '' : `:\n${stderr}`}`;
      for (const { reject } of pending.values()) reject(new Error(exitMessage));
      pending.clear();
      resolve();
    });
  });
  child.on('message', (message: RpcReply) => {
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(message.error));
  });
  const call = <T>(method: string, params?: unknown): Promise<T> => {
    if (exitMessage !== undefined) return Promise.reject(new Error(exitMessage));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const request: RpcRequest = { id, method, params };
      child.send(request, (error) => {
        if (error === null) return;
        pending.delete(id);
        reject(error);
      });
    });
  };
  return {
    pid: child.pid ?? -1,
    call,
    async close() {
      if (exitMessage !== undefined) return;
      try {
        await call('stop');
      } catch {
        // The child may be gone already; the exit below is what counts.
      }
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (exitMessage !== undefined) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Serves calls from the parent in a child started by {@link forkRpcChild}; the process exits once the
 * parent closes the channel. A method named `stop` is called then, if the parent did not call it.
 *
 * @example
 * ```ts
 * serveRpc({ counters: () => sim.counters, stop: () => sim.stop() });
 * ```
 */
export function serveRpc(handlers: RpcHandlers): void {
  if (process.send === undefined) {
    throw new Error('serveRpc runs in a child process forked with an IPC channel (forkRpcChild)');
  }
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await handlers.stop?.(undefined as never);
  };
  process.on('message', (request: RpcRequest) => {
    const reply = (message: RpcReply): void => {
      process.send?.(message);
    };
    const handler = request.method === 'stop' ? stop : handlers[request.method];
    if (handler === undefined) {
      reply({ id: request.id, ok: false, error: `the benchmark child has no method ${request.method}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(request.params as never))
      .then(
        (result) => reply({ id: request.id, ok: true, result }),
        (error: unknown) =>
          reply({
            id: request.id,
            ok: false,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          }),
      );
  });
  process.on('disconnect', () => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * The directory named by `BENCH_CPU_PROFILE_DIR`, where every benchmark child writes a V8 CPU profile
 * when it exits (open it in Chrome DevTools); undefined when the variable is unset or empty.
 */
export function cpuProfileDirectory(): string | undefined {
  const directory = process.env.BENCH_CPU_PROFILE_DIR;
  return directory === undefined || directory === '' ? undefined : directory;
}

function cpuProfileOptions(): string[] {
  const directory = cpuProfileDirectory();
  return directory === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${directory}`];
}
