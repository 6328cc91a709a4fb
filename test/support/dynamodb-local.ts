/**
 * DynamoDB Local (the AWS emulator, shipped as a jar in the `amplify-dynamodb-simulator` package) for
 * test suites and benchmarks: start it on a free port, wait until it answers, stop it, restart it with
 * its data on the same port. It needs Java 17 or later on the `PATH`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Options of {@link startDynamoDbLocal}. */
export interface DynamoDbLocalOptions {
  /** TCP port to listen on; a free one is picked when absent. */
  port?: number;
  /**
   * Directory where the data is kept, so that `restart()` keeps it. Without it the data lives in
   * memory and is lost when the process stops.
   */
  dbPath?: string;
  /** How long to wait for the emulator to answer, in milliseconds. */
  startTimeoutMs?: number;
  /**
   * Options for the JVM. The default trades peak speed for a start that takes half the CPU (client
   * compiler only, serial collector): right for test runs of seconds. A long benchmark may pass `[]`.
   */
  jvmOptions?: readonly string[];
}

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  /** `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  readonly port: number;
  /** Stops the process (SIGTERM, then SIGKILL after a few seconds). Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the process and starts it again on the same port with the same data (needs `dbPath`). */
  restart(): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 60_000;
const QUICK_START_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const STOP_GRACE_MS = 5_000;
/** Keep the tail of the emulator's output for error messages. */
const OUTPUT_TAIL_CHARS = 4_000;

const JAVA_MISSING_MESSAGE =
  'DynamoDB Local needs Java 17 or later, and `java` is not on the PATH: install a JRE ' +
  '(Debian/Ubuntu: `apt-get install default-jre-headless`; macOS: `brew install openjdk`), ' +
  'or run `bash .ci/run`, which installs one';

/**
 * Why DynamoDB Local cannot start on this machine, or `undefined` when `java` runs.
 *
 * @example
 * ```ts
 * const problem = javaProblem();
 * if (problem !== undefined) throw new Error(problem);
 * ```
 */
export function javaProblem(): string | undefined {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore', timeout: 30_000 });
  if (result.error !== undefined) {
    return (result.error as NodeJS.ErrnoException).code === 'ENOENT'
      ? JAVA_MISSING_MESSAGE
      : `could not run \`java -version\` for DynamoDB Local: ${result.error.message}`;
  }
  return result.status === 0
    ? undefined
    : `\`java -version\` exited with ${result.status}: ${JAVA_MISSING_MESSAGE}`;
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1.
 *
 * @example
 * ```ts
 * const port = await freePort();
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts DynamoDB Local and resolves once it answers HTTP requests.
 *
 * @throws Error when `java` is missing (the message says to install a JRE), when the process exits
 * before it answers (the message holds its output), or when it does not answer within the timeout.
 *
 * @example
 * ```ts
 * const local = await startDynamoDbLocal({ dbPath: await mkdtemp(join(tmpdir(), 'ddb-')) });
 * const client = createDynamoDbLocalClient(local.endpoint);
 * await local.restart(); // same port, same data
 * await local.stop();
 * ```
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const problem = javaProblem();
  if (problem !== undefined) throw new Error(problem);
  const port = options.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const launchOptions = {
    port,
    dbPath: options.dbPath,
    timeoutMs,
    jvmOptions: options.jvmOptions ?? QUICK_START_JVM_OPTIONS,
  };
  let running = await launch(launchOptions);

  return {
    endpoint,
    port,
    stop: () => running.stop(),
    restart: async () => {
      if (options.dbPath === undefined) {
        throw new Error(
          'DynamoDB Local keeps its data across a restart only with dbPath: start it with { dbPath }',
        );
      }
      await running.stop();
      running = await launch(launchOptions);
    },
  };
}

/**
 * A DynamoDB client for DynamoDB Local: fake credentials and region, so nothing can reach real AWS.
 *
 * @example
 * ```ts
 * const client = createDynamoDbLocalClient(local.endpoint, { maxAttempts: 1 });
 * ```
 */
export function createDynamoDbLocalClient(
  endpoint: string,
  options: { maxAttempts?: number } = {},
): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
}

/**
 * Resolves once something answers HTTP at `endpoint` (DynamoDB Local answers 400 to a bare request).
 *
 * @throws Error when nothing answers within `timeoutMs`.
 *
 * @example
 * ```ts
 * await waitForDynamoDbLocal('http://127.0.0.1:8000', 30_000);
 * ```
 */
export async function waitForDynamoDbLocal(endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(endpoint))) {
    if (Date.now() >= deadline) {
      throw new Error(`DynamoDB Local did not answer at ${endpoint} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Running {
  stop(): Promise<void>;
}

function emulatorDirectory(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

interface LaunchOptions {
  port: number;
  dbPath: string | undefined;
  timeoutMs: number;
  jvmOptions: readonly string[];
}

async function launch(options: LaunchOptions): Promise<Running> {
  const emulator = emulatorDirectory();
  const storage = options.dbPath === undefined ? ['-inMemory'] : ['-dbPath', options.dbPath];
  const child = spawn(
    'java',
    [
      ...options.jvmOptions,
      `-Djava.library.path=${join(emulator, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(emulator, 'DynamoDBLocal.jar'),
      '-port',
      String(options.port),
      '-disableTelemetry',
      // One database whatever the credentials and region of the client.
      '-sharedDb',
      ...storage,
    ],
    { cwd: emulator, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // A test runner that dies must not leave a JVM behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      process.removeListener('exit', killOnExit);
      resolve();
    });
  });

  const endpoint = `http://127.0.0.1:${options.port}`;
  const failedEarly = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`could not start DynamoDB Local: ${error.message}`)));
    child.once('exit', (code, signal) =>
      reject(
        new Error(`DynamoDB Local exited (${signal ?? code}) before answering on ${endpoint}:\n${output}`),
      ),
    );
  });
  failedEarly.catch(() => {});
  try {
    await Promise.race([waitForDynamoDbLocal(endpoint, options.timeoutMs), failedEarly]);
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
  return { stop: () => stopChild(child, exited) };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function answers(endpoint: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(endpoint, { method: 'GET', timeout: 1_000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}
