import { fileURLToPath } from 'node:url';
import type { AtlasEvent } from '../../../shared/atlas/types.js';
import type { Alert } from '../../../shared/notify/alert.js';
import type { AlertContext } from '../../../shared/notify/alert-context.js';
import { FINDING_RESOLVED_EVENT_TYPE, POSTURE_FINDING_FIELD } from '../../../shared/notify/alert-finding.js';
import {
  buildInventoryEvent,
  createRuleEngine,
  INVENTORY_EVENT_TYPES,
  loadRulePack,
  MemoryCounterStore,
} from '../../../shared/rules/index.js';
import { INVENTORY_CONTEXT, makeAlert, ORG_ID, PROJECT_ID } from './alerts.js';

/**
 * Alerts about posture findings as the poller raises them: inventory events built by the poller's own
 * `buildInventoryEvent`, each naming its posture finding in `postureFinding` as the snapshot diff does,
 * evaluated by the built-in rules. The resolution of a finding is an `INVENTORY_FINDING_RESOLVED` event
 * of a later snapshot, raised here as an alert of its own rule.
 */

const RULES_DIRECTORY = fileURLToPath(new URL('../../../rules/', import.meta.url));

/** The posture findings the alerts below are about. */
export const POSTURE = {
  keyOpenToInternet: `org/${ORG_ID}/api-key/64b5cc01f1a3d40012ab3f01/access-list/0.0.0.0%2F0`,
  ownerWithoutAccessList: `org/${ORG_ID}/service-account/mdb_sa_id_64b5cc01f1a3d400/no-access-list`,
  projectOpenToInternet: `project/${PROJECT_ID}/access-list/0.0.0.0%2F0`,
} as const;

/** The snapshots a posture finding's life is seen in: opened, resolved, reopened. */
export const SNAPSHOTS = {
  first: Date.parse('2026-11-22T06:10:00Z'),
  second: Date.parse('2026-11-22T07:10:00Z'),
  third: Date.parse('2026-11-22T08:10:00Z'),
} as const;

const apiKey = {
  id: '64b5cc01f1a3d40012ab3f01',
  publicKey: 'qkzvbgyt',
  desc: 'CI automation (owner)',
  roles: [{ orgId: ORG_ID, roleName: 'ORG_OWNER' }],
};
const serviceAccount = {
  clientId: 'mdb_sa_id_64b5cc01f1a3d400',
  name: 'terraform',
  description: 'infrastructure pipeline',
  createdAt: '2025-01-10T09:00:00Z',
  roles: [{ orgId: ORG_ID, roleName: 'ORG_OWNER' }],
};

function withFinding(event: AtlasEvent, finding: string): AtlasEvent {
  return { ...event, [POSTURE_FINDING_FIELD]: finding };
}

/**
 * The inventory events of one snapshot that open the three posture findings (a baseline for the first
 * snapshot, changes after it).
 */
export function openingEvents(snapshotAt: number, previousSnapshotAt?: number): AtlasEvent[] {
  const context = {
    orgId: ORG_ID,
    snapshotAt,
    ...(previousSnapshotAt === undefined ? { preExisting: true } : { previousSnapshotAt }),
  };
  return [
    withFinding(
      buildInventoryEvent(
        {
          type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
          apiKey,
          entry: { cidrBlock: '0.0.0.0/0', created: '2024-03-18T14:41:10Z' },
        },
        context,
      ),
      POSTURE.keyOpenToInternet,
    ),
    withFinding(
      buildInventoryEvent(
        { type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList, serviceAccount },
        context,
      ),
      POSTURE.ownerWithoutAccessList,
    ),
    withFinding(
      buildInventoryEvent(
        {
          type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded,
          groupId: PROJECT_ID,
          entry: { cidrBlock: '0.0.0.0/0', comment: 'temporary' },
        },
        {
          groupId: PROJECT_ID,
          snapshotAt,
          ...(previousSnapshotAt === undefined ? { preExisting: true } : { previousSnapshotAt }),
        },
      ),
      POSTURE.projectOpenToInternet,
    ),
  ];
}

/** What the poller's describer knows of these events: the organization, the project, the key. */
async function describe(event: AtlasEvent): Promise<AlertContext> {
  if (typeof event.groupId === 'string') {
    return { orgId: ORG_ID, orgName: 'Acme Corp', projectId: event.groupId, projectName: 'payments-prod' };
  }
  if (typeof event.serviceAccountClientId === 'string') {
    return {
      orgId: ORG_ID,
      orgName: 'Acme Corp',
      credential: {
        kind: 'service-account',
        id: serviceAccount.clientId,
        name: serviceAccount.name,
        description: serviceAccount.description,
        roles: ['ORG_OWNER in Acme Corp (5b47…6a3)'],
        snapshotTakenAt: Number(Date.parse(String(event.created))),
      },
    };
  }
  return INVENTORY_CONTEXT;
}

/**
 * The built-in rules' alerts on the events that open the posture findings at `snapshotAt`: at least
 * one alert per finding.
 *
 * @example
 * ```ts
 * const alerts = await postureOpeningAlerts(SNAPSHOTS.first);
 * ```
 */
export async function postureOpeningAlerts(
  snapshotAt: number,
  previousSnapshotAt?: number,
): Promise<Alert[]> {
  const pack = await loadRulePack({
    paths: ['builtin'],
    builtinDirectory: RULES_DIRECTORY,
    version: '0.1.0',
  });
  const engine = createRuleEngine({
    pack,
    counters: new MemoryCounterStore(),
    firstSeenLearning: false,
    clock: { now: () => snapshotAt + 60_000, sleep: async () => {} },
  });
  return engine.evaluate(openingEvents(snapshotAt, previousSnapshotAt), { describe });
}

/**
 * The alert saying that a posture finding is gone, as a snapshot at `snapshotAt` raises it.
 *
 * @example
 * ```ts
 * const resolved = postureResolvedAlert(POSTURE.keyOpenToInternet, SNAPSHOTS.second);
 * ```
 */
export function postureResolvedAlert(finding: string, snapshotAt: number): Alert {
  const event: AtlasEvent = {
    id: `inv-resolved-${snapshotAt}`,
    created: new Date(snapshotAt).toISOString(),
    eventTypeName: FINDING_RESOLVED_EVENT_TYPE,
    source: 'inventory',
    orgId: ORG_ID,
    [POSTURE_FINDING_FIELD]: finding,
  };
  return makeAlert({
    ruleId: 'inventory-finding-resolved',
    ruleName: 'Posture finding resolved',
    severity: 'low',
    title: 'Resolved: API key qkzvbgyt no longer usable from 0.0.0.0/0',
    summary: 'The latest inventory no longer shows the problem this finding reported.',
    tags: ['inventory'],
    events: [event],
    fingerprint: `inventory-finding-resolved:${event.id}`,
    raisedAt: snapshotAt + 60_000,
    context: INVENTORY_CONTEXT,
  });
}
