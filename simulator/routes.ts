/** The API generations the simulator serves, named as the client names its flavours. */
export type ApiGeneration = 'ops-manager' | 'atlas-v1' | 'atlas-v2';

/** Path prefixes of the three API generations. */
export const API_PREFIXES: ReadonlyArray<{ readonly prefix: string; readonly generation: ApiGeneration }> = [
  { prefix: '/api/public/v1.0', generation: 'ops-manager' },
  { prefix: '/api/atlas/v1.0', generation: 'atlas-v1' },
  { prefix: '/api/atlas/v2', generation: 'atlas-v2' },
];

/** The OAuth token endpoint of service accounts (outside the versioned prefixes). */
export const TOKEN_PATH = '/api/oauth/token';

export type RouteName =
  | 'listProjectEvents'
  | 'getProjectEvent'
  | 'listOrgEvents'
  | 'getOrgEvent'
  | 'listApiKeys'
  | 'listAccessList'
  | 'listOrgProjects'
  | 'listServiceAccounts'
  | 'listServiceAccountAccessList'
  | 'listProjectAccessList'
  | 'listClusters'
  | 'getClusterAccessHistory'
  | 'getProcessAccessHistory'
  | 'getOrg'
  | 'getProject'
  | 'getTeam'
  | 'getAlertConfig'
  | 'listAlertConfigs'
  | 'listIntegrations'
  | 'getIntegration'
  | 'listEventTypes';

/** Path parameters a route captures, decoded. */
export interface RouteParams {
  groupId?: string;
  orgId?: string;
  eventId?: string;
  apiUserId?: string;
  clientId?: string;
  teamId?: string;
  alertConfigId?: string;
  clusterName?: string;
  hostname?: string;
  integrationType?: string;
}

export interface RouteMatch {
  readonly name: RouteName;
  /** The path below the prefix with placeholders, e.g. `/groups/{groupId}/events`: what counters use. */
  readonly pattern: string;
  readonly params: RouteParams;
}

/**
 * Splits a request path into its API generation and the path below the prefix.
 *
 * @example
 * ```ts
 * splitApiPath('/api/atlas/v2/orgs/x/events'); // { generation: 'atlas-v2', prefix: '/api/atlas/v2', rest: '/orgs/x/events' }
 * ```
 */
export function splitApiPath(
  pathname: string,
): { generation: ApiGeneration; prefix: string; rest: string } | undefined {
  for (const { prefix, generation } of API_PREFIXES) {
    if (
      pathname.startsWith(prefix) &&
      (pathname.length === prefix.length || pathname[prefix.length] === '/')
    ) {
      return { generation, prefix, rest: pathname.slice(prefix.length) };
    }
  }
  return undefined;
}

/**
 * Finds the route a path below the prefix names (whatever the method), with its decoded parameters.
 * Returns `undefined` for paths the simulator does not serve.
 *
 * @example
 * ```ts
 * matchRoute('/groups/5f4e/events/64aa'); // { name: 'getProjectEvent', pattern: '/groups/{groupId}/events/{eventId}', ... }
 * ```
 */
