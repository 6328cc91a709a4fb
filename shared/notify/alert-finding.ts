import type { Alert } from './alert.js';

/**
 * The event field that names the posture finding an inventory event opens or resolves: a stable id
 * of the problem (an entry open to the internet, an owner credential with no access list), the same
 * for every alert about that problem over its whole life, so a finding reopened later is the same one.
 * Ids read as scope, subject and problem, at most 256 characters, such as
 * `org/<orgId>/api-key/<apiKeyId>/access-list/0.0.0.0%2F0` or
 * `project/<groupId>/access-list/0.0.0.0%2F0` (see `postureFindingId` in `shared/poll`).
 */
export const POSTURE_FINDING_FIELD = 'postureFinding';

/** The type of the synthetic event a snapshot raises when a posture problem an earlier one held is gone. */
export const FINDING_RESOLVED_EVENT_TYPE = 'INVENTORY_FINDING_RESOLVED';

/** Where an alert about a posture problem stands: still there (open), or gone (resolved). */
export interface AlertFinding {
  /** The problem's stable id (see {@link POSTURE_FINDING_FIELD}). */
  id: string;
  state: 'open' | 'resolved';
}

/**
 * The posture finding an alert is about, when one of its events names one: `resolved` when that event
 * is a {@link FINDING_RESOLVED_EVENT_TYPE}, else `open`. Alerts about anything else (an Atlas event, an
 * inventory change that opens no problem) have none: they are one-shot.
 *
 * @example
 * ```ts
 * alertFinding({ events: [{ id: 'e1', created: '…', eventTypeName: 'INVENTORY_FINDING_RESOLVED',
 *   postureFinding: 'org/5f…/api-key/abc/access-list/0.0.0.0%2F0' }] });
 * // { id: 'org/5f…/api-key/abc/access-list/0.0.0.0%2F0', state: 'resolved' }
 * ```
 */
export function alertFinding(alert: Pick<Alert, 'events'>): AlertFinding | undefined {
  for (const event of alert.events) {
    const id = (event as Record<string, unknown>)[POSTURE_FINDING_FIELD];
    if (typeof id === 'string' && id !== '') {
      return { id, state: event.eventTypeName === FINDING_RESOLVED_EVENT_TYPE ? 'resolved' : 'open' };
    }
  }
  return undefined;
}
