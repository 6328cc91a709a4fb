import { createHash } from 'node:crypto';
import type { AtlasAccessListEntry, AtlasApiKey, AtlasEvent } from '../atlas/types.js';
import { parseEventTime } from './event-time.js';

/**
 * Synthetic events for changes found by comparing snapshots of an organization's API keys and their
 * access lists. They go through the same rules as Atlas events, so a change is caught even where
 * Atlas has no event type for it or its event was missed. Their shape follows Atlas events: the key
 * in `apiKeyId` and `targetPublicKey`, an access-list entry in `accessListEntry` (as the API names the
 * entry of the key an event targets), plus `source: "inventory"`.
 */
export const INVENTORY_EVENT_TYPES = {
  apiKeyAdded: 'INVENTORY_API_KEY_ADDED',
  apiKeyRemoved: 'INVENTORY_API_KEY_REMOVED',
  apiKeyRolesChanged: 'INVENTORY_API_KEY_ROLES_CHANGED',
  apiKeyOwnerRoleGranted: 'INVENTORY_API_KEY_OWNER_ROLE_GRANTED',
  accessListEntryAdded: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
  accessListEntryRemoved: 'INVENTORY_ACCESS_LIST_ENTRY_REMOVED',
} as const;

export type InventoryEventType = (typeof INVENTORY_EVENT_TYPES)[keyof typeof INVENTORY_EVENT_TYPES];

/** The `source` of every inventory event; Atlas events have none. */
export const INVENTORY_SOURCE = 'inventory';

/** Roles that own an organization or a project. */
export const OWNER_ROLE_NAMES: readonly string[] = ['ORG_OWNER', 'GROUP_OWNER'];

/** A role of an API key: exactly one of `orgId` and `groupId`. */
export interface InventoryRole {
  roleName: string;
  orgId?: string;
  groupId?: string;
}

/** What an inventory event says about the key; never its private key. */
export interface InventoryApiKey {
  id: string;
  publicKey?: string | undefined;
  desc?: string | undefined;
  roles?:
    | readonly { roleName?: string | undefined; orgId?: string | undefined; groupId?: string | undefined }[]
    | undefined;
}

interface InventoryEventBase extends AtlasEvent {
  /** Derived from the change, so detecting the same change again gives the same id. */
  id: string;
  /** The time of the snapshot that showed the change, ISO-8601 UTC. */
  created: string;
  eventTypeName: InventoryEventType;
  source: typeof INVENTORY_SOURCE;
  orgId: string;
  /** The API key changed. */
  apiKeyId: string;
  targetPublicKey?: string;
  apiKeyDescription?: string;
  /** The snapshot the change was measured against, ISO-8601 UTC; absent for the first comparison. */
  previousSnapshotAt?: string;
}

export interface InventoryApiKeyAddedEvent extends InventoryEventBase {
  eventTypeName: typeof INVENTORY_EVENT_TYPES.apiKeyAdded;
  roles: InventoryRole[];
}

export interface InventoryApiKeyRemovedEvent extends InventoryEventBase {
  eventTypeName: typeof INVENTORY_EVENT_TYPES.apiKeyRemoved;
  rolesBefore: InventoryRole[];
}

export interface InventoryApiKeyRolesChangedEvent extends InventoryEventBase {
  eventTypeName:
    | typeof INVENTORY_EVENT_TYPES.apiKeyRolesChanged
    | typeof INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted;
  rolesBefore: InventoryRole[];
  rolesAfter: InventoryRole[];
  rolesAdded: InventoryRole[];
  rolesRemoved: InventoryRole[];
}

export interface InventoryAccessListEntryEvent extends InventoryEventBase {
  eventTypeName:
    | typeof INVENTORY_EVENT_TYPES.accessListEntryAdded
    | typeof INVENTORY_EVENT_TYPES.accessListEntryRemoved;
  /** The entry: its CIDR block, else its IP address (a bare address is a /32 or /128). */
  accessListEntry: string;
  cidrBlock?: string;
  ipAddress?: string;
}

