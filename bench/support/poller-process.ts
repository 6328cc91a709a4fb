import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../../infra/bundling.js';
import { lambdaHeapOptions } from '../../shared/lambda-heap.js';
import type { PollerConfigInput, TickSummary } from '../../shared/poll/index.js';
import { cpuProfileDirectory, forkRpcChild } from './child-rpc.js';
import type { StateRequestOwner } from './state-requests-by-source.js';

/** What the poller in its own process is built from. */
export interface PollerProcessOptions {
  atlas: { baseUrl: string; publicKey: string; privateKey: string };
  /** The project sources every tick polls. */
  projectIds: readonly string[];
  /**
   * Also read the access history of every dedicated cluster of those projects
   * (`sources.accessHistory`), the clusters listed once and kept across ticks as in Lambda. Default false.
   */
  accessHistory?: boolean;
  /** DynamoDB Local's endpoint; the state table is created there if missing. */
  dynamoDbEndpoint: string;
  tableName: string;
  /** The outbox file alerts are appended to. */
  outboxPath: string;
  /** The rule directory. Default: the default pack, `rules/`. */
  rulesDirectory?: string;
  /**
   * Run with the V8 heap limits the AWS Lambda Node.js runtime sets for a function with this much
   * memory (see {@link lambdaHeapOptions}). Default: Node's own limits, sized from this machine's memory.
   */
  lambdaMemoryMiB?: number;
  /** Sources polled at once. Default: the poller's default. */
  concurrency?: number;
  /** The tick's event budget (`maxEventsInMemory`). Default: sized from the heap limit, as in Lambda. */
  maxEventsInMemory?: number;
  timing?: PollerConfigInput['timing'];
}

/** What the child is started with: the options, the rule directory resolved. */
export type PollerChildOptions = PollerProcessOptions & { rulesDirectory: string };

/** What one tick did, and what it cost the poller's process. */
export interface PollerTickReport {
  summary: TickSummary;
  /** State store requests of the tick by DynamoDB operation. */
  stateRequestsByOperation: Readonly<Record<string, number>>;
  /**
   * The same requests by the kind of source whose items they name (a read of several sources' items
   * shared out among them; `other` for alerts, counters, names and inventory): see `requestShares`.
   */
  stateRequestsBySource: Readonly<Partial<Record<StateRequestOwner, number>>>;
  /** Resident set size just before the tick, in bytes. */
  rssBeforeBytes: number;
  /** The process's peak resident set size so far (the kernel's maxrss), in bytes. */
  peakRssBytes: number;
  /** The largest V8 heap in use seen during the tick (sampled every 100 ms), in bytes. */
  peakHeapUsedBytes: number;
  /** The largest memory outside the V8 heap (buffers) seen during the tick, in bytes. */
  peakExternalBytes: number;
  /** CPU time the process spent during the tick, in milliseconds. */
  cpuMs: number;
  /** Atlas requests of the tick that waited for `RateLimit-Remaining` to recover (see the pacer). */
  atlasPaced: number;
}

/** The poller running in a process of its own. */
export interface PollerProcess {
  readonly pid: number;
  /** The V8 options the child runs with. */
  readonly nodeOptions: readonly string[];
  /** Resident set size once everything was built, before any tick, in bytes. */
  readonly startRssBytes: number;
  /** Runs one tick with the system clock. */
  tick(): Promise<PollerTickReport>;
  close(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./poller-child.ts', import.meta.url));
const DEFAULT_RULES = fileURLToPath(new URL('../../rules/', import.meta.url));

/**
 * Starts the poller in a child process: the same Atlas client, DynamoDB state store, default rules
 * and outbox notifier a local run uses. The child runs from a minified esbuild bundle on plain Node, as
 * the Lambda runs the poller, not through the TypeScript loader (which alone adds tens of MB). Its
 * peak RSS is the poller's alone: nothing else runs there.
 *
 * @throws Error when the child cannot build the poller (rules, table), with the child's message.
 * @example
 * ```ts
 * const poller = await startPollerProcess({ atlas, projectIds, dynamoDbEndpoint, tableName, outboxPath });
 * const report = await poller.tick();
 * await poller.close();
 * ```
 */
export async function startPollerProcess(options: PollerProcessOptions): Promise<PollerProcess> {
  const bundleDirectory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-poller-child-'));
  const close = async (child?: { close(): Promise<void> }): Promise<void> => {
    await child?.close();
    await rm(bundleDirectory, { recursive: true, force: true });
  };
  let child: ReturnType<typeof forkRpcChild> | undefined;
  try {
    const bundle = join(bundleDirectory, 'poller-child.mjs');
    await build({
      entryPoints: [CHILD_ENTRY],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      // A profile names functions only when the bundle keeps their names.
      minify: cpuProfileDirectory() === undefined,
      banner: { js: ESM_REQUIRE_BANNER },
      mainFields: ['module', 'main'],
      logLevel: 'warning',
    });
    const nodeOptions =
      options.lambdaMemoryMiB === undefined ? [] : lambdaHeapOptions(options.lambdaMemoryMiB);
    child = forkRpcChild(pathToFileURL(bundle), { nodeOptions });
    const childOptions: PollerChildOptions = {
      ...options,
      rulesDirectory: options.rulesDirectory ?? DEFAULT_RULES,
    };
    const started = await child.call<{ rssBytes: number }>('start', childOptions);
    const running = child;
    return {
      pid: running.pid,
      nodeOptions,
      startRssBytes: started.rssBytes,
      tick: () => running.call('tick'),
      close: () => close(running),
    };
  } catch (error) {
    await close(child);
    throw error;
  }
}
