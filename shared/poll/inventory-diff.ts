import type { AtlasApiKey, AtlasServiceAccount } from '../atlas/types.js';
import {
  INVENTORY_EVENT_TYPES,
  type InventoryApiKey,
  type InventoryChange,
  type InventoryEntry,
  type InventoryServiceAccount,
  OWNER_ROLE_NAMES,
  ownerRolesGranted,
} from '../rules/inventory-events.js';
import type { InventorySnapshot } from '../state/inventory-snapshot.js';

/**
 * Every difference between two snapshots of an inventory, as the changes the inventory events are
 * built from, in a stable order (API keys by id, then service accounts by client id, then project
 * entries; within each by kind, then entry):
 *
 * - a key or service account only in `current`: `…_ADDED`, `…_OWNER_ROLE_GRANTED` when it holds an
 *   owner role, an entry added for each entry of its access list (a new key usable from `0.0.0.0/0` is
 *   as dangerous as an old key opened to it), and `…_WITHOUT_ACCESS_LIST` when it has none;
 * - a key or service account only in `previous`: `…_REMOVED` (its entries went with it);
 * - one in both: `…_ROLES_CHANGED` when its set of roles differs (and `…_OWNER_ROLE_GRANTED` when an
 *   owner role is among the new ones), an entry added or removed for each difference of its access
 *   list, and `…_WITHOUT_ACCESS_LIST` when its last entry went, or when it holds an owner role it did
 *   not hold before and has no access list (either way a posture problem opens: see
 *   `postureProblems`);
 * - a project access-list entry only in one of them: `INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED` or
 *   `…_REMOVED`.
 *
 * Service accounts and project entries are compared only when both snapshots hold them: a part one
 * of them did not read (a deployment without the resource, a snapshot stored before the part
 * existed) is not a difference. Roles compare by name and scope, entries by CIDR block (a bare IP
 * address as its /32 or /128, a security group by its id), so an order change or a usage counter
 * update is not a difference.
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
  const { previous, current } = options;
  const changes: InventoryChange[] = [];
  const before = new Map(previous.apiKeys.map((entry) => [entry.apiKey.id, entry]));
  const after = new Map(current.apiKeys.map((entry) => [entry.apiKey.id, entry]));
  for (const id of sortedIds(before, after)) {
    const old = before.get(id);
    const now = after.get(id);
    diffHolder(
      changes,
      old === undefined
        ? undefined
        : { subject: inventoryKey(old.apiKey), roles: old.apiKey.roles, accessList: old.accessList },
      now === undefined
        ? undefined
        : { subject: inventoryKey(now.apiKey), roles: now.apiKey.roles, accessList: now.accessList },
      API_KEY_TYPES,
    );
  }
  if (previous.serviceAccounts !== undefined && current.serviceAccounts !== undefined) {
    const accountsBefore = new Map(
      previous.serviceAccounts.map((entry) => [entry.serviceAccount.clientId, entry]),
    );
    const accountsAfter = new Map(
      current.serviceAccounts.map((entry) => [entry.serviceAccount.clientId, entry]),
    );
    for (const id of sortedIds(accountsBefore, accountsAfter)) {
      const old = accountsBefore.get(id);
      const now = accountsAfter.get(id);
      diffHolder(
        changes,
        old === undefined ? undefined : accountHolder(old.serviceAccount, old.accessList, current.orgId),
        now === undefined ? undefined : accountHolder(now.serviceAccount, now.accessList, current.orgId),
        SERVICE_ACCOUNT_TYPES,
      );
    }
  }
  const groupId = current.groupId;
  if (
    groupId !== undefined &&
    previous.projectAccessList !== undefined &&
    current.projectAccessList !== undefined
  ) {
    const oldEntries = entriesOf(previous.projectAccessList);
    const newEntries = entriesOf(current.projectAccessList);
    for (const [key, entry] of newEntries) {
      if (!oldEntries.has(key)) {
        changes.push({ type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded, groupId, entry });
      }
    }
    for (const [key, entry] of oldEntries) {
      if (!newEntries.has(key)) {
        changes.push({ type: INVENTORY_EVENT_TYPES.projectAccessListEntryRemoved, groupId, entry });
      }
    }
  }
  return changes;
}

/**
 * The service account as an inventory event may describe it: client id, name, description and its
 * organization roles (plain role names in the API) as roles on `orgId`.
 *
 * @example
 * ```ts
 * inventoryServiceAccount({ clientId: 'mdb_sa_id_…', roles: ['ORG_OWNER'] }, 'o1').roles; // [{ roleName: 'ORG_OWNER', orgId: 'o1' }]
 * ```
 */
