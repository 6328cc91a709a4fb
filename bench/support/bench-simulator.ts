import { type SimulatorProcess, startSimulatorProcess } from './simulator-process.js';

/** Options of {@link startBenchSimulator}. */
export interface BenchSimulatorOptions {
  /** Requests per minute the simulator announces in `RateLimit-Limit`. Default: the simulator's (100). */
  rateLimitPerMinute?: number;
  /**
   * Organizations, each with an API key of its own that is Organization Owner of it alone (see
   * {@link benchOrganizations}). Default 1.
   */
  organizations?: number;
}

/** The organization of the benchmark simulator; its projects are the ones `generateEvents` creates. */
export const BENCH_ORG_ID = '6650b0b0b0b0b0b0b0000001';

/** Throwaway credentials of the benchmark simulator: Organization Owner of every benchmark org. */
const BENCH_KEY = { publicKey: 'benchkey', privateKey: 'fake-private-key-for-benchmarks' } as const;

/** One organization of the benchmark simulator, and its own throwaway API key. */
export interface BenchOrganization {
  id: string;
  name: string;
  /** Organization Owner of this organization and no other. */
  credentials: { publicKey: string; privateKey: string };
}

/**
 * The organizations a simulator started with `organizations: count` holds, the first being
 * {@link BENCH_ORG_ID}: the same ids and keys every run.
 *
 * @example
 * ```ts
 * benchOrganizations(2)[1]; // { id: '6650b0b0b0b0b0b0b0000002', name: 'Benchmark 2', credentials: {...} }
 * ```
 */
export function benchOrganizations(count: number): BenchOrganization[] {
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1;
    return {
      id: `6650b0b0b0b0b0b0b0${number.toString(16).padStart(6, '0')}`,
      name: count === 1 ? 'Benchmark' : `Benchmark ${number}`,
      credentials: {
        publicKey: `benchorg${number}`,
        privateKey: `fake-private-key-for-benchmarks-org-${number}`,
      },
    };
  });
}

/**
 * Starts the simulator the scenarios run against, in a child process: its organizations (one by
 * default), no project and no event until a scenario generates them, one API key that owns every
 * organization and, with several organizations, one more per organization.
 *
 * @throws Error when the simulator cannot start.
 * @example
 * ```ts
 * const sim = await startBenchSimulator();
 * const { projectIds } = await sim.generateEvents({ count: 1_000, projects: 4, seed: 7 });
 * ```
 */
export function startBenchSimulator(options: BenchSimulatorOptions = {}): Promise<SimulatorProcess> {
  const organizations = benchOrganizations(options.organizations ?? 1);
  const ownKeys =
    organizations.length === 1
      ? []
      : organizations.map((org, index) => ({
          id: `6650b0b0b0b0b0b0b1${(index + 1).toString(16).padStart(6, '0')}`,
          desc: `Organization Owner of ${org.name}`,
          ...org.credentials,
          roles: [{ orgId: org.id, roleName: 'ORG_OWNER' }],
        }));
  return startSimulatorProcess({
    seed: { orgs: organizations.map(({ id, name }) => ({ id, name })), apiKeys: ownKeys },
    ...BENCH_KEY,
    ...(options.rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute: options.rateLimitPerMinute }),
  });
}
