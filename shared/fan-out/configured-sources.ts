import type { AtlasClient } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import { DEFAULT_CONNECTION, type DiscoveryCache, type EffectiveConnection } from '../poll/index.js';
import type { SourceMessage } from './source-message.js';

/** Whether a deployment polls the source a message names. */
export type SourceStanding =
  /** One of `sources.orgIds` or `sources.projectIds`, or a project of an organization polled whole. */
  | { status: 'configured' }
  /** Not a source of this deployment: the message is dropped, creating no state. */
  | { status: 'not-configured'; reason: string }
  /** Whether it is could not be learnt (Atlas did not list the organization's projects): ask again later. */
  | { status: 'unknown'; reason: string };

/** What lists an organization's projects: `listOrgProjects` of an Atlas client. */
export type ProjectLister = Pick<AtlasClient, 'listOrgProjects'>;

/** Options of {@link ConfiguredSources}. */
export interface ConfiguredSourcesOptions {
  /** The deployment's connections (`effectiveConnections`), each with its `sources`. */
  connections: readonly Pick<EffectiveConnection, 'name' | 'sources'>[];
  /**
   * The client that lists the projects of a connection's organization when its `allProjectsOfOrgs`
   * is on. Asked only then; a connection whose client cannot be had leaves its projects `unknown`.
   */
  atlas: (connection: string) => ProjectLister | Promise<ProjectLister>;
  /** The organizations' project lists, kept between invocations (the worker's module scope). */
  cache: DiscoveryCache;
  clock: Pick<Clock, 'now'>;
}

/**
 * Says whether a queue message names a source of the deployed configuration, so that a worker polls
 * only those: a message left from before the configuration changed, or one that never came from the
 * dispatcher, must not give an organization or project a cursor, an inventory or alerts.
 *
 * A source is one of the connection the message names (`default` when it names none): an
 * organization when it is in that connection's `sources.orgIds`, a project when it is in its
 * `sources.projectIds` or, with `allProjectsOfOrgs`, when Atlas lists it, through that connection's
 * credentials, under one of its organizations (the message's `orgId`). That list comes from the cache while it is fresh; for a project missing from it the
 * organization is listed again, once per instance (the worker builds one per invocation), since the
 * dispatcher may have seen a project created since. When Atlas cannot list the
 * organization, a project of its last list is one; any other is `unknown`, and asked about again
 * when its message comes back. A cluster's access history is one when its connection sets
 * `sources.accessHistory` and its project is one (the cluster itself is not listed again: one that
 * is gone fails its poll with Atlas's 404).
 *
 * @example
 * ```ts
 * const configured = new ConfiguredSources({ connections: effectiveConnections(config),
 *   atlas: (name) => clientOf(name), cache: discoveryCache, clock });
 * const standing = await configured.standing(parseSourceMessage(record.body));
 * if (standing.status === 'not-configured') logger.warn('dropped', { reason: standing.reason });
 * ```
 */
export class ConfiguredSources {
  readonly #options: ConfiguredSourcesOptions;
  readonly #connections: ReadonlyMap<string, ConnectionSources>;
  /**
   * Organizations this instance listed (each at most once: the worker builds one per invocation),
   * with why the listing failed, if it did.
   */
  readonly #listed = new Map<string, string | undefined>();

  constructor(options: ConfiguredSourcesOptions) {
    this.#options = options;
    this.#connections = new Map(
      options.connections.map((connection) => [
        connection.name,
        {
          sources: connection.sources,
          orgIds: new Set(connection.sources.orgIds),
          projectIds: new Set(connection.sources.projectIds),
        },
      ]),
    );
  }

  /** Whether the message's source is one of this deployment; never throws. */
  async standing(message: SourceMessage, options: { signal?: AbortSignal } = {}): Promise<SourceStanding> {
    const { id } = message;
    const name = message.connection ?? DEFAULT_CONNECTION;
    const connection = this.#connections.get(name);
    const where = name === DEFAULT_CONNECTION ? '' : `connection ${name}'s `;
    if (connection === undefined) {
      return {
        status: 'not-configured',
        reason:
          name === DEFAULT_CONNECTION
            ? 'the top-level sources name no organization or project, and the message names no connection'
            : `connection ${name} is not configured`,
      };
    }
    if (message.kind === 'org') {
      return connection.orgIds.has(id)
        ? { status: 'configured' }
        : { status: 'not-configured', reason: `organization ${id} is not in ${where}sources.orgIds` };
    }
    if (message.kind === 'cluster' && connection.sources.accessHistory !== true) {
      return {
        status: 'not-configured',
        reason: `cluster ${message.cluster ?? ''} of project ${id}: ${where}sources.accessHistory is not set`,
      };
    }
    if (connection.projectIds.has(id)) return { status: 'configured' };
    const orgId = message.orgId;
    if (!connection.sources.allProjectsOfOrgs || orgId === undefined || !connection.orgIds.has(orgId)) {
      return {
        status: 'not-configured',
        reason: connection.sources.allProjectsOfOrgs
          ? `project ${id} is not in ${where}sources.projectIds, and its organization ${orgId ?? '(not named)'} is not in ${where}sources.orgIds`
          : `project ${id} is not in ${where}sources.projectIds`,
      };
    }
    return this.#projectOfOrg(name, id, orgId, options.signal);
  }

  async #projectOfOrg(
    connection: string,
    projectId: string,
    orgId: string,
    signal?: AbortSignal,
  ): Promise<SourceStanding> {
    const { cache, clock } = this.#options;
    const fresh = cache.fresh(orgId, clock.now());
    if (fresh?.ids.includes(projectId)) return { status: 'configured' };
    if (!this.#listed.has(orgId)) {
      this.#listed.set(orgId, await this.#list(connection, orgId, signal));
    }
    const listed = cache.fresh(orgId, clock.now()) ?? cache.last(orgId);
    if (listed?.ids.includes(projectId)) return { status: 'configured' };
    const failure = this.#listed.get(orgId);
    if (failure === undefined) return notListed(projectId, orgId);
    return {
      status: 'unknown',
      reason: `the projects of organization ${orgId} could not be listed to check project ${projectId}: ${failure}`,
    };
  }

  /** Lists the organization's projects into the cache; returns why it failed, if it did. */
  async #list(connection: string, orgId: string, signal?: AbortSignal): Promise<string | undefined> {
    const { cache, clock } = this.#options;
    try {
      const listedAt = clock.now();
      const atlas = await this.#options.atlas(connection);
      const projects = await atlas.listOrgProjects(orgId, signal === undefined ? {} : { signal }).toArray();
      cache.remember(orgId, { ids: projects.map((project) => project.id), listedAt });
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}

/** A connection's sources, with its ids in sets. */
interface ConnectionSources {
  sources: EffectiveConnection['sources'];
  orgIds: ReadonlySet<string>;
  projectIds: ReadonlySet<string>;
}

function notListed(projectId: string, orgId: string): SourceStanding {
  return {
    status: 'not-configured',
    reason: `project ${projectId} is not among the projects Atlas lists for organization ${orgId}`,
  };
}
