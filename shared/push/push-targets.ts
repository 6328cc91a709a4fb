import { DEFAULT_CONNECTION } from '../poll/connections.js';
import { orgSource, projectSource } from '../poll/poll-source.js';
import type { TickSource } from '../poll/tick-sources.js';
import type { PushedAlert } from './atlas-alert.js';
import type { PushConnection } from './push-settings.js';

/**
 * The source a pushed alert says to poll now, through the connection whose webhook it came to, or
 * `undefined` when that connection does not poll it:
 *
 * - a project's alert (`groupId`): that project's events, when the project is in the connection's
 *   `sources.projectIds`, or when the connection polls every project of the alert's organization
 *   (`allProjectsOfOrgs`, the organization in `sources.orgIds`; the worker checks the project
 *   against Atlas's list before it polls, as it does for every message);
 * - an organization's alert (no `groupId`): the organization's events, when it is in `sources.orgIds`.
 *
 * @example
 * ```ts
 * pushedSource(connection, { id, groupId: '5f4e…', updated, updatedAt })?.name; // 'project:5f4e…'
 * ```
 */
export function pushedSource(
  connection: Pick<PushConnection, 'name' | 'sources'>,
  alert: Pick<PushedAlert, 'groupId' | 'orgId'>,
): TickSource | undefined {
  const { sources } = connection;
  const named = connection.name === DEFAULT_CONNECTION ? {} : { connection: connection.name };
  const orgPolled = alert.orgId !== undefined && sources.orgIds.includes(alert.orgId);
  if (alert.groupId !== undefined) {
    const org = alert.orgId === undefined ? {} : { orgId: alert.orgId };
    if (sources.projectIds.includes(alert.groupId)) return { ...projectSource(alert.groupId), ...named };
    if (sources.allProjectsOfOrgs && orgPolled) return { ...projectSource(alert.groupId), ...org, ...named };
    return undefined;
  }
  if (orgPolled && alert.orgId !== undefined) {
    return { ...orgSource(alert.orgId), orgId: alert.orgId, ...named };
  }
  return undefined;
}
