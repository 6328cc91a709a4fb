/** What a source reads: an organization's events, a project's events, or a cluster's access history. */
export type PollSourceKind = 'org' | 'project' | 'cluster';

/** One thing a tick polls: an organization's events, a project's events, or a cluster's access history. */
export interface PollSource {
  kind: PollSourceKind;
  /** The organization or project id (for a cluster, its project's). */
  id: string;
  /** For a cluster, its name (what `dbAccessHistory/clusters/{clusterName}` takes). */
  cluster?: string;
  /**
   * The name the state store keeps it under: `org:<id>`, `project:<id>`, or
   * `cluster:<project id>:<cluster name>`.
   */
  name: string;
  /**
   * The connection (see `effectiveConnections`) whose credentials read it; absent for the connection
   * `default`, the top-level `atlas` and `sources` settings. Atlas ids are unique and a source belongs
   * to one connection, so the name alone keys its state.
   */
  connection?: string;
}

/**
 * The source for an organization's events (and its API key inventory).
 *
 * @example
 * ```ts
 * orgSource('5f4e3d2c1b0a998877665544').name; // 'org:5f4e3d2c1b0a998877665544'
 * ```
 */
export function orgSource(id: string): PollSource {
  return { kind: 'org', id, name: `org:${id}` };
}

/**
 * The source for a project's events.
 *
 * @example
 * ```ts
 * projectSource('5f4e3d2c1b0a998877665544').name; // 'project:5f4e3d2c1b0a998877665544'
 * ```
 */
export function projectSource(id: string): PollSource {
  return { kind: 'project', id, name: `project:${id}` };
}

/**
 * The source for a cluster's database access history: one authentication attempt per line.
 *
 * @example
 * ```ts
 * clusterSource('5f4e3d2c1b0a998877665544', 'payments-main').name;
 * // 'cluster:5f4e3d2c1b0a998877665544:payments-main'
 * ```
 */
export function clusterSource(groupId: string, clusterName: string): PollSource {
  return { kind: 'cluster', id: groupId, cluster: clusterName, name: `cluster:${groupId}:${clusterName}` };
}
