/** How long a discovered list (projects of an organization, clusters of a project) is used before it is listed again. */
export const DEFAULT_DISCOVERY_TTL_MS = 5 * 60_000;

/** One listing as last taken: the ids (project ids, or cluster names) and when. */
export interface DiscoveredIds {
  ids: readonly string[];
  /** When they were listed, in milliseconds since the epoch. */
  listedAt: number;
}

/** Options of {@link DiscoveryCache}. */
export interface DiscoveryCacheOptions {
  /** How long a list stays fresh. Default 5 minutes. */
  ttlMs?: number;
}

/**
 * The key a project's clusters are kept under, beside the organizations' project lists (an
 * organization's key is its id).
 *
 * @example
 * ```ts
 * clustersKey('5f4e3d2c1b0a998877665544'); // 'clusters:5f4e3d2c1b0a998877665544'
 * ```
 */
export function clustersKey(groupId: string): string {
  return `clusters:${groupId}`;
}

/**
 * What the tick discovers rather than reads from its settings, kept between ticks so a tick every
 * minute does not list it every minute: the projects of each organization polled with
 * `sources.allProjectsOfOrgs` (under the organization's id), and the clusters of each project polled
 * with `sources.accessHistory` (under {@link clustersKey}). The caller keeps one (module scope in the
 * Lambda) and passes it to every tick. A stale list is still handed out when listing fails, so a
 * brief Atlas failure does not stop the polling of what is already known.
 *
 * @example
 * ```ts
 * const discoveryCache = new DiscoveryCache({ ttlMs: 10 * 60_000 }); // module scope
 * await runTick({ atlas, store, engine, notifier, discoveryCache }, options);
 * ```
 */
export class DiscoveryCache {
  readonly ttlMs: number;
  readonly #entries = new Map<string, DiscoveredIds>();

  /** @throws RangeError when `ttlMs` is negative or not a number. */
  constructor(options: DiscoveryCacheOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    if (!Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new RangeError(
        `discovery cache ttlMs must be a non-negative number of milliseconds, got ${ttlMs}`,
      );
    }
    this.ttlMs = ttlMs;
  }

  /** The list kept under `key` if it is younger than the TTL at `now`. */
  fresh(key: string, now: number): DiscoveredIds | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && now - entry.listedAt < this.ttlMs ? entry : undefined;
  }

  /** The list kept under `key`, however old. */
  last(key: string): DiscoveredIds | undefined {
    return this.#entries.get(key);
  }

  /** Keeps a list just taken. */
  remember(key: string, listed: DiscoveredIds): void {
    this.#entries.set(key, { ids: [...listed.ids], listedAt: listed.listedAt });
  }

  /** Forgets every list: the next tick lists everything again. */
  clear(): void {
    this.#entries.clear();
  }
}