export type InventoryEvent =
  | InventoryApiKeyAddedEvent
  | InventoryApiKeyRemovedEvent
  | InventoryApiKeyRolesChangedEvent
  | InventoryAccessListEntryEvent;

/**
 * A change found between two snapshots. When a key gains `ORG_OWNER` or `GROUP_OWNER`, report both
 * `INVENTORY_API_KEY_ROLES_CHANGED` and `INVENTORY_API_KEY_OWNER_ROLE_GRANTED`; when a new key already
 * holds an owner role, both `INVENTORY_API_KEY_ADDED` and `INVENTORY_API_KEY_OWNER_ROLE_GRANTED` (with
 * no roles before). The default rules alert once for each case, at the owner grant's severity.
 * `ownerRolesGranted` tells whether a change grants one.
 */
export type InventoryChange =
  | { type: typeof INVENTORY_EVENT_TYPES.apiKeyAdded; apiKey: InventoryApiKey }
  | { type: typeof INVENTORY_EVENT_TYPES.apiKeyRemoved; apiKey: InventoryApiKey }
  | {
      type:
        | typeof INVENTORY_EVENT_TYPES.apiKeyRolesChanged
        | typeof INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted;
      /** The key as it is now. */
      apiKey: InventoryApiKey;
      rolesBefore: InventoryApiKey['roles'];
    }
  | {
      type:
        | typeof INVENTORY_EVENT_TYPES.accessListEntryAdded
        | typeof INVENTORY_EVENT_TYPES.accessListEntryRemoved;
      apiKey: InventoryApiKey;
      entry: Pick<AtlasAccessListEntry, 'cidrBlock' | 'ipAddress'>;
    };

export interface InventoryEventContext {
  orgId: string;
  /** When the snapshot showing the change was taken: milliseconds since the epoch or ISO-8601. */
  snapshotAt: number | string;
  /** When the snapshot it is compared with was taken, if there was one. */
  previousSnapshotAt?: number | string | undefined;
}

/**
 * Builds the synthetic event for one inventory change. Its `id` is a hash of the change and of the
 * previous snapshot's time: comparing the same two snapshots again (a tick cut short before it
 * stored the new one) yields the same id, which the poller drops as already seen.
 *
 * @throws {RangeError} when `snapshotAt` is not a valid time, or an access-list entry has neither a
 *   CIDR block nor an IP address.
 * @example
 * ```ts
 * const event = buildInventoryEvent(
 *   { type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey },
 *   { orgId, snapshotAt: clock.now(), previousSnapshotAt: previous.takenAt },
 * );
 * ```
 */
