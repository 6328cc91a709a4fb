/**
 * The child process of {@link startSimulatorProcess}: runs the Atlas simulator on the system clock
 * and serves its controls to the benchmark over IPC.
 */
import {
  type AtlasSimulator,
  type FaultPlan,
  type GenerateAccessLogsOptions,
  type GenerateEventsOptions,
  type SeedClusterInput,
  type SimulatorOptions,
  startSimulator,
} from '../../simulator/index.js';
import { serveRpc } from './child-rpc.js';

let sim: AtlasSimulator | undefined;

function running(): AtlasSimulator {
  if (sim === undefined) throw new Error('the simulator is not started: call start first');
  return sim;
}

serveRpc({
  async start(options: SimulatorOptions) {
    sim = await startSimulator(options);
    return {
      baseUrl: sim.baseUrl,
      credentials: sim.credentials,
      orgIds: sim.orgIds,
      projectIds: sim.projectIds,
    };
  },
  generateEvents: (options: GenerateEventsOptions) => running().generateEvents(options),
  addCluster: ({ groupId, cluster }: { groupId: string; cluster: SeedClusterInput }) =>
    running().addCluster(groupId, cluster),
  generateAccessLogs: (options: GenerateAccessLogsOptions) => running().generateAccessLogs(options),
  counters: () => running().counters,
  resetCounters: () => running().resetCounters(),
  setUnauthenticatedAccess: (enabled: boolean) => running().setUnauthenticatedAccess(enabled),
  setFaults: (plan: FaultPlan | undefined) => running().setFaults(plan),
  projectIds: () => running().projectIds,
  stop: async () => {
    await sim?.stop();
  },
});
