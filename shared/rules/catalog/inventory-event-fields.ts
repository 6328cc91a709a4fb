import {
  buildInventoryEvent,
  INVENTORY_EVENT_TYPES,
  INVENTORY_OPENING_EVENT_TYPES,
  type InventoryChange,
  type InventoryEventType,
} from '../inventory-events.js';

/**
 * The field paths of the synthetic `INVENTORY_*` events, read off events built by the same code the
 * poller runs, from one change of each type with every optional part filled in (several for a type
 * whose fields depend on what it is about: a resolved finding of a key, a service account or a
 * project). A new inventory event type needs a sample here: until it has one, generating the
 * catalog fails and says so.
 */

const apiKey = {
  id: '5f0000000000000000000001',
  publicKey: 'abcdefgh',
  desc: 'sample key',
  roles: [{ roleName: 'ORG_OWNER', orgId: '5f0000000000000000000002' }],
};
const rolesBefore = [{ roleName: 'GROUP_READ_ONLY', groupId: '5f0000000000000000000003' }];
const entry = { cidrBlock: '192.0.2.0/24', ipAddress: '192.0.2.1', created: '2024-03-18T14:41:10Z' };
const serviceAccount = {
  clientId: 'mdb_sa_id_5f0000000000000000000004',
  name: 'sample account',
  description: 'sample service account',
  createdAt: '2024-03-18T14:41:10Z',
  roles: [{ roleName: 'ORG_OWNER', orgId: '5f0000000000000000000002' }],
};
const projectEntry = {
  cidrBlock: '192.0.2.0/24',
  ipAddress: '192.0.2.1',
  awsSecurityGroup: 'sg-0123456789abcdef0',
  comment: 'sample entry',
};
const groupId = '5f0000000000000000000003';

const SAMPLES: Readonly<Record<InventoryEventType, InventoryChange | readonly InventoryChange[]>> = {
  INVENTORY_API_KEY_ADDED: { type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey },
  INVENTORY_API_KEY_REMOVED: { type: INVENTORY_EVENT_TYPES.apiKeyRemoved, apiKey },
  INVENTORY_API_KEY_ROLES_CHANGED: { type: INVENTORY_EVENT_TYPES.apiKeyRolesChanged, apiKey, rolesBefore },
  INVENTORY_API_KEY_OWNER_ROLE_GRANTED: {
    type: INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted,
    apiKey,
    rolesBefore,
  },
  INVENTORY_ACCESS_LIST_ENTRY_ADDED: { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry },
  INVENTORY_ACCESS_LIST_ENTRY_REMOVED: { type: INVENTORY_EVENT_TYPES.accessListEntryRemoved, apiKey, entry },
  INVENTORY_API_KEY_WITHOUT_ACCESS_LIST: { type: INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList, apiKey },
  INVENTORY_SERVICE_ACCOUNT_ADDED: { type: INVENTORY_EVENT_TYPES.serviceAccountAdded, serviceAccount },
  INVENTORY_SERVICE_ACCOUNT_REMOVED: { type: INVENTORY_EVENT_TYPES.serviceAccountRemoved, serviceAccount },
  INVENTORY_SERVICE_ACCOUNT_ROLES_CHANGED: {
    type: INVENTORY_EVENT_TYPES.serviceAccountRolesChanged,
    serviceAccount,
    rolesBefore,
  },
  INVENTORY_SERVICE_ACCOUNT_OWNER_ROLE_GRANTED: {
    type: INVENTORY_EVENT_TYPES.serviceAccountOwnerRoleGranted,
    serviceAccount,
    rolesBefore,
  },
  INVENTORY_SERVICE_ACCOUNT_WITHOUT_ACCESS_LIST: {
    type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList,
    serviceAccount,
  },
  INVENTORY_SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED: {
    type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
    serviceAccount,
    entry,
  },
  INVENTORY_SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_REMOVED: {
    type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryRemoved,
    serviceAccount,
    entry,
  },
  INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED: {
    type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded,
    groupId,
    entry: projectEntry,
  },
  INVENTORY_PROJECT_ACCESS_LIST_ENTRY_REMOVED: {
    type: INVENTORY_EVENT_TYPES.projectAccessListEntryRemoved,
    groupId,
    entry: projectEntry,
  },
  INVENTORY_FINDING_RESOLVED: [
    {
      type: INVENTORY_EVENT_TYPES.findingResolved,
      postureFinding:
        'org/5f0000000000000000000002/api-key/5f0000000000000000000001/access-list/192.0.2.0%2F24',
      opening: { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry },
      resolution: 'the entry was removed from the access list',
      firstFoundAt: 0,
    },
    {
      type: INVENTORY_EVENT_TYPES.findingResolved,
      postureFinding:
        'org/5f0000000000000000000002/service-account/mdb_sa_id_5f0000000000000000000004/owner-without-access-list',
      opening: { type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList, serviceAccount },
      resolution: 'an access list was added',
      firstFoundAt: 0,
    },
    {
      type: INVENTORY_EVENT_TYPES.findingResolved,
      postureFinding: 'project/5f0000000000000000000003/access-list/192.0.2.0%2F24',
      opening: { type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded, groupId, entry: projectEntry },
      resolution: "the entry was removed from the project's IP access list",
      firstFoundAt: 0,
    },
  ],
};

/**
 * Every inventory event type with the field paths its events carry, sorted.
 *
 * @throws {Error} when an inventory event type has no sample change here.
 * @example
 * ```ts
 * inventoryEventFields().INVENTORY_API_KEY_ADDED; // ['apiKeyDescription', 'apiKeyId', ..., 'roles[].roleName', ...]
 * ```
 */
export function inventoryEventFields(): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const type of Object.values(INVENTORY_EVENT_TYPES).sort()) {
    const sample = SAMPLES[type];
    if (sample === undefined) {
      throw new Error(
        `inventory event type ${type} has no sample in shared/rules/catalog/inventory-event-fields.ts: add one with every optional field`,
      );
    }
    const paths = new Set<string>();
    for (const change of Array.isArray(sample) ? sample : [sample]) {
      const about = 'opening' in change ? change.opening : change;
      const event = buildInventoryEvent(change, {
        ...('groupId' in about ? { groupId: about.groupId } : { orgId: '5f0000000000000000000002' }),
        snapshotAt: 0,
        previousSnapshotAt: 0,
        // Every optional field: `preExisting` is set on baseline findings, `postureFinding` on
        // the changes that open a posture problem.
        preExisting: true,
        ...(opens(type)
          ? { postureFinding: 'org/5f0000000000000000000002/api-key/5f0000000000000000000001' }
          : {}),
      });
      collectPaths(event, '', paths);
    }
    result[type] = [...paths].sort();
  }
  return result;
}

function opens(type: InventoryEventType): boolean {
  return (INVENTORY_OPENING_EVENT_TYPES as readonly string[]).includes(type);
}

function collectPaths(value: unknown, prefix: string, paths: Set<string>): void {
  if (Array.isArray(value)) {
    const element = `${prefix}[]`;
    paths.add(element);
    for (const item of value) collectPaths(item, element, paths);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    paths.add(path);
    collectPaths(child, path, paths);
  }
}
