import type { StoredEvent } from './event-log.js';

/** The `_t` (internal type) of a raw document, by event type prefix; Atlas does not document it. */
const RAW_TYPES: ReadonlyArray<readonly [prefix: string, type: string]> = [
  ['API_KEY_', 'API_USER_EVENT'],
  ['SERVICE_ACCOUNT_', 'API_USER_EVENT'],
  ['ALERT_', 'ALERT_AUDIT'],
  ['DATA_EXPLORER', 'DATA_EXPLORER_ACCESSED'],
  ['OUTSIDE_METRIC_THRESHOLD', 'HOST_METRIC'],
  ['INSIDE_METRIC_THRESHOLD', 'HOST_METRIC'],
  ['HOST_', 'HOST'],
  ['AUTOMATION_CONFIG_', 'AUTOMATION_CONFIG'],
  ['TEAM_', 'TEAM_AUDIT'],
  ['JOINED_', 'USER_AUDIT'],
  ['INVITED_', 'USER_AUDIT'],
  ['REMOVED_FROM_', 'USER_AUDIT'],
  ['USER_', 'USER_AUDIT'],
  ['GROUP_', 'GROUP_AUDIT'],
  ['ORG_', 'ORG_AUDIT'],
];

/**
 * The `raw` document of an event when `includeRaw=true`: the one stored with the event, or one
 * built in the shape Atlas uses (`_t`, `cid`, `cre`, `description`, `gn`, `id`, `orgId`, `orgName`,
 * `severity`). Atlas does not document its content, so clients must not depend on it.
 *
 * @example
 * ```ts
 * rawDocument(event, { orgName: 'Acme', projectName: 'payments-prod' });
 * ```
 */
export function rawDocument(
  event: StoredEvent,
  names: { orgName: string | undefined; projectName: string | undefined },
): Readonly<Record<string, unknown>> {
  if (event.raw !== undefined) return event.raw;
  const type = RAW_TYPES.find(([prefix]) => event.eventTypeName.startsWith(prefix))?.[1] ?? 'NDS_AUDIT';
  const words = event.eventTypeName.toLowerCase().split('_').join(' ');
  return {
    _t: type,
    ...(event.body.groupId === undefined ? {} : { cid: event.body.groupId }),
    cre: event.body.created,
    description: `${words.charAt(0).toUpperCase()}${words.slice(1)}`,
    ...(names.projectName === undefined ? {} : { gn: names.projectName }),
    id: event.id,
    orgId: event.body.orgId,
    ...(names.orgName === undefined ? {} : { orgName: names.orgName }),
    severity: event.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD' ? 'WARNING' : 'INFO',
  };
}
