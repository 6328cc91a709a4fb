/**
 * The least Atlas role each call of the poller needs, as the `x-rolesRequirements` of the GET
 * operations in the official v2 OpenAPI document say (the v1.0 and Ops Manager APIs ask the same):
 * what `check` probes, and what its failures tell the user to grant.
 */
export const ATLAS_ROLE_REQUIREMENTS = {
  /** Org events: `GET /orgs/{orgId}/events`. */
  orgEvents: { role: 'Organization Member', call: 'GET /orgs/{orgId}/events', purpose: 'org events' },
  /** Inventory: `GET /orgs/{orgId}/apiKeys`. */
  apiKeys: { role: 'Organization Member', call: 'GET /orgs/{orgId}/apiKeys', purpose: 'API key inventory' },
  /** Inventory: `GET /orgs/{orgId}/apiKeys/{apiUserId}/accessList`. */
  apiKeyAccessList: {
    role: 'Organization Member',
    call: 'GET /orgs/{orgId}/apiKeys/{apiUserId}/accessList',
    purpose: 'API key access lists',
  },
  /** Inventory (Atlas v2): `GET /orgs/{orgId}/serviceAccounts`. */
  serviceAccounts: {
    role: 'Organization Read Only',
    call: 'GET /orgs/{orgId}/serviceAccounts',
    purpose: 'service account inventory',
  },
  /** The organization's name in alerts: `GET /orgs/{orgId}`. */
  orgName: {
    role: 'Organization Member',
    call: 'GET /orgs/{orgId}',
    purpose: 'organization names in alerts',
  },
  /** Project discovery (`allProjectsOfOrgs`): `GET /orgs/{orgId}/groups`. */
  orgProjects: {
    role: 'Organization Member',
    call: 'GET /orgs/{orgId}/groups',
    purpose: 'project discovery',
  },
  /** Project events: `GET /groups/{groupId}/events`. */
  projectEvents: {
    role: 'Project Read Only',
    call: 'GET /groups/{groupId}/events',
    purpose: 'project events',
  },
  /** The project's name in alerts: `GET /groups/{groupId}`. */
  projectName: {
    role: 'Project Read Only',
    call: 'GET /groups/{groupId}',
    purpose: 'project names in alerts',
  },
  /** Inventory: `GET /groups/{groupId}/accessList`. */
  projectAccessList: {
    role: 'Project Read Only',
    call: 'GET /groups/{groupId}/accessList',
    purpose: 'project IP access list inventory',
  },
  /**
   * Access history (`sources.accessHistory`): `GET /groups/{groupId}/clusters` (Project Read Only),
   * then `GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}`, which no read-only role
   * grants.
   */
  accessHistory: {
    role: 'Project Cluster Log Viewer',
    call: 'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}',
    purpose: 'database access history',
    grant: 'Project Cluster Log Viewer (or Project Database Access Admin)',
    why: 'Project Read Only and Organization Read Only do not include it; or turn sources.accessHistory off',
  },
} as const satisfies Record<string, AtlasRoleRequirement>;

/** What one call needs, and how `check` words its failure. */
export interface AtlasRoleRequirement {
  /** The least role that answers the call. */
  role: string;
  /** The call, with its placeholders. */
  call: string;
  /** What the poller makes the call for: the end of the check's subject. */
  purpose: string;
  /** What to grant when it is refused, where `<role> or higher` would mislead: roles that are not ranked. */
  grant?: string;
  /** Said after what to grant: why the roles the other calls need do not do. */
  why?: string;
}

/** The name of one of {@link ATLAS_ROLE_REQUIREMENTS}. */
export type AtlasCallName = keyof typeof ATLAS_ROLE_REQUIREMENTS;
