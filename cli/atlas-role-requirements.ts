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
} as const satisfies Record<string, { role: string; call: string; purpose: string }>;

/** The name of one of {@link ATLAS_ROLE_REQUIREMENTS}. */
export type AtlasCallName = keyof typeof ATLAS_ROLE_REQUIREMENTS;
