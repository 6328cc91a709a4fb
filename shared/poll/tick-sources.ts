import type { AtlasClient } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { PollConfigError } from './errors.js';
import type { PollSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import { ProjectDiscoveryCache } from './project-discovery-cache.js';
import { resolveSources } from './source-resolution.js';
import { TickBudget } from './tick-budget.js';
import type { DiscoveryOutcome } from './tick-types.js';

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
  atlas: AtlasClient;
  config: PollerConfig;
  /** Kept across ticks (module scope in the Lambda); without one, every call lists the projects again. */
  discoveryCache?: ProjectDiscoveryCache;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** When the listing must stop, in milliseconds since the epoch; no new listing starts past the margin. */
  deadline?: number;
}

/** The sources one tick would poll, and how their projects were found. */
export interface TickSources {
  sources: TickSource[];
  discovery: DiscoveryOutcome[];
}

/**
 * Resolves the sources one tick polls exactly as `runTick` does (organizations, configured projects,
 * then with `allProjectsOfOrgs` every project of each organization, from the cache while fresh), each
 * once, and says which organization each belongs to. A fan-out dispatcher sends one message per source
 * from this list; a failed listing keeps the projects last listed and is reported in `discovery`.
 *
 * @example
 * ```ts
 * const { sources } = await listTickSources({ atlas, config, discoveryCache, deadline });
 * sources[0]; // { kind: 'org', id: '5f4e…', name: 'org:5f4e…', orgId: '5f4e…' }
 * ```
 */
export async function listTickSources(options: ListTickSourcesOptions): Promise<TickSources> {
  const { config } = options;
  const connections = config.connections?.length ?? 0;
  if (connections > 0) {
    throw new PollConfigError(
      `fan-out lists the sources of the top-level atlas and sources settings only, and this configuration has ${connections} ${connections === 1 ? 'connection' : 'connections'}: poll connections with the scheduled poller (fanOut.mode: off)`,
    );
  }
  const clock = options.clock ?? systemClock;
  const cache = options.discoveryCache ?? new ProjectDiscoveryCache();
  const budget = new TickBudget({
    clock,
    deadline: options.deadline,
    marginMs: config.timing.deadlineMarginSeconds * SECOND_MS,
  });
  try {
    const resolved = await resolveSources({
      atlas: options.atlas,
      sources: config.sources,
      cache,
      clock,
      logger: options.logger ?? silentLogger,
      budget,
      concurrency: config.concurrency,
    });
    const orgOfProject = new Map<string, string>();
    if (config.sources.allProjectsOfOrgs) {
      for (const orgId of config.sources.orgIds) {
        for (const projectId of cache.last(orgId)?.projectIds ?? []) {
          if (!orgOfProject.has(projectId)) orgOfProject.set(projectId, orgId);
        }
      }
    }
    const sources = resolved.sources.map((source): TickSource => {
      const orgId = source.kind === 'org' ? source.id : orgOfProject.get(source.id);
      return orgId === undefined ? { ...source } : { ...source, orgId };
    });
    return { sources, discovery: resolved.discovery };
  } finally {
    budget.dispose();
  }
}
