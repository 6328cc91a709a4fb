import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import type { DeployConfig } from './config.js';

/** A connection the deployed poller polls, with where its credentials are. */
export interface DeployedConnection {
  readonly name: string;
  readonly flavor: DeployConfig['atlas']['flavor'];
  readonly baseUrl: string;
  readonly sources: {
    readonly orgIds: readonly string[];
    readonly projectIds: readonly string[];
    readonly allProjectsOfOrgs: boolean;
  };
  /** An existing secret (and its key), or nothing: the stack then creates the secret. */
  readonly credentials: { readonly secretArn?: string | undefined; readonly kmsKeyArn?: string | undefined };
  /** Whether it stands for the top-level `atlas`, `sources` and `credentials` settings. */
  readonly legacy: boolean;
}

/**
 * Whether the top-level `sources` are polled, as the connection `default`: when they name an
 * organization or a project, or when there is no other connection (a deployment with
 * `sources.allowNone`). The rule `effectiveConnections` follows in the poller, so the stack creates
 * a secret for exactly the connections the poller reads.
 *
 * @example
 * ```ts
 * pollsTopLevelSources({ sources: { orgIds: [], projectIds: [] }, connections: [prod] }); // false
 * ```
 */
export function pollsTopLevelSources(config: {
  sources: { orgIds: readonly string[]; projectIds: readonly string[] };
  connections: readonly unknown[];
}): boolean {
  const { orgIds, projectIds } = config.sources;
  return orgIds.length > 0 || projectIds.length > 0 || config.connections.length === 0;
}

/**
 * The connections of a validated deploy configuration, in the order the poller takes them: the
 * top-level settings as `default` when they are polled (see {@link pollsTopLevelSources}), then
 * `connections`.
 *
 * @example
 * ```ts
 * deployedConnections(config).map((connection) => connection.name); // ['default', 'development']
 * ```
 */
export function deployedConnections(
  config: Pick<DeployConfig, 'atlas' | 'sources' | 'credentials' | 'connections'>,
): DeployedConnection[] {
  const deployed: DeployedConnection[] = [];
  if (pollsTopLevelSources(config)) {
    deployed.push({
      name: DEFAULT_CONNECTION,
      flavor: config.atlas.flavor,
      baseUrl: config.atlas.baseUrl,
      sources: config.sources,
      credentials: config.credentials,
      legacy: true,
    });
  }
  for (const connection of config.connections) {
    deployed.push({
      name: connection.name,
      flavor: connection.flavor,
      baseUrl: connection.baseUrl,
      sources: connection.sources,
      credentials: connection.credentials,
      legacy: false,
    });
  }
  return deployed;
}

/**
 * A connection's name as a part of CloudFormation ids (construct ids, outputs): `prod-org` is
 * `ProdOrg`. Two names can give the same part (`a-1`, `a1`): the deploy configuration refuses them.
 *
 * @example
 * ```ts
 * connectionIdPart('ops-manager-dc1'); // 'OpsManagerDc1'
 * ```
 */
export function connectionIdPart(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
