/** How long a discovered project list is used before the projects are listed again. */
export const DEFAULT_DISCOVERY_TTL_MS = 5 * 60_000;

/** One organization's projects as last listed. */
export interface DiscoveredProjects {
  projectIds: readonly string[];
  /** When they were listed, in milliseconds since the epoch. */
  listedAt: number;
}

/** Options of {@link ProjectDiscoveryCache}. */
export interface ProjectDiscoveryCacheOptions {
  /** How long a list stays fresh. Default 5 minutes. */
  ttlMs?: number;
}

/**
 * The projects of each organization polled with `sources.allProjectsOfOrgs`, kept between ticks so
 * a tick every minute does not list them every minute. The caller keeps one (module scope in the
 * Lambda) and passes it to every tick. A stale list is still handed out when listing fails, so a
 * brief Atlas failure does not stop the polling of projects already known.
 *
 * @example
 * ```ts
 * const discoveryCache = new ProjectDiscoveryCache({ ttlMs: 10 * 60_000 }); // module scope
 * await runTick({ atlas, store, engine, notifier, discoveryCache }, options);
 * ```
 */
export class ProjectDiscoveryCache {
  readonly ttlMs: number;
  readonly #entries = new Map<string, DiscoveredProjects>();

  /** @throws RangeError when `ttlMs` is negative or not a number. */
  constructor(options: ProjectDiscoveryCacheOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    if (!Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new RangeError(
        `discovery cache ttlMs must be a non-negative number of milliseconds, got ${ttlMs}`,
      );
    }
    this.ttlMs = ttlMs;
  }

  /** The organization's list if it is younger than the TTL at `now`. */
  fresh(orgId: string, now: number): DiscoveredProjects | undefined {
    const entry = this.#entries.get(orgId);
    return entry !== undefined && now - entry.listedAt < this.ttlMs ? entry : undefined;
  }

  /** The organization's last list, however old. */
  last(orgId: string): DiscoveredProjects | undefined {
    return this.#entries.get(orgId);
  }

  /** Keeps a list just taken. */
  remember(orgId: string, projects: DiscoveredProjects): void {
    this.#entries.set(orgId, { projectIds: [...projects.projectIds], listedAt: projects.listedAt });
  }

  /** Forgets every list: the next tick lists every organization again. */
  clear(): void {
    this.#entries.clear();
  }
}
