import type {
  FaultPlan,
  GenerateAccessLogsOptions,
  GeneratedAccessLogs,
  GeneratedEvents,
  GenerateEventsOptions,
  SeedClusterInput,
  SimulatorCluster,
  SimulatorCounters,
  SimulatorOptions,
} from '../../simulator/index.js';
import { forkRpcChild } from './child-rpc.js';

/** The simulator's options that can cross to a child process (no clock, no logger). */
export type SimulatorProcessOptions = Omit<SimulatorOptions, 'clock' | 'logger'>;

/** The Atlas simulator running in a process of its own, controlled over IPC. */
export interface SimulatorProcess {
  readonly pid: number;
  readonly baseUrl: string;
  readonly credentials: { readonly publicKey: string; readonly privateKey: string };
  readonly orgIds: readonly string[];
  projectIds(): Promise<string[]>;
  generateEvents(options: GenerateEventsOptions): Promise<GeneratedEvents>;
  /** Adds a cluster to a project, as the seed writes one (see the simulator's `addCluster`). */
  addCluster(groupId: string, cluster: SeedClusterInput): Promise<SimulatorCluster>;
  /** Adds routine authentication attempts to a dedicated cluster's access history. */
  generateAccessLogs(options: GenerateAccessLogsOptions): Promise<GeneratedAccessLogs>;
  counters(): Promise<SimulatorCounters>;
  resetCounters(): Promise<void>;
  setUnauthenticatedAccess(enabled: boolean): Promise<void>;
  /** Injects faults (latency included) from now on; `undefined` stops them. */
  setFaults(plan: FaultPlan | undefined): Promise<void>;
  /** Stops the simulator and its process. */
  close(): Promise<void>;
}

/**
 * Starts the Atlas simulator in a child process on the system clock, so that the process under
 * measurement (a client, a poller tick) shares neither its heap nor its event loop.
 *
 * @throws Error when the child cannot start the simulator (the message holds the child's error).
 * @example
 * ```ts
 * const sim = await startSimulatorProcess({ seed: benchSeed() });
 * await sim.generateEvents({ count: 100_000, projects: 20, seed: 7 });
 * await sim.close();
 * ```
 */
export async function startSimulatorProcess(
  options: SimulatorProcessOptions = {},
): Promise<SimulatorProcess> {
  const child = forkRpcChild(new URL('./simulator-child.ts', import.meta.url));
  let started: { baseUrl: string; credentials: SimulatorProcess['credentials']; orgIds: string[] };
  try {
    started = await child.call('start', options);
  } catch (error) {
    await child.close();
    throw error;
  }
  return {
    pid: child.pid,
    ...started,
    projectIds: () => child.call('projectIds'),
    generateEvents: (generate) => child.call('generateEvents', generate),
    addCluster: (groupId, cluster) => child.call('addCluster', { groupId, cluster }),
    generateAccessLogs: (generate) => child.call('generateAccessLogs', generate),
    counters: () => child.call('counters'),
    resetCounters: () => child.call('resetCounters'),
    setUnauthenticatedAccess: (enabled) => child.call('setUnauthenticatedAccess', enabled),
    setFaults: (plan) => child.call('setFaults', plan),
    close: () => child.close(),
  };
}
