import type { AtlasClient } from '../atlas/atlas-client.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { cleanAtlasName } from '../notify/alert-context.js';
import { describeFailure } from './failure-report.js';
import { type NameCache, projectNameKey, projectOrgKey } from './name-cache.js';
import { orgSource, type PollSource, projectSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import type { ProjectDiscoveryCache } from './project-discovery-cache.js';
import type { TickBudget } from './tick-budget.js';
import type { DiscoveryOutcome } from './tick-types.js';

/** Options of {@link resolveSources}. */
export interface ResolveSourcesOptions {
  atlas: AtlasClient;
  sources: PollerConfig['sources'];
  cache: ProjectDiscoveryCache;
  /** Takes the names of the projects listed, so their alerts need no lookup. */
  names?: NameCache;
  clock: Clock;
  logger: Logger;
  budget: TickBudget;
  /** Organizations listed at once. */
  concurrency: number;
}

/** The sources of a tick and how their projects were found. */
export interface ResolvedSources {
  sources: PollSource[];
  discovery: DiscoveryOutcome[];
}

/**
 * The sources a tick polls, each once, in order: the organizations (their org events), the
 * configured projects, then with `allProjectsOfOrgs` every project of each organization, from the
 * cache while it is fresh, else listed from Atlas (`/orgs/{orgId}/groups`). An organization whose
 * listing fails keeps the projects last listed, if any, and is reported in `discovery`.
 *
 * @example
 * ```ts
 * const { sources, discovery } = await resolveSources({ atlas, sources: config.sources, cache, clock,
 *   logger, budget, concurrency: 4 });
 * ```
 */
export async function resolveSources(options: ResolveSourcesOptions): Promise<ResolvedSources> {
  const { orgIds, projectIds, allProjectsOfOrgs } = options.sources;
  const discovery = allProjectsOfOrgs
    ? await mapWithConcurrency(orgIds, options.concurrency, (orgId) => discover(options, orgId))
    : [];
  const byName = new Map<string, PollSource>();
  const add = (source: PollSource): void => {
    if (!byName.has(source.name)) byName.set(source.name, source);
  };
  for (const orgId of orgIds) add(orgSource(orgId));
  for (const projectId of projectIds) add(projectSource(projectId));
  for (const { projectIds: discovered } of discovery)
    for (const projectId of discovered) add(projectSource(projectId));
  return { sources: [...byName.values()], discovery: discovery.map(({ outcome }) => outcome) };
}

async function discover(
  options: ResolveSourcesOptions,
  orgId: string,
): Promise<{ outcome: DiscoveryOutcome; projectIds: readonly string[] }> {
  const { cache, clock, budget } = options;
  const now = clock.now();
  const fresh = cache.fresh(orgId, now);
  if (fresh !== undefined) {
    return {
      outcome: { orgId, status: 'cached', projects: fresh.projectIds.length },
      projectIds: fresh.projectIds,
    };
  }
  const last = cache.last(orgId);
  if (budget.stopReason() !== undefined) {
    const projectIds = last?.projectIds ?? [];
    return { outcome: { orgId, status: 'cached', projects: projectIds.length }, projectIds };
  }
  try {
    const projects = await options.atlas.listOrgProjects(orgId, { signal: budget.signal }).toArray();
    const projectIds = projects.map((project) => project.id);
    cache.remember(orgId, { projectIds, listedAt: now });
    const names = options.names;
    if (names !== undefined) {
      for (const project of projects) {
        const name = cleanAtlasName(project.name);
        if (name !== undefined) names.remember(projectNameKey(project.id), name, now, now + names.ttlMs);
        names.remember(projectOrgKey(project.id), orgId, now, now + names.ttlMs);
      }
    }
    return { outcome: { orgId, status: 'listed', projects: projectIds.length }, projectIds };
  } catch (error) {
    const projectIds = last?.projectIds ?? [];
    if (budget.isAbort(error)) {
      return { outcome: { orgId, status: 'cached', projects: projectIds.length }, projectIds };
    }
    const failure = describeFailure(error);
    options.logger.error('could not list the projects of an organization', {
      orgId,
      errorCode: failure.errorCode,
      httpStatus: failure.httpStatus,
      error: failure.message,
      projectsKept: projectIds.length,
    });
    return {
      outcome: {
        orgId,
        status: 'failed',
        projects: projectIds.length,
        errorCode: failure.errorCode,
        message: failure.message,
        ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
      },
      projectIds,
    };
  }
}
