import {
  buildInventoryEvent,
  INVENTORY_EVENT_TYPES,
  type InventoryChange,
  type InventoryEventType,
} from '../inventory-events.js';

/**
 * The field paths of the synthetic `INVENTORY_*` events, read off events built by the same code the
 * poller runs, from one change of each type with every optional part filled in. A new inventory
 * event type needs a sample here: until it has one, generating the catalog fails and says so.
 */

const apiKey = {
  id: '5f0000000000000000000001',
  publicKey: 'abcdefgh',
  desc: 'sample key',
  roles: [{ roleName: 'ORG_OWNER', orgId: '5f0000000000000000000002' }],
};
const rolesBefore = [{ roleName: 'GROUP_READ_ONLY', groupId: '5f0000000000000000000003' }];
const entry = { cidrBlock: '192.0.2.0/24', ipAddress: '192.0.2.1' };

const SAMPLES: Readonly<Record<InventoryEventType, InventoryChange>> = {
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
    const change = SAMPLES[type];
    if (change === undefined) {
      throw new Error(
        `inventory event type ${type} has no sample in shared/rules/catalog/inventory-event-fields.ts: add one with every optional field`,
      );
    }
    const event = buildInventoryEvent(change, {
      orgId: '5f0000000000000000000002',
      snapshotAt: 0,
      previousSnapshotAt: 0,
    });
    const paths = new Set<string>();
    collectPaths(event, '', paths);
    result[type] = [...paths].sort();
  }
  return result;
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