export function buildInventoryEvent(change: InventoryChange, context: InventoryEventContext): InventoryEvent {
  const created = isoTime(context.snapshotAt, 'snapshotAt');
  const previousSnapshotAt =
    context.previousSnapshotAt === undefined
      ? undefined
      : isoTime(context.previousSnapshotAt, 'previousSnapshotAt');
  const base = {
    created,
    source: INVENTORY_SOURCE,
    orgId: context.orgId,
    apiKeyId: change.apiKey.id,
    ...(change.apiKey.publicKey === undefined ? {} : { targetPublicKey: change.apiKey.publicKey }),
    ...(change.apiKey.desc === undefined ? {} : { apiKeyDescription: change.apiKey.desc }),
    ...(previousSnapshotAt === undefined ? {} : { previousSnapshotAt }),
  } as const;
  const idOf = (detail: unknown): string =>
    `inv-${createHash('sha256')
      .update(
        JSON.stringify([change.type, context.orgId, change.apiKey.id, detail, previousSnapshotAt ?? null]),
      )
      .digest('hex')
      .slice(0, 32)}`;

  switch (change.type) {
    case INVENTORY_EVENT_TYPES.apiKeyAdded: {
      const roles = normaliseRoles(change.apiKey.roles);
      return { ...base, id: idOf(roles.map(roleKey)), eventTypeName: change.type, roles };
    }
    case INVENTORY_EVENT_TYPES.apiKeyRemoved: {
      const rolesBefore = normaliseRoles(change.apiKey.roles);
      return { ...base, id: idOf(rolesBefore.map(roleKey)), eventTypeName: change.type, rolesBefore };
    }
    case INVENTORY_EVENT_TYPES.apiKeyRolesChanged:
    case INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted: {
      const rolesBefore = normaliseRoles(change.rolesBefore);
      const rolesAfter = normaliseRoles(change.apiKey.roles);
      const before = new Set(rolesBefore.map(roleKey));
      const after = new Set(rolesAfter.map(roleKey));
      return {
        ...base,
        id: idOf([[...before], [...after]]),
        eventTypeName: change.type,
        rolesBefore,
        rolesAfter,
        rolesAdded: rolesAfter.filter((role) => !before.has(roleKey(role))),
        rolesRemoved: rolesBefore.filter((role) => !after.has(roleKey(role))),
      };
    }
    case INVENTORY_EVENT_TYPES.accessListEntryAdded:
    case INVENTORY_EVENT_TYPES.accessListEntryRemoved: {
      const cidrBlock = nonEmpty(change.entry.cidrBlock);
      const ipAddress = nonEmpty(change.entry.ipAddress);
      const accessListEntry = cidrBlock ?? ipAddress;
      if (accessListEntry === undefined) {
        throw new RangeError(
          `Access-list entry of API key ${change.apiKey.id} has neither cidrBlock nor ipAddress: pass the entry as the API lists it`,
        );
      }
      return {
        ...base,
        id: idOf(accessListEntry),
        eventTypeName: change.type,
        accessListEntry,
        ...(cidrBlock === undefined ? {} : { cidrBlock }),
        ...(ipAddress === undefined ? {} : { ipAddress }),
      };
    }
  }
}

/**
 * The owner roles a key gains between two role lists: what decides whether to also report
 * `INVENTORY_API_KEY_OWNER_ROLE_GRANTED`.
 *
 * @example
 * ```ts
 * ownerRolesGranted(before.roles, after.roles).length > 0;
 * ```
 */
export function ownerRolesGranted(
  before: AtlasApiKey['roles'] | InventoryApiKey['roles'],
  after: AtlasApiKey['roles'] | InventoryApiKey['roles'],
): InventoryRole[] {
  const had = new Set(normaliseRoles(before).map(roleKey));
  return normaliseRoles(after).filter(
    (role) => OWNER_ROLE_NAMES.includes(role.roleName) && !had.has(roleKey(role)),
  );
}

function normaliseRoles(roles: InventoryApiKey['roles'] | AtlasApiKey['roles']): InventoryRole[] {
  const seen = new Set<string>();
  const result: InventoryRole[] = [];
  for (const role of roles ?? []) {
    if (typeof role.roleName !== 'string' || role.roleName === '') continue;
    const normalised: InventoryRole = { roleName: role.roleName };
    if (typeof role.orgId === 'string') normalised.orgId = role.orgId;
    if (typeof role.groupId === 'string') normalised.groupId = role.groupId;
    const key = roleKey(normalised);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(normalised);
  }
  return result.sort((a, b) => (roleKey(a) < roleKey(b) ? -1 : 1));
}

function roleKey(role: InventoryRole): string {
  return `${role.roleName}@${role.orgId ?? ''}/${role.groupId ?? ''}`;
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function isoTime(value: number | string, name: string): string {
  const time = typeof value === 'number' ? value : parseEventTime(value);
  if (time === undefined || !Number.isFinite(time))
    throw new RangeError(`${name} ${String(value)} is not a time: pass milliseconds or ISO-8601`);
  return new Date(time).toISOString();
}
