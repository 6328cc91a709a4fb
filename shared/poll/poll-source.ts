/** One thing a tick polls: an organization's events or a project's events. */
export interface PollSource {
  kind: 'org' | 'project';
  /** The organization or project id. */
  id: string;
  /** The name the state store keeps it under: `org:<id>` or `project:<id>`. */
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
