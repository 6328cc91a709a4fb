import type { AtlasAccessListEntry, AtlasApiKey } from '../atlas/types.js';
import {
  INVENTORY_EVENT_TYPES,
  type InventoryApiKey,
  type InventoryChange,
  ownerRolesGranted,
} from '../rules/inventory-events.js';
import type { InventoryApiKeyEntry, InventorySnapshot } from '../state/inventory-snapshot.js';

/**
 * Every difference between two snapshots of an organization's API keys, as the changes the
 * inventory events are built from, in a stable order (by key id, then kind, then entry):
 *
 * - a key only in `current`: `INVENTORY_API_KEY_ADDED`, `INVENTORY_API_KEY_OWNER_ROLE_GRANTED` when it
 *   holds an owner role, and `INVENTORY_ACCESS_LIST_ENTRY_ADDED` for each entry of its access list
 *   (a new key usable from `0.0.0.0/0` is as dangerous as an old key opened to it);
 * - a key only in `previous`: `INVENTORY_API_KEY_REMOVED` (its entries went with it);
 * - a key in both: `INVENTORY_API_KEY_ROLES_CHANGED` when its set of roles differs (and
 *   `INVENTORY_API_KEY_OWNER_ROLE_GRANTED` when an owner role is among the new ones), and an entry
 *   added or removed for each difference of its access list.
 *
 * Roles compare by name and scope, entries by CIDR block (a bare IP address as its /32 or /128),
 * so an order change or a `count`/`lastUsed` update is not a difference.
 *
 * @example
 * ```ts
 * const changes = diffInventory({ previous, current });
 * const events = changes.map((change) =>
 *   buildInventoryEvent(change, { orgId, snapshotAt: current.takenAt, previousSnapshotAt: previous.takenAt }));
 * ```
 */
export function diffInventory(options: {
  previous: InventorySnapshot;
  current: InventorySnapshot;
}): InventoryChange[] {
  const before = byKeyId(options.previous.apiKeys);
  const after = byKeyId(options.current.apiKeys);
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: InventoryChange[] = [];
  for (const id of ids) {
    const old = before.get(id);
    const now = after.get(id);
    if (now !== undefined && old === undefined) {
      const apiKey = inventoryKey(now.apiKey);
      changes.push({ type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey });
      if (ownerRolesGranted([], now.apiKey.roles).length > 0) {
        changes.push({ type: INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted, apiKey, rolesBefore: [] });
      }
      for (const entry of entriesOf(now.accessList).values()) {
        changes.push({ type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry });
      }
      continue;
    }
    if (old !== undefined && now === undefined) {
      changes.push({ type: INVENTORY_EVENT_TYPES.apiKeyRemoved, apiKey: inventoryKey(old.apiKey) });
      continue;
    }
    if (old === undefined || now === undefined) continue;
    const apiKey = inventoryKey(now.apiKey);
    if (!sameRoles(old.apiKey.roles, now.apiKey.roles)) {
      const rolesBefore = inventoryKey(old.apiKey).roles;
      changes.push({ type: INVENTORY_EVENT_TYPES.apiKeyRolesChanged, apiKey, rolesBefore });
      if (ownerRolesGranted(old.apiKey.roles, now.apiKey.roles).length > 0) {
        changes.push({ type: INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted, apiKey, rolesBefore });
      }
    }
    const oldEntries = entriesOf(old.accessList);
    const newEntries = entriesOf(now.accessList);
    for (const [key, entry] of newEntries) {
      if (!oldEntries.has(key))
        changes.push({ type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry });
    }
    for (const [key, entry] of oldEntries) {
      if (!newEntries.has(key)) {
        changes.push({ type: INVENTORY_EVENT_TYPES.accessListEntryRemoved, apiKey, entry });
      }
    }
  }
  return changes;
}

/**
 * What an inventory event may say about a key: id, public key, description and roles, never its
 * private key.
 *
 * @example
 * ```ts
 * inventoryKey({ id: 'k1', publicKey: 'abcdefgh', privateKey: '****1234' }); // { id: 'k1', publicKey: 'abcdefgh' }
 * ```
 */
export function inventoryKey(apiKey: AtlasApiKey): InventoryApiKey {
  const key: InventoryApiKey = { id: apiKey.id };
  if (typeof apiKey.publicKey === 'string') key.publicKey = apiKey.publicKey;
  if (typeof apiKey.desc === 'string') key.desc = apiKey.desc;
  if (Array.isArray(apiKey.roles)) {
    key.roles = apiKey.roles.map((role) => ({
      ...(typeof role.roleName === 'string' ? { roleName: role.roleName } : {}),
      ...(typeof role.orgId === 'string' ? { orgId: role.orgId } : {}),
      ...(typeof role.groupId === 'string' ? { groupId: role.groupId } : {}),
    }));
  }
  return key;
}

function byKeyId(entries: readonly InventoryApiKeyEntry[]): Map<string, InventoryApiKeyEntry> {
  return new Map(entries.map((entry) => [entry.apiKey.id, entry]));
}

function sameRoles(a: AtlasApiKey['roles'], b: AtlasApiKey['roles']): boolean {
  const left = roleKeys(a);
  const right = roleKeys(b);
  return left.size === right.size && [...left].every((key) => right.has(key));
}

function roleKeys(roles: AtlasApiKey['roles']): Set<string> {
  const keys = new Set<string>();
  for (const role of roles ?? []) {
    if (typeof role.roleName !== 'string' || role.roleName === '') continue;
    keys.add(`${role.roleName}@${role.orgId ?? ''}/${role.groupId ?? ''}`);
  }
  return keys;
}

/** Access-list entries by their CIDR block, in the order listed. */
function entriesOf(
  entries: readonly AtlasAccessListEntry[],
): Map<string, Pick<AtlasAccessListEntry, 'cidrBlock' | 'ipAddress'>> {
  const map = new Map<string, Pick<AtlasAccessListEntry, 'cidrBlock' | 'ipAddress'>>();
  for (const entry of entries) {
    const key = entryKey(entry);
    if (key === undefined || map.has(key)) continue;
    map.set(key, {
      ...(typeof entry.cidrBlock === 'string' ? { cidrBlock: entry.cidrBlock } : {}),
      ...(typeof entry.ipAddress === 'string' ? { ipAddress: entry.ipAddress } : {}),
    });
  }
  return map;
}

function entryKey(entry: AtlasAccessListEntry): string | undefined {
  const cidr = typeof entry.cidrBlock === 'string' ? entry.cidrBlock.trim().toLowerCase() : '';
  if (cidr !== '') return cidr;
  const ip = typeof entry.ipAddress === 'string' ? entry.ipAddress.trim().toLowerCase() : '';
  if (ip === '') return undefined;
  return `${ip}/${ip.includes(':') ? 128 : 32}`;
}
