import { CLUSTER_NAME } from '../atlas/access-history-query.js';
import type { AtlasClient } from '../atlas/atlas-client.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { cleanAtlasName } from '../notify/alert-context.js';
import { clustersKey, type DiscoveryCache } from './discovery-cache.js';
import { describeFailure } from './failure-report.js';
import { type NameCache, projectNameKey, projectOrgKey } from './name-cache.js';
import { clusterSource, orgSource, type PollSource, projectSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import type { TickBudget } from './tick-budget.js';
import type { DiscoveryOutcome } from './tick-types.js';

/** Options of {@link resolveSources}. */
export interface ResolveSourcesOptions {
  atlas: AtlasClient;
  sources: PollerConfig['sources'];
  cache: DiscoveryCache;
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
 * configured projects, then with `allProjectsOfOrgs` every project of each organization, then with
 * `accessHistory` every dedicated cluster of those projects (its access history). Lists come from
 * the cache while it is fresh, else from Atlas (`/orgs/{orgId}/groups`, `/groups/{groupId}/clusters`).
 * A listing that fails keeps what was last listed, if anything, and is reported in `discovery`.
 *
 * @example
 * ```ts
 * const { sources, discovery } = await resolveSources({ atlas, sources: config.sources, cache, clock,
 *   logger, budget, concurrency: 4 });
 * ```
 */
export async function resolveSources(options: ResolveSourcesOptions): Promise<ResolvedSources> {
  const { orgIds, projectIds, allProjectsOfOrgs, accessHistory } = options.sources;
  const projectLists = allProjectsOfOrgs
    ? await mapWithConcurrency(orgIds, options.concurrency, (orgId) => discoverProjects(options, orgId))
    : [];
  const byName = new Map<string, PollSource>();
  const add = (source: PollSource): void => {
    if (!byName.has(source.name)) byName.set(source.name, source);
  };
  for (const orgId of orgIds) add(orgSource(orgId));
  for (const projectId of projectIds) add(projectSource(projectId));
  for (const { ids } of projectLists) for (const projectId of ids) add(projectSource(projectId));
  const projects = [...byName.values()].filter((source) => source.kind === 'project');
  const clusterLists =
    accessHistory === true
      ? await mapWithConcurrency(projects, options.concurrency, ({ id }) => discoverClusters(options, id))
      : [];
  for (const { groupId, ids } of clusterLists) for (const name of ids) add(clusterSource(groupId, name));
  return {
    sources: [...byName.values()],
    discovery: [...projectLists, ...clusterLists].map(({ outcome }) => outcome),
  };
}

/** A listing as the tick took it: the ids to poll, how they were had, and why it failed if it did. */
interface Listing {
  status: DiscoveryOutcome['status'];
  ids: readonly string[];
  /** The outcome's error fields when the listing failed; none otherwise. */
  failure: Pick<DiscoveryOutcome, 'errorCode' | 'message' | 'httpStatus'>;
}

/** What a listing is of, for the error it logs when it fails. */
interface ListingSubject {
  /** The log message of a failure. */
  failed: string;
  /** The organization or project listed, as log fields. */
  fields: Record<string, string>;
  /** The log field that counts the ids kept from the last listing. */
  keptField: string;
}

/**
 * The ids kept under `key`: from the cache while fresh, else listed (and kept), else, when the
 * listing fails (logged as an error) or there is no time left, the last ones listed.
 */
async function cachedListing(
  options: ResolveSourcesOptions,
  key: string,
  subject: ListingSubject,
  list: (now: number) => Promise<readonly string[]>,
): Promise<Listing> {
  const { cache, clock, budget } = options;
  const now = clock.now();
  const fresh = cache.fresh(key, now);
  if (fresh !== undefined) return { status: 'cached', ids: fresh.ids, failure: {} };
  const kept = cache.last(key)?.ids ?? [];
  if (budget.stopReason() !== undefined) return { status: 'cached', ids: kept, failure: {} };
  try {
    const ids = await list(now);
    cache.remember(key, { ids, listedAt: now });
    return { status: 'listed', ids, failure: {} };
  } catch (error) {
    if (budget.isAbort(error)) return { status: 'cached', ids: kept, failure: {} };
    const failure = describeFailure(error);
    options.logger.error(subject.failed, {
      ...subject.fields,
      errorCode: failure.errorCode,
      httpStatus: failure.httpStatus,
      error: failure.message,
      [subject.keptField]: kept.length,
    });
    return {
      status: 'failed',
      ids: kept,
      failure: {
        errorCode: failure.errorCode,
        message: failure.message,
        ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
      },
    };
  }
}

async function discoverProjects(
  options: ResolveSourcesOptions,
  orgId: string,
): Promise<{ outcome: DiscoveryOutcome; ids: readonly string[] }> {
  const subject = {
    failed: 'could not list the projects of an organization',
    fields: { orgId },
    keptField: 'projectsKept',
  };
  const listing = await cachedListing(options, orgId, subject, async (now) => {
    const projects = await options.atlas.listOrgProjects(orgId, { signal: options.budget.signal }).toArray();
    const names = options.names;
    if (names !== undefined) {
      for (const project of projects) {
        const name = cleanAtlasName(project.name);
        if (name !== undefined) names.remember(projectNameKey(project.id), name, now, now + names.ttlMs);
        names.remember(projectOrgKey(project.id), orgId, now, now + names.ttlMs);
      }
    }
    return projects.map((project) => project.id);
  });
  return {
    outcome: { orgId, status: listing.status, projects: listing.ids.length, ...listing.failure },
    ids: listing.ids,
  };
}

/**
 * The clusters of a project whose access history can be read. Shared-tier, Flex and serverless
 * clusters keep none: they are left out with one log line per listing, not reported as failures.
 */
async function discoverClusters(
  options: ResolveSourcesOptions,
  groupId: string,
): Promise<{ outcome: DiscoveryOutcome; groupId: string; ids: readonly string[] }> {
  const subject = {
    failed: 'could not list the clusters of a project; their access history is not read',
    fields: { groupId },
    keptField: 'clustersKept',
  };
  const listing = await cachedListing(options, clustersKey(groupId), subject, async () => {
    const clusters = await options.atlas.listClusters(groupId, { signal: options.budget.signal }).toArray();
    const without = clusters.filter((cluster) => !cluster.accessHistory);
    if (without.length > 0) {
      options.logger.info(
        'clusters without database access history left out (shared tier, Flex, serverless)',
        {
          groupId,
          clusters: without
            .slice(0, 20)
            .map((cluster) => `${cluster.name} (${cluster.instanceSize ?? cluster.tier})`),
          count: without.length,
        },
      );
    }
    const readable = clusters.filter((cluster) => cluster.accessHistory);
    const named = readable.filter((cluster) => CLUSTER_NAME.test(cluster.name));
    if (named.length < readable.length) {
      options.logger.warn(
        'clusters whose names Atlas does not allow left out: their access history cannot be asked for',
        {
          groupId,
          count: readable.length - named.length,
        },
      );
    }
    return named.map((cluster) => cluster.name);
  });
  return {
    outcome: { groupId, status: listing.status, clusters: listing.ids.length, ...listing.failure },
    groupId,
    ids: listing.ids,
  };
}