export function matchRoute(rest: string): RouteMatch | undefined {
  let segments: string[];
  try {
    segments = rest.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  if (segments[0] !== '') return undefined;
  const [, collection, id, sub, subId, leaf] = segments;
  const length = segments.length;
  if (length === 2 && collection === 'eventTypes') {
    return { name: 'listEventTypes', pattern: '/eventTypes', params: {} };
  }
  if (id === undefined || id === '') return undefined;
  if (length === 3 && collection === 'groups') {
    return { name: 'getProject', pattern: '/groups/{groupId}', params: { groupId: id } };
  }
  if (length === 3 && collection === 'orgs') {
    return { name: 'getOrg', pattern: '/orgs/{orgId}', params: { orgId: id } };
  }
  if (collection === 'groups' && sub === 'events') {
    if (length === 4)
      return { name: 'listProjectEvents', pattern: '/groups/{groupId}/events', params: { groupId: id } };
    if (length === 5 && subId !== undefined && subId !== '') {
      return {
        name: 'getProjectEvent',
        pattern: '/groups/{groupId}/events/{eventId}',
        params: { groupId: id, eventId: subId },
      };
    }
    return undefined;
  }
  if (
    collection === 'groups' &&
    sub === 'alertConfigs' &&
    length === 5 &&
    subId !== undefined &&
    subId !== ''
  ) {
    return {
      name: 'getAlertConfig',
      pattern: '/groups/{groupId}/alertConfigs/{alertConfigId}',
      params: { groupId: id, alertConfigId: subId },
    };
  }
  if (collection === 'groups' && sub === 'alertConfigs' && length === 4) {
    return { name: 'listAlertConfigs', pattern: '/groups/{groupId}/alertConfigs', params: { groupId: id } };
  }
  if (collection === 'groups' && sub === 'integrations') {
    if (length === 4) {
      return { name: 'listIntegrations', pattern: '/groups/{groupId}/integrations', params: { groupId: id } };
    }
    if (length === 5 && subId !== undefined && subId !== '') {
      return {
        name: 'getIntegration',
        pattern: '/groups/{groupId}/integrations/{integrationType}',
        params: { groupId: id, integrationType: subId },
      };
    }
    return undefined;
  }
  if (collection === 'groups' && sub === 'clusters' && length === 4) {
    return { name: 'listClusters', pattern: '/groups/{groupId}/clusters', params: { groupId: id } };
  }
  if (
    collection === 'groups' &&
    sub === 'dbAccessHistory' &&
    length === 6 &&
    leaf !== undefined &&
    leaf !== ''
  ) {
    if (subId === 'clusters') {
      return {
        name: 'getClusterAccessHistory',
        pattern: '/groups/{groupId}/dbAccessHistory/clusters/{clusterName}',
        params: { groupId: id, clusterName: leaf },
      };
    }
    if (subId === 'processes') {
      return {
        name: 'getProcessAccessHistory',
        pattern: '/groups/{groupId}/dbAccessHistory/processes/{hostname}',
        params: { groupId: id, hostname: leaf },
      };
    }
    return undefined;
  }
  if (collection === 'groups' && sub === 'accessList' && length === 4) {
    return {
      name: 'listProjectAccessList',
      pattern: '/groups/{groupId}/accessList',
      params: { groupId: id },
    };
  }
  if (collection !== 'orgs') return undefined;
  if (sub === 'teams' && length === 5 && subId !== undefined && subId !== '') {
    return {
      name: 'getTeam',
      pattern: '/orgs/{orgId}/teams/{teamId}',
      params: { orgId: id, teamId: subId },
    };
  }
  if (sub === 'serviceAccounts') {
    if (length === 4) {
      return { name: 'listServiceAccounts', pattern: '/orgs/{orgId}/serviceAccounts', params: { orgId: id } };
    }
    if (length === 6 && leaf === 'accessList' && subId !== undefined && subId !== '') {
      return {
        name: 'listServiceAccountAccessList',
        pattern: '/orgs/{orgId}/serviceAccounts/{clientId}/accessList',
        params: { orgId: id, clientId: subId },
      };
    }
    return undefined;
  }
  if (sub === 'events') {
    if (length === 4)
      return { name: 'listOrgEvents', pattern: '/orgs/{orgId}/events', params: { orgId: id } };
    if (length === 5 && subId !== undefined && subId !== '') {
      return {
        name: 'getOrgEvent',
        pattern: '/orgs/{orgId}/events/{eventId}',
        params: { orgId: id, eventId: subId },
      };
    }
    return undefined;
  }
  if (sub === 'groups' && length === 4) {
    return { name: 'listOrgProjects', pattern: '/orgs/{orgId}/groups', params: { orgId: id } };
  }
  if (sub === 'apiKeys') {
    if (length === 4) return { name: 'listApiKeys', pattern: '/orgs/{orgId}/apiKeys', params: { orgId: id } };
    if (length === 6 && leaf === 'accessList' && subId !== undefined && subId !== '') {
      return {
        name: 'listAccessList',
        pattern: '/orgs/{orgId}/apiKeys/{apiUserId}/accessList',
        params: { orgId: id, apiUserId: subId },
      };
    }
  }
  return undefined;
}
