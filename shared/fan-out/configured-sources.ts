import type { AtlasClient } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import type { PollerConfig, ProjectDiscoveryCache } from '../poll/index.js';
import type { SourceMessage } from './source-message.js';

/** Whether a deployment polls the source a message names. */
export type SourceStanding =
  /** One of `sources.orgIds` or `sources.projectIds`, or a project of an organization polled whole. */
  | { status: 'configured' }
  /** Not a source of this deployment: the message is dropped, creating no state. */
  | { status: 'not-configured'; reason: string }
  /** Whether it is could not be learnt (Atlas did not list the organization's projects): ask again later. */
  | { status: 'unknown'; reason: string };

/** Options of {@link ConfiguredSources}. */
export interface ConfiguredSourcesOptions {
  /** The deployment's `sources`. */
  sources: PollerConfig['sources'];
  /** Lists an organization's projects when `allProjectsOfOrgs` is on. */
  atlas: Pick<AtlasClient, 'listOrgProjects'>;
  /** The organizations' project lists, kept between invocations (the worker's module scope). */
  cache: ProjectDiscoveryCache;
  clock: Pick<Clock, 'now'>;
}

/**
 * Says whether a queue message names a source of the deployed configuration, so that a worker polls
 * only those: a message left from before the configuration changed, or one that never came from the
 * dispatcher, must not give an organization or project a cursor, an inventory or alerts.
 *
 * An organization is one when it is in `sources.orgIds`, a project when it is in `sources.projectIds`
 * or, with `allProjectsOfOrgs`, when Atlas lists it under a polled organization (the message's
 * `orgId`). That list comes from the cache while it is fresh; for a project missing from it the
 * organization is listed again, once per instance (the worker builds one per invocation), since the
 * dispatcher may have seen a project created since. When Atlas cannot list the
 * organization, a project of its last list is one; any other is `unknown`, and asked about again
 * when its message comes back.
 *
 * @example
 * ```ts
 * const configured = new ConfiguredSources({ sources: config.sources, atlas, cache: discoveryCache, clock });
 * const standing = await configured.standing(parseSourceMessage(record.body));
 * if (standing.status === 'not-configured') logger.warn('dropped', { reason: standing.reason });
 * ```
 */
export class ConfiguredSources {
  readonly #options: ConfiguredSourcesOptions;
  readonly #orgIds: ReadonlySet<string>;
  readonly #projectIds: ReadonlySet<string>;
  /**
   * Organizations this instance listed (each at most once: the worker builds one per invocation),
   * with why the listing failed, if it did.
   */
  readonly #listed = new Map<string, string | undefined>();

  constructor(options: ConfiguredSourcesOptions) {
    this.#options = options;
    this.#orgIds = new Set(options.sources.orgIds);
    this.#projectIds = new Set(options.sources.projectIds);
  }

  /** Whether the message's source is one of this deployment; never throws. */
  async standing(message: SourceMessage, options: { signal?: AbortSignal } = {}): Promise<SourceStanding> {
    const { id } = message;
    if (message.kind === 'org') {
      return this.#orgIds.has(id)
        ? { status: 'configured' }
        : { status: 'not-configured', reason: `organization ${id} is not in sources.orgIds` };
    }
    if (this.#projectIds.has(id)) return { status: 'configured' };
    const orgId = message.orgId;
    if (!this.#options.sources.allProjectsOfOrgs || orgId === undefined || !this.#orgIds.has(orgId)) {
      return {
        status: 'not-configured',
        reason: this.#options.sources.allProjectsOfOrgs
          ? `project ${id} is not in sources.projectIds, and its organization ${orgId ?? '(not named)'} is not in sources.orgIds`
          : `project ${id} is not in sources.projectIds`,
      };
    }
    return this.#projectOfOrg(id, orgId, options.signal);
  }

  async #projectOfOrg(projectId: string, orgId: string, signal?: AbortSignal): Promise<SourceStanding> {
    const { cache, clock } = this.#options;
    const fresh = cache.fresh(orgId, clock.now());
    if (fresh?.projectIds.includes(projectId)) return { status: 'configured' };
    if (!this.#listed.has(orgId)) {
      this.#listed.set(orgId, await this.#list(orgId, signal));
    }
    const listed = cache.fresh(orgId, clock.now()) ?? cache.last(orgId);
    if (listed?.projectIds.includes(projectId)) return { status: 'configured' };
    const failure = this.#listed.get(orgId);
    if (failure === undefined) return notListed(projectId, orgId);
    return {
      status: 'unknown',
      reason: `the projects of organization ${orgId} could not be listed to check project ${projectId}: ${failure}`,
    };
  }

  /** Lists the organization's projects into the cache; returns why it failed, if it did. */
  async #list(orgId: string, signal?: AbortSignal): Promise<string | undefined> {
    const { cache, clock } = this.#options;
    try {
      const listedAt = clock.now();
      const projects = await this.#options.atlas
        .listOrgProjects(orgId, signal === undefined ? {} : { signal })
        .toArray();
      cache.remember(orgId, { projectIds: projects.map((project) => project.id), listedAt });
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}

function notListed(projectId: string, orgId: string): SourceStanding {
  return {
    status: 'not-configured',
    reason: `project ${projectId} is not among the projects Atlas lists for organization ${orgId}`,
  };
}
