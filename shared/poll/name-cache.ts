/** How long a name read from Atlas is used before it is read again: names change seldom. */
export const DEFAULT_NAME_TTL_MS = 12 * 60 * 60_000;
/** How long a name Atlas would not give is not asked for again. */
export const DEFAULT_NAME_RETRY_MS = 15 * 60_000;

/** What the cache knows of one organization or project. */
export type NameEntry =
  /** Its name, good until `expiresAt`. */
  | { readonly kind: 'known'; readonly name: string; readonly resolvedAt: number; readonly expiresAt: number }
  /** Atlas did not give it (an error, no role): not asked again before `expiresAt`. */
  | { readonly kind: 'unknown'; readonly expiresAt: number };

/** Options of {@link NameCache}. */
export interface NameCacheOptions {
  /** How long a name is used, in memory and in the state store. Default 12 hours. */
  ttlMs?: number;
  /** How long a failed lookup is not tried again. Default 15 minutes. */
  retryMs?: number;
  /** Names kept at most; the oldest entries go first past it. Default 10,000. */
  maxEntries?: number;
}

/**
 * The names of one container (module scope in the Lambda): a warm container names alerts without a
 * store or Atlas request. Keyed by what is named (see the key functions below): an organization, a
 * project, the organization of a project, a team, or what an alert configuration alerts on.
 * Project discovery fills it for free (the project list carries names); the rest comes from the state
 * store or Atlas (see `AlertDescriber`). It also remembers lookups that failed, for `retryMs`, so a
 * missing role does not cost an Atlas request per alert.
 *
 * @example
 * ```ts
 * const names = new NameCache(); // module scope
 * await runTick({ atlas, store, engine, notifier, names }, options);
 * ```
 */
export class NameCache {
  readonly ttlMs: number;
  readonly retryMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, NameEntry>();

  /** @throws RangeError when a duration or the size is negative or not a number. */
  constructor(options: NameCacheOptions = {}) {
    this.ttlMs = checked('ttlMs', options.ttlMs ?? DEFAULT_NAME_TTL_MS);
    this.retryMs = checked('retryMs', options.retryMs ?? DEFAULT_NAME_RETRY_MS);
    this.#maxEntries = checked('maxEntries', options.maxEntries ?? 10_000);
  }

  /** What is known of `key` at `now`, or `undefined` when nothing live is. */
  get(key: string, now: number): NameEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Keeps a name, read from Atlas or the store, until `expiresAt`. */
  remember(key: string, name: string, resolvedAt: number, expiresAt: number): void {
    this.#set(key, { kind: 'known', name, resolvedAt, expiresAt });
  }

  /** Remembers that Atlas did not give the name, so it is not asked for again before `now + retryMs`. */
  rememberFailure(key: string, now: number): void {
    this.#set(key, { kind: 'unknown', expiresAt: now + this.retryMs });
  }

  /** Entries held, live or not yet dropped. */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets every name. */
  clear(): void {
    this.#entries.clear();
  }

  #set(key: string, entry: NameEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

/**
 * The cache key of an organization's name.
 *
 * @example
 * ```ts
 * orgNameKey('5f4e3d2c1b0a998877665544'); // 'org:5f4e3d2c1b0a998877665544'
 * ```
 */
export function orgNameKey(orgId: string): string {
  return `org:${orgId}`;
}

/**
 * The cache key of a project's name.
 *
 * @example
 * ```ts
 * projectNameKey('64b5ca17f1a3d40012ab3d11'); // 'project:64b5ca17f1a3d40012ab3d11'
 * ```
 */
export function projectNameKey(groupId: string): string {
  return `project:${groupId}`;
}

/**
 * The cache key of the organization a project belongs to: its "name" is the organization's id.
 *
 * @example
 * ```ts
 * projectOrgKey('64b5ca17f1a3d40012ab3d11'); // 'project-org:64b5ca17f1a3d40012ab3d11'
 * ```
 */
export function projectOrgKey(groupId: string): string {
  return `project-org:${groupId}`;
}

/**
 * The cache key of a team's name; teams are read through their organization.
 *
 * @example
 * ```ts
 * teamNameKey('5f4e3d2c1b0a998877665544', '64b5cf01f1a3d40012ab6001'); // 'team:5f4e3d2c1b0a998877665544/64b5cf01f1a3d40012ab6001'
 * ```
 */
export function teamNameKey(orgId: string, teamId: string): string {
  return `team:${orgId}/${teamId}`;
}

/**
 * The cache key of what a project's alert configuration alerts on.
 *
 * @example
 * ```ts
 * alertConfigKey('64b5ca17f1a3d40012ab3d11', '64b5ce01f1a3d40012ab5003'); // 'alert-config:64b5ca17f1a3d40012ab3d11/64b5ce01f1a3d40012ab5003'
 * ```
 */
export function alertConfigKey(groupId: string, alertConfigId: string): string {
  return `alert-config:${groupId}/${alertConfigId}`;
}

function checked(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`name cache ${name} must be a non-negative number, got ${value}`);
  }
  return value;
}