export function inventoryServiceAccount(
  account: AtlasServiceAccount,
  orgId: string | undefined,
): InventoryServiceAccount {
  const result: InventoryServiceAccount = { clientId: account.clientId };
  if (typeof account.name === 'string') result.name = account.name;
  if (typeof account.description === 'string') result.description = account.description;
  if (typeof account.createdAt === 'string') result.createdAt = account.createdAt;
  if (Array.isArray(account.roles)) {
    result.roles = account.roles
      .filter((role): role is string => typeof role === 'string')
      .map((roleName) => ({ roleName, ...(orgId === undefined ? {} : { orgId }) }));
  }
  return result;
}

type Roles = InventoryApiKey['roles'] | AtlasApiKey['roles'];

/** A key or a service account, as the comparison sees it. */
interface Holder<S> {
  subject: S;
  roles: Roles;
  accessList: readonly InventoryEntry[];
}

interface HolderTypes<S> {
  added: (subject: S) => InventoryChange;
  removed: (subject: S) => InventoryChange;
  rolesChanged: (subject: S, rolesBefore: Roles) => InventoryChange;
  ownerGranted: (subject: S, rolesBefore: Roles) => InventoryChange;
  withoutAccessList: (subject: S) => InventoryChange;
  entryAdded: (subject: S, entry: InventoryEntry) => InventoryChange;
  entryRemoved: (subject: S, entry: InventoryEntry) => InventoryChange;
}

const API_KEY_TYPES: HolderTypes<InventoryApiKey> = {
  added: (apiKey) => ({ type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey }),
  removed: (apiKey) => ({ type: INVENTORY_EVENT_TYPES.apiKeyRemoved, apiKey }),
  rolesChanged: (apiKey, rolesBefore) => ({
    type: INVENTORY_EVENT_TYPES.apiKeyRolesChanged,
    apiKey,
    rolesBefore: inventoryRoles(rolesBefore),
  }),
  ownerGranted: (apiKey, rolesBefore) => ({
    type: INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted,
    apiKey,
    rolesBefore: inventoryRoles(rolesBefore),
  }),
  withoutAccessList: (apiKey) => ({ type: INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList, apiKey }),
  entryAdded: (apiKey, entry) => ({ type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry }),
  entryRemoved: (apiKey, entry) => ({ type: INVENTORY_EVENT_TYPES.accessListEntryRemoved, apiKey, entry }),
};

const SERVICE_ACCOUNT_TYPES: HolderTypes<InventoryServiceAccount> = {
  added: (serviceAccount) => ({ type: INVENTORY_EVENT_TYPES.serviceAccountAdded, serviceAccount }),
  removed: (serviceAccount) => ({ type: INVENTORY_EVENT_TYPES.serviceAccountRemoved, serviceAccount }),
  rolesChanged: (serviceAccount, rolesBefore) => ({
    type: INVENTORY_EVENT_TYPES.serviceAccountRolesChanged,
    serviceAccount,
    rolesBefore: inventoryRoles(rolesBefore),
  }),
  ownerGranted: (serviceAccount, rolesBefore) => ({
    type: INVENTORY_EVENT_TYPES.serviceAccountOwnerRoleGranted,
    serviceAccount,
    rolesBefore: inventoryRoles(rolesBefore),
  }),
  withoutAccessList: (serviceAccount) => ({
    type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList,
    serviceAccount,
  }),
  entryAdded: (serviceAccount, entry) => ({
    type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
    serviceAccount,
    entry,
  }),
  entryRemoved: (serviceAccount, entry) => ({
    type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryRemoved,
    serviceAccount,
    entry,
  }),
};

function accountHolder(
  account: AtlasServiceAccount,
  accessList: readonly InventoryEntry[],
  orgId: string | undefined,
): Holder<InventoryServiceAccount> {
  const subject = inventoryServiceAccount(account, orgId);
  return { subject, roles: subject.roles, accessList };
}

