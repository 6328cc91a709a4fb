import type { AtlasClient, AtlasClientStats } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { DEFAULT_CONNECTION, type EffectiveConnection } from './connections.js';
import type { DiscoveryCache } from './discovery-cache.js';
import { ConnectionUnavailableError } from './errors.js';
import { describeFailure } from './failure-report.js';
import type { NameCache } from './name-cache.js';
import { orgSource, type PollSource, projectSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import { resolveSources } from './source-resolution.js';
import type { TickBudget } from './tick-budget.js';
import type { DiscoveryOutcome, TickDependencies } from './tick-types.js';

/*
 * How a tick, and a fan-out dispatch, reach the connections they poll: each connection's client,
 * and its sources (those its settings name, their organizations' projects discovered, or those a
 * caller gave), tagged with the connection's name.
 */

/** Whether a connection's settings name an organization or a project. */
export function namesASource(connection: EffectiveConnection): boolean {
  return connection.sources.orgIds.length > 0 || connection.sources.projectIds.length > 0;
}

/** A connection the tick polls: its configured sources, or the sources a caller gave it. */
export interface WantedConnection {
  connection: EffectiveConnection;
  /** The sources a caller named (a fan-out worker); undefined to resolve them from the settings. */
  given: PollSource[] | undefined;
}

/**
 * The connections to reach: every configured one, or, when the caller names sources, those the
 * sources name (each source once), with the sources that name a connection no setting has.
 */
export function wantedConnections(
  connections: readonly EffectiveConnection[],
  given: readonly PollSource[] | undefined,
): { connections: WantedConnection[]; unknown: PollSource[] } {
  if (given === undefined) {
    return { connections: connections.map((connection) => ({ connection, given: undefined })), unknown: [] };
  }
  const byName = new Map(connections.map((connection) => [connection.name, connection]));
  const wanted = new Map<string, WantedConnection>();
  const unknown: PollSource[] = [];
  for (const source of uniqueSources(given)) {
    const name = source.connection ?? DEFAULT_CONNECTION;
    const connection = byName.get(name);
    if (connection === undefined) {
      unknown.push(source);
      continue;
    }
    const entry = wanted.get(name);
    if (entry === undefined) wanted.set(name, { connection, given: [source] });
    else entry.given?.push(source);
  }
  return { connections: [...wanted.values()], unknown };
}

/** A connection as the tick reached it: its client and sources, or why it has no client. */
export interface ReachedConnection {
  connection: EffectiveConnection;
  client: AtlasClient | undefined;
  /** The client's counters before the tick used it. */
  statsBefore: AtlasClientStats;
  /** Why the connection has no client: its sources fail with it. */
  failure: unknown;
  sources: PollSource[];
  discovery: DiscoveryOutcome[];
}

/**
 * Gets a connection's client and resolves its sources with it (with `allProjectsOfOrgs`, its
 * organizations' projects). Without a client, its configured organizations and projects are its
 * sources, to be reported failed.
 */
export async function connect(
  atlas: TickDependencies['atlas'],
  wanted: WantedConnection,
  shared: {
    discoveryCache: DiscoveryCache;
    names: NameCache;
    clock: Clock;
    logger: Logger;
    budget: TickBudget;
    config: PollerConfig;
  },
): Promise<ReachedConnection> {
  const { connection, given } = wanted;
  const tag = (source: PollSource): PollSource =>
    connection.name === DEFAULT_CONNECTION ? source : { ...source, connection: connection.name };
  let client: AtlasClient;
  try {
    client = await clientOf(atlas, connection);
  } catch (error) {
    const failure = describeFailure(error);
    shared.logger.error("connection unavailable: its sources fail this tick, the other connections' go on", {
      connection: connection.name,
      errorCode: failure.errorCode,
      error: failure.message,
    });
    const configured = [
      ...connection.sources.orgIds.map(orgSource),
      ...connection.sources.projectIds.map(projectSource),
    ];
    return {
      connection,
      client: undefined,
      statsBefore: NO_STATS,
      failure: error,
      sources: (given ?? configured).map(tag),
      discovery: [],
    };
  }
  const statsBefore = client.stats;
  const resolved =
    given === undefined
      ? await resolveSources({
          atlas: client,
          sources: connection.sources,
          cache: shared.discoveryCache,
          names: shared.names,
          clock: shared.clock,
          logger: shared.logger,
          budget: shared.budget,
          concurrency: shared.config.concurrency,
        })
      : { sources: given, discovery: [] };
  return {
    connection,
    client,
    statsBefore,
    failure: undefined,
    sources: resolved.sources.map(tag),
    discovery:
      connection.name === DEFAULT_CONNECTION
        ? resolved.discovery
        : resolved.discovery.map((outcome) => ({ ...outcome, connection: connection.name })),
  };
}

/** The client of `connection`: a lone client serves the connection `default` only. */
async function clientOf(
  atlas: TickDependencies['atlas'],
  connection: EffectiveConnection,
): Promise<AtlasClient> {
  if (typeof atlas === 'function') return atlas(connection);
  if (connection.name === DEFAULT_CONNECTION) return atlas;
  throw new ConnectionUnavailableError(
    `connection "${connection.name}" has no Atlas client: this tick was given the client of the top-level atlas settings only`,
  );
}

export function unknownConnection(source: PollSource): ConnectionUnavailableError {
  return new ConnectionUnavailableError(
    `${source.name} names connection "${source.connection ?? DEFAULT_CONNECTION}", which the configuration does not have: it was not polled`,
  );
}

export const NO_STATS: AtlasClientStats = {
  requests: 0,
  authRoundTrips: 0,
  retries: 0,
  rateLimited: 0,
  tokenFetches: 0,
  paced: 0,
};

/** The given sources, each once, in their first order. */
function uniqueSources(sources: readonly PollSource[]): PollSource[] {
  return [...new Map(sources.map((source) => [source.name, source])).values()];
}
