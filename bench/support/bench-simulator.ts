import { type SimulatorProcess, startSimulatorProcess } from './simulator-process.js';

/** Options of {@link startBenchSimulator}. */
export interface BenchSimulatorOptions {
  /** Requests per minute the simulator announces in `RateLimit-Limit`. Default: the simulator's (100). */
  rateLimitPerMinute?: number;
}

/** The organization of the benchmark simulator; its projects are the ones `generateEvents` creates. */
export const BENCH_ORG_ID = '6650b0b0b0b0b0b0b0000001';

/** Throwaway credentials of the benchmark simulator: Organization Owner of the benchmark org. */
const BENCH_KEY = { publicKey: 'benchkey', privateKey: 'fake-private-key-for-benchmarks' } as const;

/**
 * Starts the simulator the scenarios run against, in a child process: one organization, no project
 * and no event until a scenario generates them, one API key.
 *
 * @throws Error when the simulator cannot start.
 * @example
 * ```ts
 * const sim = await startBenchSimulator();
 * const { projectIds } = await sim.generateEvents({ count: 1_000, projects: 4, seed: 7 });
 * ```
 */
export function startBenchSimulator(options: BenchSimulatorOptions = {}): Promise<SimulatorProcess> {
  return startSimulatorProcess({
    seed: { orgs: [{ id: BENCH_ORG_ID, name: 'Benchmark' }] },
    ...BENCH_KEY,
    ...(options.rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute: options.rateLimitPerMinute }),
  });
}