function diffHolder<S>(
  changes: InventoryChange[],
  old: Holder<S> | undefined,
  now: Holder<S> | undefined,
  types: HolderTypes<S>,
): void {
  if (now !== undefined && old === undefined) {
    changes.push(types.added(now.subject));
    if (ownerRolesGranted([], now.roles).length > 0) changes.push(types.ownerGranted(now.subject, []));
    const entries = entriesOf(now.accessList);
    for (const entry of entries.values()) changes.push(types.entryAdded(now.subject, entry));
    if (entries.size === 0) changes.push(types.withoutAccessList(now.subject));
    return;
  }
  if (old !== undefined && now === undefined) {
    changes.push(types.removed(old.subject));
    return;
  }
  if (old === undefined || now === undefined) return;
  if (!sameRoles(old.roles, now.roles)) {
    changes.push(types.rolesChanged(now.subject, old.roles));
    if (ownerRolesGranted(old.roles, now.roles).length > 0)
      changes.push(types.ownerGranted(now.subject, old.roles));
  }
  const oldEntries = entriesOf(old.accessList);
  const newEntries = entriesOf(now.accessList);
  for (const [key, entry] of newEntries) {
    if (!oldEntries.has(key)) changes.push(types.entryAdded(now.subject, entry));
  }
  for (const [key, entry] of oldEntries) {
    if (!newEntries.has(key)) changes.push(types.entryRemoved(now.subject, entry));
  }
  const becameOwner = !holdsOwnerRole(old.roles) && holdsOwnerRole(now.roles);
  if (newEntries.size === 0 && (oldEntries.size > 0 || becameOwner)) {
    changes.push(types.withoutAccessList(now.subject));
  }
}

/**
 * Whether roles hold `ORG_OWNER` or `GROUP_OWNER`: with no access list, what makes a key or a service
 * account a posture problem.
 *
 * @example
 * ```ts
 * holdsOwnerRole([{ orgId: 'o1', roleName: 'ORG_OWNER' }]); // true
 * ```
 */
export function holdsOwnerRole(roles: Roles): boolean {
  return (roles ?? []).some(
    (role) => typeof role.roleName === 'string' && OWNER_ROLE_NAMES.includes(role.roleName),
  );
}

function sortedIds(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort();
}

function inventoryRoles(roles: Roles): InventoryApiKey['roles'] {
  return (roles ?? []).map((role) => ({
    ...(typeof role.roleName === 'string' ? { roleName: role.roleName } : {}),
    ...(typeof role.orgId === 'string' ? { orgId: role.orgId } : {}),
    ...(typeof role.groupId === 'string' ? { groupId: role.groupId } : {}),
  }));
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

function sameRoles(a: Roles, b: Roles): boolean {
  const left = roleKeys(a);
  const right = roleKeys(b);
  return left.size === right.size && [...left].every((key) => right.has(key));
}

function roleKeys(roles: Roles): Set<string> {
  const keys = new Set<string>();
  for (const role of roles ?? []) {
    if (typeof role.roleName !== 'string' || role.roleName === '') continue;
    keys.add(`${role.roleName}@${role.orgId ?? ''}/${role.groupId ?? ''}`);
  }
  return keys;
}

/**
 * Access-list entries by their CIDR block (a bare address as its /32 or /128, a security group by
 * its id), in the order listed, with the fields an event shows.
 *
 * @example
 * ```ts
 * entriesOf([{ ipAddress: '203.0.113.7' }]).has('203.0.113.7/32'); // true
 * ```
 */
export function entriesOf(entries: readonly InventoryEntry[]): Map<string, InventoryEntry> {
  const map = new Map<string, InventoryEntry>();
  for (const entry of entries) {
    const key = accessListEntryKey(entry);
    if (key === undefined || map.has(key)) continue;
    map.set(key, {
      ...(typeof entry.cidrBlock === 'string' ? { cidrBlock: entry.cidrBlock } : {}),
      ...(typeof entry.ipAddress === 'string' ? { ipAddress: entry.ipAddress } : {}),
      ...(typeof entry.awsSecurityGroup === 'string' ? { awsSecurityGroup: entry.awsSecurityGroup } : {}),
      ...(typeof entry.comment === 'string' ? { comment: entry.comment } : {}),
      ...(typeof entry.created === 'string' ? { created: entry.created } : {}),
      ...(typeof entry.createdAt === 'string' ? { createdAt: entry.createdAt } : {}),
    });
  }
  return map;
}

/**
 * What identifies an access-list entry: its CIDR block trimmed and in lower case, a bare address as
 * its /32 or /128, a security group as `sg:` and its id; `undefined` for an entry with none of them.
 *
 * @example
 * ```ts
 * accessListEntryKey({ ipAddress: '203.0.113.7' }); // '203.0.113.7/32'
 * ```
 */
export function accessListEntryKey(entry: InventoryEntry): string | undefined {
  const cidr = typeof entry.cidrBlock === 'string' ? entry.cidrBlock.trim().toLowerCase() : '';
  if (cidr !== '') return cidr;
  const ip = typeof entry.ipAddress === 'string' ? entry.ipAddress.trim().toLowerCase() : '';
  if (ip !== '') return `${ip}/${ip.includes(':') ? 128 : 32}`;
  const group = typeof entry.awsSecurityGroup === 'string' ? entry.awsSecurityGroup.trim() : '';
  return group === '' ? undefined : `sg:${group}`;
}
