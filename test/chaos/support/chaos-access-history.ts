import { fileURLToPath } from 'node:url';
import type { NewAccessLog, SeedData } from '../../../simulator/index.js';
import { ids, pollSeed } from '../../poll/support/poll-fixture.js';

/**
 * The clusters and access-history lines of a chaos run. Every line carries a database user and an
 * address of its own, so the stateful rules of the default pack (thresholds per user, distinct users
 * per address, sequences per address, first-seen networks still learning) raise nothing on them, and
 * the alerts a perfect run raises come from the stateless rules of the suite's own layer
 * ({@link ACCESS_HISTORY_RULES_PATH}): one per failed login, one per login from the documentation
 * ranges.
 */

/** The rule layer the chaos runs add to the default pack. */
export const ACCESS_HISTORY_RULES_PATH = fileURLToPath(
  new URL('./access-history-rules.yaml', import.meta.url),
);

/** A cluster of the chaos seed. */
export interface ChaosCluster {
  groupId: string;
  name: string;
  /** Whether it keeps access history (dedicated), or must be left out (shared tier, Flex). */
  dedicated: boolean;
}

/**
 * Two dedicated clusters and a shared-tier one in the first project, a dedicated and a Flex one in
 * the second, a dedicated one in the project of another organization (its listing is refused).
 */
export const CHAOS_CLUSTERS: readonly ChaosCluster[] = [
  { groupId: ids.project, name: 'payments-main', dedicated: true },
  { groupId: ids.project, name: 'payments-archive', dedicated: true },
  { groupId: ids.project, name: 'sandbox', dedicated: false },
  { groupId: ids.secondProject, name: 'analytics-main', dedicated: true },
  { groupId: ids.secondProject, name: 'analytics-flex', dedicated: false },
  { groupId: ids.foreignProject, name: 'foreign-main', dedicated: true },
];

const PROVIDER_SETTINGS: Record<string, Record<string, string>> = {
  'payments-main': { providerName: 'AWS', instanceSizeName: 'M10' },
  'payments-archive': { providerName: 'GCP', instanceSizeName: 'M30' },
  sandbox: { providerName: 'TENANT', instanceSizeName: 'M0', backingProviderName: 'AWS' },
  'analytics-main': { providerName: 'AZURE', instanceSizeName: 'M20' },
  'analytics-flex': { providerName: 'FLEX', backingProviderName: 'GCP' },
  'foreign-main': { providerName: 'AWS', instanceSizeName: 'M10' },
};

/** The state store's name of a cluster's source. */
export function clusterSourceName(cluster: Pick<ChaosCluster, 'groupId' | 'name'>): string {
  return `cluster:${cluster.groupId}:${cluster.name}`;
}

/** The poll seed with {@link CHAOS_CLUSTERS} in its projects, their histories empty. */
export function chaosSeedWithClusters(): SeedData {
  const seed = pollSeed();
  return {
    ...seed,
    projects: (seed.projects ?? []).map((project) => ({
      ...project,
      clusters: CHAOS_CLUSTERS.filter((cluster) => cluster.groupId === project.id).map((cluster) => ({
        name: cluster.name,
        providerSettings: PROVIDER_SETTINGS[cluster.name],
      })),
    })),
  } as SeedData;
}

/** What a user name that does not exist fails with, as mongod writes it. */
function userNotFound(username: string): string {
  return `UserNotFound: Could not find user "${username}" for db "admin"`;
}

/**
 * Makes the access-history lines of one chaos run from its PRNG: each with its own user and (for the
 * lines that alert) its own address, timestamps to the millisecond as Atlas keeps them.
 */
export class ChaosAccessLogFactory {
  readonly #random: () => number;
  readonly #seed: number;
  #lines = 0;

  constructor(seed: number, random: () => number) {
    this.#seed = seed;
    this.#random = random;
  }

  /**
   * A line a rule of the suite's layer alerts on: a failed login (a wrong password, or now and then
   * a user that does not exist) from an address of 198.18.0.0/15, or a login that succeeded from a
   * documentation range.
   */
  alerting(timestamp: number, hostname?: string): NewAccessLog {
    const n = this.#next();
    const username = `dbuser${n}.seed${this.#seed}`;
    const at = { timestamp: Math.floor(timestamp), ...(hostname === undefined ? {} : { hostname }) };
    if (this.#random() < 0.7) {
      return {
        username,
        ipAddress: `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`,
        authResult: false,
        ...(this.#random() < 0.2 ? { failureReason: userNotFound(username) } : {}),
        ...at,
      };
    }
    const ipAddress =
      this.#random() < 0.5
        ? `203.0.113.${n % 256}`
        : `2001:db8:${(this.#seed & 0xffff).toString(16)}::${n.toString(16)}`;
    return { username, ipAddress, authResult: true, ...at };
  }

  /** A login that succeeded from the application subnet: no rule of the suite alerts on it. */
  quiet(timestamp: number): NewAccessLog {
    const n = this.#next();
    return {
      username: `app${n}.seed${this.#seed}`,
      ipAddress: `10.20.${(n >> 8) & 255}.${n & 255}`,
      authResult: true,
      timestamp: Math.floor(timestamp),
    };
  }

  #next(): number {
    this.#lines += 1;
    return this.#lines;
  }
}
