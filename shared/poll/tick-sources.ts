import type { AtlasClient } from '../atlas/atlas-client.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { connect, type ReachedConnection, wantedConnections } from './connection-reach.js';
import { effectiveConnections } from './connections.js';
import { DiscoveryCache } from './discovery-cache.js';
import { NameCache } from './name-cache.js';
import type { PollSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import { TickBudget } from './tick-budget.js';
import type { ConnectionClients, DiscoveryOutcome } from './tick-types.js';

const SECOND_MS = 1_000;

/** A source of a tick, with the organization it belongs to when that is known. */
export interface TickSource extends PollSource {
  /**
   * The organization: the source's own id for an org, the listing org for a discovered project;
   * absent for a project named in `sources.projectIds` (its organization is not looked up).
   */
  orgId?: string;
}

/** Options of {@link listTickSources}. */
export interface ListTickSourcesOptions {
  /**
   * The client of the connection `default`, or how to get each connection's (as
   * `TickDependencies.atlas`): a connection whose client cannot be had is reported in `unavailable`.
   */
  atlas: AtlasClient | ConnectionClients;
  config: PollerConfig;
  /** Kept across ticks (module scope in the Lambda); without one, every call lists the projects again. */
  discoveryCache?: DiscoveryCache;
  /** Takes the names of the projects listed, so their alerts need no lookup. */
  names?: NameCache;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** When the listing must stop, in milliseconds since the epoch; no new listing starts past the margin. */
  deadline?: number;
}

/** A connection whose client could not be had: its sources could not be listed. */
export interface UnavailableConnection {
  connection: string;
  /** Its organizations and projects as the settings name them (none discovered). */
  sources: PollSource[];
  error: unknown;
}

/** The sources one tick would poll, and how their projects were found. */
export interface TickSources {
  sources: TickSource[];
  discovery: DiscoveryOutcome[];
  /** Connections whose client could not be had (their secret unreadable, say). */
  unavailable: UnavailableConnection[];
}

/**
 * Resolves the sources one tick polls exactly as `runTick` does, connection by connection, each
 * with its own client (organizations, configured projects, then with `allProjectsOfOrgs` every
 * project of each organization, from the cache while fresh), each once, tagged with its connection
 * (absent for `default`) and with the organization it belongs to. A fan-out dispatcher sends one
 * message per source from this list; a failed listing keeps the projects last listed and is
 * reported in `discovery`; a connection whose client cannot be had is reported in `unavailable`,
 * and the others are listed as usual.
 *
 * @example
 * ```ts
 * const { sources } = await listTickSources({ atlas, config, discoveryCache, deadline });
 * sources[0]; // { kind: 'org', id: '5f4e…', name: 'org:5f4e…', orgId: '5f4e…' }
 * ```
 */
export async function listTickSources(options: ListTickSourcesOptions): Promise<TickSources> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const cache = options.discoveryCache ?? new DiscoveryCache();
  const budget = new TickBudget({
    clock,
    deadline: options.deadline,
    marginMs: config.timing.deadlineMarginSeconds * SECOND_MS,
  });
  try {
    const { connections } = wantedConnections(effectiveConnections(config), undefined);
    const reached = await mapWithConcurrency(connections, config.concurrency, (wanted) =>
      connect(options.atlas, wanted, {
        discoveryCache: cache,
        names: options.names ?? new NameCache(),
        clock,
        logger,
        budget,
        config,
      }),
    );
    const result: TickSources = { sources: [], discovery: [], unavailable: [] };
    for (const connection of reached) {
      if (connection.client === undefined) {
        result.unavailable.push({
          connection: connection.connection.name,
          sources: connection.sources,
          error: connection.failure,
        });
        continue;
      }
      result.sources.push(...withOrganizations(connection, cache));
      result.discovery.push(...connection.discovery);
    }
    return result;
  } finally {
    budget.dispose();
  }
}

/** A connection's sources, each with its organization when known. */
function withOrganizations(connection: ReachedConnection, cache: DiscoveryCache): TickSource[] {
  const { sources: settings } = connection.connection;
  const orgOfProject = new Map<string, string>();
  if (settings.allProjectsOfOrgs) {
    for (const orgId of settings.orgIds) {
      for (const projectId of cache.last(orgId)?.ids ?? []) {
        if (!orgOfProject.has(projectId)) orgOfProject.set(projectId, orgId);
      }
    }
  }
  return connection.sources.map((source): TickSource => {
    const orgId = source.kind === 'org' ? source.id : orgOfProject.get(source.id);
    return orgId === undefined ? { ...source } : { ...source, orgId };
  });
}
