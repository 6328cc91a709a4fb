import type { SeedRole } from './seed-schema.js';

/**
 * Organization roles that include read access to every project of the organization: Organization
 * Owner (full access) and Organization Read Only ("read-only access to everything in the
 * organization, including all projects").
 */
const ORG_ROLES_WITH_PROJECT_READ = new Set(['ORG_OWNER', 'ORG_READ_ONLY']);

/**
 * Whether the roles allow reading a project's events (Project Read Only or higher). Every Atlas
 * project role (`GROUP_*`) includes Project Read Only, so any role on the project qualifies, as does
 * an organization role that implies access to all its projects.
 *
 * @example
 * ```ts
 * canReadProject([{ orgId: 'o1', roleName: 'ORG_READ_ONLY' }], { id: 'p1', orgId: 'o1' }); // true
 * ```
 */
export function canReadProject(roles: readonly SeedRole[], project: { id: string; orgId: string }): boolean {
  return roles.some((role) =>
    'groupId' in role
      ? role.groupId === project.id
      : role.orgId === project.orgId && ORG_ROLES_WITH_PROJECT_READ.has(role.roleName),
  );
}

/**
 * Whether the roles include Organization Member or higher on the organization. Every Atlas
 * organization role (`ORG_*`: Owner, Project Creator, Billing Admin, Billing Viewer, Read Only,
 * Member) includes Organization Member; project roles alone do not.
 *
 * @example
 * ```ts
 * isOrgMember([{ groupId: 'p1', roleName: 'GROUP_OWNER' }], 'o1'); // false
 * ```
 */
export function isOrgMember(roles: readonly SeedRole[], orgId: string): boolean {
  return roles.some((role) => 'orgId' in role && role.orgId === orgId);
}

/**
 * Project roles that may read a cluster's database access history. The OpenAPI document names
 * Project Cluster Log Viewer and Project Database Access Admin (`x-rolesRequirements`); older Atlas
 * documentation named Project Monitoring Admin; Project Owner includes every project role.
 */
const ACCESS_HISTORY_ROLES = new Set([
  'GROUP_OWNER',
  'GROUP_CLUSTER_LOG_VIEWER',
  'GROUP_DATABASE_ACCESS_ADMIN',
  'GROUP_MONITORING_ADMIN',
]);

/**
 * Whether the roles allow reading a project's database access history: one of the project roles
 * above, or Organization Owner (which is Project Owner on every project of the organization).
 * Project Read Only and Organization Read Only do not.
 *
 * @example
 * ```ts
 * canReadAccessHistory([{ orgId: 'o1', roleName: 'ORG_READ_ONLY' }], { id: 'p1', orgId: 'o1' }); // false
 * ```
 */
export function canReadAccessHistory(
  roles: readonly SeedRole[],
  project: { id: string; orgId: string },
): boolean {
  return roles.some((role) =>
    'groupId' in role
      ? role.groupId === project.id && ACCESS_HISTORY_ROLES.has(role.roleName)
      : role.orgId === project.orgId && role.roleName === 'ORG_OWNER',
  );
}

/**
 * Project roles that may write a project's alert configurations: Project Alerts Manager, as the
 * OpenAPI document names it (`x-rolesRequirements` of `createGroupAlertConfig`), and Project Owner,
 * which includes every project role.
 */
const ALERT_CONFIG_WRITE_ROLES = new Set(['GROUP_OWNER', 'GROUP_ALERTS_MANAGER']);

/**
 * Whether the roles allow creating, changing and deleting a project's alert configurations: Project
 * Alerts Manager or Project Owner on the project, or Organization Owner.
 *
 * @example
 * ```ts
 * canWriteAlertConfigs([{ groupId: 'p1', roleName: 'GROUP_READ_ONLY' }], { id: 'p1', orgId: 'o1' }); // false
 * ```
 */
export function canWriteAlertConfigs(
  roles: readonly SeedRole[],
  project: { id: string; orgId: string },
): boolean {
  return roles.some((role) =>
    'groupId' in role
      ? role.groupId === project.id && ALERT_CONFIG_WRITE_ROLES.has(role.roleName)
      : role.orgId === project.orgId && role.roleName === 'ORG_OWNER',
  );
}

/**
 * Whether the roles allow creating, changing and deleting a project's third-party integrations:
 * Project Owner on the project (the OpenAPI document's `x-rolesRequirements`), or Organization Owner.
 *
 * @example
 * ```ts
 * isProjectOwner([{ orgId: 'o1', roleName: 'ORG_OWNER' }], { id: 'p1', orgId: 'o1' }); // true
 * ```
 */
export function isProjectOwner(roles: readonly SeedRole[], project: { id: string; orgId: string }): boolean {
  return roles.some((role) =>
    'groupId' in role
      ? role.groupId === project.id && role.roleName === 'GROUP_OWNER'
      : role.orgId === project.orgId && role.roleName === 'ORG_OWNER',
  );
}
