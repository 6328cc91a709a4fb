import { createHash } from 'node:crypto';
import type { AtlasApiKey, AtlasEvent } from '../atlas/types.js';
import { FINDING_RESOLVED_EVENT_TYPE } from '../notify/alert-finding.js';
import { formatUtc } from '../notify/relative-time.js';
import { parseEventTime } from './event-time.js';
import { parseIpRange } from './ip-range.js';

/**
 * Synthetic events for changes found by comparing inventory snapshots: an organization's API keys
 * and service accounts with their access lists, and a project's IP access list. They go through the
 * same rules as Atlas events, so a change is caught even where Atlas has no event type for it or its
 * event was missed. Their shape follows Atlas events: a key in `apiKeyId` and `targetPublicKey`, an
 * access-list entry in `accessListEntry` (as the API names the entry of the key an event targets),
 * plus `source: "inventory"`. An event of the first snapshot (a baseline finding: something already
 * wrong when the tool was deployed) carries `preExisting: true`.
 *
 * Posture findings have a life: an event that opens a posture problem (an entry open to the internet
 * or not an address, an owner credential with no access list) carries `postureFinding`, the problem's
 * stable id; when a later snapshot shows the problem gone, `INVENTORY_FINDING_RESOLVED` carries the
 * same id; when it comes back, the event that reports it opens the same id again.
 */
export const INVENTORY_EVENT_TYPES = {
  apiKeyAdded: 'INVENTORY_API_KEY_ADDED',
  apiKeyRemoved: 'INVENTORY_API_KEY_REMOVED',
  apiKeyRolesChanged: 'INVENTORY_API_KEY_ROLES_CHANGED',
  apiKeyOwnerRoleGranted: 'INVENTORY_API_KEY_OWNER_ROLE_GRANTED',
  apiKeyWithoutAccessList: 'INVENTORY_API_KEY_WITHOUT_ACCESS_LIST',
  accessListEntryAdded: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
  accessListEntryRemoved: 'INVENTORY_ACCESS_LIST_ENTRY_REMOVED',
  serviceAccountAdded: 'INVENTORY_SERVICE_ACCOUNT_ADDED',
  serviceAccountRemoved: 'INVENTORY_SERVICE_ACCOUNT_REMOVED',
  serviceAccountRolesChanged: 'INVENTORY_SERVICE_ACCOUNT_ROLES_CHANGED',
  serviceAccountOwnerRoleGranted: 'INVENTORY_SERVICE_ACCOUNT_OWNER_ROLE_GRANTED',
  serviceAccountWithoutAccessList: 'INVENTORY_SERVICE_ACCOUNT_WITHOUT_ACCESS_LIST',
  serviceAccountAccessListEntryAdded: 'INVENTORY_SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED',
  serviceAccountAccessListEntryRemoved: 'INVENTORY_SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_REMOVED',
  projectAccessListEntryAdded: 'INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED',
  projectAccessListEntryRemoved: 'INVENTORY_PROJECT_ACCESS_LIST_ENTRY_REMOVED',
  findingResolved: FINDING_RESOLVED_EVENT_TYPE,
} as const;

export type InventoryEventType = (typeof INVENTORY_EVENT_TYPES)[keyof typeof INVENTORY_EVENT_TYPES];

type Types = typeof INVENTORY_EVENT_TYPES;

/** The `source` of every inventory event; Atlas events have none. */
export const INVENTORY_SOURCE = 'inventory';

/** Roles that own an organization or a project. */
export const OWNER_ROLE_NAMES: readonly string[] = ['ORG_OWNER', 'GROUP_OWNER'];

/** A role of an API key or a service account: exactly one of `orgId` and `groupId`. */
export interface InventoryRole {
  roleName: string;
  orgId?: string;
  groupId?: string;
}

type LooseRoles =
  | readonly { roleName?: string | undefined; orgId?: string | undefined; groupId?: string | undefined }[]
  | undefined;

/** What an inventory event says about the key; never its private key. */
export interface InventoryApiKey {
  id: string;
  publicKey?: string | undefined;
  desc?: string | undefined;
  roles?: LooseRoles;
}

/** What an inventory event says about a service account; never its secrets. */
export interface InventoryServiceAccount {
  clientId: string;
  name?: string | undefined;
  description?: string | undefined;
  /** When Atlas says the account was created, ISO-8601. */
  createdAt?: string | undefined;
  roles?: LooseRoles;
}

/** An access-list entry as a change carries it. */
export interface InventoryEntry {
  cidrBlock?: string | null | undefined;
  ipAddress?: string | null | undefined;
  /** Project access lists only: an AWS security group instead of an address. */
  awsSecurityGroup?: string | undefined;
  comment?: string | undefined;
  /** When Atlas says the entry was added: `created` of an API key's entry. */
  created?: string | undefined;
  /** The same for a service account's entry, as its API names it. */
  createdAt?: string | undefined;
}

interface InventoryEventBase extends AtlasEvent {
  /** Derived from the change, so detecting the same change again gives the same id. */
  id: string;
  /** The time of the snapshot that showed the change, ISO-8601 UTC. */
  created: string;
  eventTypeName: InventoryEventType;
  source: typeof INVENTORY_SOURCE;
  /** The organization, for an organization's inventory. */
  orgId?: string;
  /** The project, for a project's access list. */
  groupId?: string;
  /** The snapshot the change was measured against, ISO-8601 UTC; absent for a baseline finding. */
  previousSnapshotAt?: string;
  /** Present (true) on a baseline finding: the first snapshot found it, so it predates the tool. */
  preExisting?: true;
  /** Words for titles and summaries: {@link PRE_EXISTING_FINDING} or {@link NEW_FINDING}. */
  finding: string;
  /**
   * Since when what was found exists, ISO-8601 UTC, as Atlas records it: the creation of an entry
   * added, or of a service account found. Absent where Atlas keeps no such date (API keys, project
   * access-list entries) and on what was removed.
   */
  existsSince?: string;
  /**
   * The stable id of the posture problem the event opens (or, on `INVENTORY_FINDING_RESOLVED`,
   * resolves): see `postureFindingId` in `shared/poll`. Absent on events that open none.
   */
  postureFinding?: string;
}

interface ApiKeyFields {
  apiKeyId: string;
  targetPublicKey?: string;
  apiKeyDescription?: string;
}

interface ServiceAccountFields {
  serviceAccountClientId: string;
  serviceAccountName?: string;
  serviceAccountDescription?: string;
}

interface EntryFields {
  /** The entry: its CIDR block, else its IP address, else its AWS security group. */
  accessListEntry: string;
  cidrBlock?: string;
  ipAddress?: string;
  awsSecurityGroup?: string;
  comment?: string;
}

interface RoleChangeFields {
  rolesBefore: InventoryRole[];
  rolesAfter: InventoryRole[];
  rolesAdded: InventoryRole[];
  rolesRemoved: InventoryRole[];
}

export type InventoryApiKeyAddedEvent = InventoryEventBase &
  ApiKeyFields & {
    eventTypeName: Types['apiKeyAdded'];
    roles: InventoryRole[];
  };

export type InventoryApiKeyRemovedEvent = InventoryEventBase &
  ApiKeyFields & {
    eventTypeName: Types['apiKeyRemoved'];
    rolesBefore: InventoryRole[];
  };

export type InventoryApiKeyRolesChangedEvent = InventoryEventBase &
  ApiKeyFields &
  RoleChangeFields & {
    eventTypeName: Types['apiKeyRolesChanged'] | Types['apiKeyOwnerRoleGranted'];
  };

export type InventoryAccessListEntryEvent = InventoryEventBase &
  ApiKeyFields &
  EntryFields & {
    eventTypeName: Types['accessListEntryAdded'] | Types['accessListEntryRemoved'];
  };

export type InventoryServiceAccountAddedEvent = InventoryEventBase &
  ServiceAccountFields & {
    eventTypeName: Types['serviceAccountAdded'];
    roles: InventoryRole[];
  };

export type InventoryServiceAccountRemovedEvent = InventoryEventBase &
  ServiceAccountFields & {
    eventTypeName: Types['serviceAccountRemoved'];
    rolesBefore: InventoryRole[];
  };

export type InventoryServiceAccountRolesChangedEvent = InventoryEventBase &
  ServiceAccountFields &
  RoleChangeFields & {
    eventTypeName: Types['serviceAccountRolesChanged'] | Types['serviceAccountOwnerRoleGranted'];
  };

export type InventoryServiceAccountEntryEvent = InventoryEventBase &
  ServiceAccountFields &
  EntryFields & {
    eventTypeName:
      | Types['serviceAccountAccessListEntryAdded']
      | Types['serviceAccountAccessListEntryRemoved'];
  };

/** A key or a service account that anyone holding its credentials can use from any address. */
export type InventoryWithoutAccessListEvent = InventoryEventBase &
  Partial<ApiKeyFields> &
  Partial<ServiceAccountFields> & {
    eventTypeName: Types['apiKeyWithoutAccessList'] | Types['serviceAccountWithoutAccessList'];
    roles: InventoryRole[];
    /** Whether it owns an organization or a project: what makes the missing access list critical. */
    holdsOwnerRole: boolean;
  };

export type InventoryProjectEntryEvent = InventoryEventBase &
  EntryFields & {
    eventTypeName: Types['projectAccessListEntryAdded'] | Types['projectAccessListEntryRemoved'];
    groupId: string;
  };

/**
 * A posture problem an earlier snapshot held is gone: an entry open to the internet removed or
 * narrowed, an access list added, an owner role removed, or the key or service account deleted. It
 * carries the subject's fields as the event that opened the problem had them (the key, the service
 * account, the project's entry), as the previous snapshot showed them.
 */
export type InventoryFindingResolvedEvent = InventoryEventBase &
  Partial<ApiKeyFields> &
  Partial<ServiceAccountFields> &
  Partial<EntryFields> & {
    eventTypeName: Types['findingResolved'];
    postureFinding: string;
    /** The type of the event that opened the problem, such as `INVENTORY_ACCESS_LIST_ENTRY_ADDED`. */
    resolvedFindingType: InventoryOpeningEventType;
    /** The problem as it was, in words: `API key qkzvbgyt open to 0.0.0.0/0`. */
    problem: string;
    /** What fixed it, in words: `the entry was removed from the access list`. */
    resolution: string;
    /**
     * Since when the problem had been open, ISO-8601 UTC: the creation Atlas records for the entry,
     * else the time of the first snapshot that showed the problem. Absent when neither is known.
     */
    openSince?: string;
    /**
     * `openSince` in words, saying how it is known: `2024-03-18 14:41:10 UTC, as Atlas records the
     * entry's creation`, `… UTC, when the inventory found it`, or `… UTC or earlier: the first
     * inventory found it already there`.
     */
    opened?: string;
    /** Of an owner credential without an access list: its roles when the problem was last seen. */
    roles?: InventoryRole[];
    holdsOwnerRole?: boolean;
  };

export type InventoryEvent =
  | InventoryFindingResolvedEvent
  | InventoryApiKeyAddedEvent
  | InventoryApiKeyRemovedEvent
  | InventoryApiKeyRolesChangedEvent
  | InventoryAccessListEntryEvent
  | InventoryServiceAccountAddedEvent
  | InventoryServiceAccountRemovedEvent
  | InventoryServiceAccountRolesChangedEvent
  | InventoryServiceAccountEntryEvent
  | InventoryWithoutAccessListEvent
  | InventoryProjectEntryEvent;

/**
 * A change found between two snapshots (or, for a baseline finding, in the first one). When a key
 * or account gains `ORG_OWNER` or `GROUP_OWNER`, report both the roles change and the owner grant;
 * when a new one already holds an owner role, both the addition and the owner grant (with no roles
 * before). The default rules alert once for each case, at the owner grant's severity.
 * `ownerRolesGranted` tells whether a change grants one.
 */
export type InventoryChange = InventoryObservedChange | InventoryFindingResolvedChange;

/** The types of the events that may open a posture problem. */
export type InventoryOpeningEventType =
  | Types['accessListEntryAdded']
  | Types['serviceAccountAccessListEntryAdded']
  | Types['projectAccessListEntryAdded']
  | Types['apiKeyWithoutAccessList']
  | Types['serviceAccountWithoutAccessList'];

/** The types of the events that may open a posture problem, as a list. */
export const INVENTORY_OPENING_EVENT_TYPES: readonly InventoryOpeningEventType[] = [
  INVENTORY_EVENT_TYPES.accessListEntryAdded,
  INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
  INVENTORY_EVENT_TYPES.projectAccessListEntryAdded,
  INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList,
  INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList,
];

/** A change that opens a posture problem (when its entry or roles make it one). */
export type InventoryOpeningChange =
  | { type: Types['accessListEntryAdded']; apiKey: InventoryApiKey; entry: InventoryEntry }
  | {
      type: Types['serviceAccountAccessListEntryAdded'];
      serviceAccount: InventoryServiceAccount;
      entry: InventoryEntry;
    }
  | { type: Types['projectAccessListEntryAdded']; groupId: string; entry: InventoryEntry }
  | { type: Types['apiKeyWithoutAccessList']; apiKey: InventoryApiKey }
  | { type: Types['serviceAccountWithoutAccessList']; serviceAccount: InventoryServiceAccount };

/** A posture problem an earlier snapshot held, gone from the current one. */
export interface InventoryFindingResolvedChange {
  type: Types['findingResolved'];
  /** The problem's stable id, as the events that opened it carried it. */
  postureFinding: string;
  /** The change that opened the problem, as the previous snapshot shows it. */
  opening: InventoryOpeningChange;
  /** What fixed it, in words (see `InventoryFindingResolvedEvent.resolution`). */
  resolution: string;
  /** When the first snapshot that showed the problem was taken: milliseconds or ISO-8601. */
  firstFoundAt?: number | string | undefined;
  /** That snapshot found the problem already there (a first snapshot): it may be older. */
  foundPreExisting?: boolean | undefined;
}

/** A difference between two snapshots, or a thing already wrong in the first one. */
export type InventoryObservedChange =
  | {
      type: Types['apiKeyAdded'] | Types['apiKeyRemoved'] | Types['apiKeyWithoutAccessList'];
      apiKey: InventoryApiKey;
    }
  | {
      type: Types['apiKeyRolesChanged'] | Types['apiKeyOwnerRoleGranted'];
      /** The key as it is now. */
      apiKey: InventoryApiKey;
      rolesBefore: InventoryApiKey['roles'];
    }
  | {
      type: Types['accessListEntryAdded'] | Types['accessListEntryRemoved'];
      apiKey: InventoryApiKey;
      entry: InventoryEntry;
    }
  | {
      type:
        | Types['serviceAccountAdded']
        | Types['serviceAccountRemoved']
        | Types['serviceAccountWithoutAccessList'];
      serviceAccount: InventoryServiceAccount;
    }
  | {
      type: Types['serviceAccountRolesChanged'] | Types['serviceAccountOwnerRoleGranted'];
      /** The account as it is now. */
      serviceAccount: InventoryServiceAccount;
      rolesBefore: InventoryServiceAccount['roles'];
    }
  | {
      type: Types['serviceAccountAccessListEntryAdded'] | Types['serviceAccountAccessListEntryRemoved'];
      serviceAccount: InventoryServiceAccount;
      entry: InventoryEntry;
    }
  | {
      type: Types['projectAccessListEntryAdded'] | Types['projectAccessListEntryRemoved'];
      groupId: string;
      entry: InventoryEntry;
    };

export interface InventoryEventContext {
  /** The organization whose inventory it is (absent for a project's access list). */
  orgId?: string | undefined;
  /** The project whose access list it is. */
  groupId?: string | undefined;
  /** When the snapshot showing the change was taken: milliseconds since the epoch or ISO-8601. */
  snapshotAt: number | string;
  /** When the snapshot it is compared with was taken, if there was one. */
  previousSnapshotAt?: number | string | undefined;
  /** The change is a baseline finding of the first snapshot (see `preExisting`). */
  preExisting?: boolean | undefined;
  /** The posture problem the change opens, if it opens one (see `postureFinding`). */
  postureFinding?: string | undefined;
}

/** The `finding` words of a baseline finding. */
export const PRE_EXISTING_FINDING = 'pre-existing, found by the first inventory';
/** The `finding` words of a change between two snapshots. */
export const NEW_FINDING = 'new since the last inventory';
/** The `finding` words of a posture problem gone. */
export const RESOLVED_FINDING = 'resolved: gone since the last inventory';

/**
 * Builds the synthetic event for one inventory change. Its `id` is a hash of the change and of the
 * previous snapshot's time: comparing the same two snapshots again (a tick cut short before it
 * stored the new one) yields the same id, which the poller drops as already seen. A resolved
 * problem's id is a hash of its `postureFinding` and the previous snapshot's time in the same way.
 *
 * @throws {RangeError} when `snapshotAt` is not a valid time, or an access-list entry has neither a
 *   CIDR block, an IP address nor a security group.
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
  const preExisting = context.preExisting === true;
  const base = {
    created,
    source: INVENTORY_SOURCE as typeof INVENTORY_SOURCE,
    ...(context.orgId === undefined ? {} : { orgId: context.orgId }),
    ...(context.groupId === undefined ? {} : { groupId: context.groupId }),
    ...(previousSnapshotAt === undefined ? {} : { previousSnapshotAt }),
    ...(preExisting ? { preExisting: true as const } : {}),
    finding: preExisting ? PRE_EXISTING_FINDING : NEW_FINDING,
    ...(context.postureFinding === undefined ? {} : { postureFinding: context.postureFinding }),
  };
  const subject =
    'postureFinding' in change
      ? `finding:${change.postureFinding}`
      : 'apiKey' in change
        ? change.apiKey.id
        : 'serviceAccount' in change
          ? `sa:${change.serviceAccount.clientId}`
          : `group:${change.groupId}`;
  const idOf = (detail: unknown): string =>
    `inv-${createHash('sha256')
      .update(
        JSON.stringify([
          change.type,
          context.orgId ?? context.groupId ?? '',
          subject,
          detail,
          previousSnapshotAt ?? null,
        ]),
      )
      .digest('hex')
      .slice(0, 32)}`;

  switch (change.type) {
    case INVENTORY_EVENT_TYPES.findingResolved: {
      // A resolution is never a baseline finding: the first snapshot has nothing to resolve.
      const { preExisting: _baseline, ...compared } = base;
      return {
        ...compared,
        ...resolvedFields(change, context),
        finding: RESOLVED_FINDING,
        postureFinding: change.postureFinding,
        id: idOf(null),
        eventTypeName: change.type,
      };
    }
    case INVENTORY_EVENT_TYPES.apiKeyAdded: {
      const roles = normaliseRoles(change.apiKey.roles);
      return {
        ...base,
        ...keyFields(change.apiKey),
        id: idOf(roles.map(roleKey)),
        eventTypeName: change.type,
        roles,
      };
    }
    case INVENTORY_EVENT_TYPES.apiKeyRemoved: {
      const rolesBefore = normaliseRoles(change.apiKey.roles);
      return {
        ...base,
        ...keyFields(change.apiKey),
        id: idOf(rolesBefore.map(roleKey)),
        eventTypeName: change.type,
        rolesBefore,
      };
    }
    case INVENTORY_EVENT_TYPES.apiKeyRolesChanged:
    case INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted: {
      const { keys, ...roles } = roleChange(change.rolesBefore, change.apiKey.roles);
      return { ...base, ...keyFields(change.apiKey), ...roles, id: idOf(keys), eventTypeName: change.type };
    }
    case INVENTORY_EVENT_TYPES.accessListEntryAdded:
    case INVENTORY_EVENT_TYPES.accessListEntryRemoved: {
      const entry = entryFields(change.entry, `API key ${change.apiKey.id}`);
      return {
        ...base,
        ...keyFields(change.apiKey),
        ...entry,
        ...(change.type === INVENTORY_EVENT_TYPES.accessListEntryAdded ? existsSince(change.entry) : {}),
        id: idOf(entry.accessListEntry),
        eventTypeName: change.type,
      };
    }
    case INVENTORY_EVENT_TYPES.serviceAccountAdded: {
      const roles = normaliseRoles(change.serviceAccount.roles);
      return {
        ...base,
        ...accountFields(change.serviceAccount),
        ...existsSince(change.serviceAccount),
        id: idOf(roles.map(roleKey)),
        eventTypeName: change.type,
        roles,
      };
    }
    case INVENTORY_EVENT_TYPES.serviceAccountRemoved: {
      const rolesBefore = normaliseRoles(change.serviceAccount.roles);
      return {
        ...base,
        ...accountFields(change.serviceAccount),
        id: idOf(rolesBefore.map(roleKey)),
        eventTypeName: change.type,
        rolesBefore,
      };
    }
    case INVENTORY_EVENT_TYPES.serviceAccountRolesChanged:
    case INVENTORY_EVENT_TYPES.serviceAccountOwnerRoleGranted: {
      const { keys, ...roles } = roleChange(change.rolesBefore, change.serviceAccount.roles);
      return {
        ...base,
        ...accountFields(change.serviceAccount),
        ...roles,
        id: idOf(keys),
        eventTypeName: change.type,
      };
    }
    case INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded:
    case INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryRemoved: {
      const entry = entryFields(change.entry, `service account ${change.serviceAccount.clientId}`);
      return {
        ...base,
        ...accountFields(change.serviceAccount),
        ...entry,
        ...(change.type === INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded
          ? existsSince(change.entry)
          : {}),
        id: idOf(entry.accessListEntry),
        eventTypeName: change.type,
      };
    }
    case INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList:
    case INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList: {
      const holder = 'apiKey' in change ? change.apiKey : change.serviceAccount;
      const roles = normaliseRoles(holder.roles);
      return {
        ...base,
        ...('apiKey' in change ? keyFields(change.apiKey) : accountFields(change.serviceAccount)),
        ...('serviceAccount' in change ? existsSince(change.serviceAccount) : {}),
        id: idOf(roles.map(roleKey)),
        eventTypeName: change.type,
        roles,
        holdsOwnerRole: roles.some((role) => OWNER_ROLE_NAMES.includes(role.roleName)),
      };
    }
    case INVENTORY_EVENT_TYPES.projectAccessListEntryAdded:
    case INVENTORY_EVENT_TYPES.projectAccessListEntryRemoved: {
      const entry = entryFields(change.entry, `project ${change.groupId}`);
      return {
        ...base,
        ...entry,
        groupId: change.groupId,
        id: idOf(entry.accessListEntry),
        eventTypeName: change.type,
      };
    }
  }
}

type SubjectFields = Partial<ApiKeyFields & ServiceAccountFields & EntryFields>;

/** What a resolved problem's event says beyond the fields every inventory event has. */
type ResolvedFields = SubjectFields &
  Pick<InventoryFindingResolvedEvent, 'resolvedFindingType' | 'problem' | 'resolution'> &
  Partial<Pick<InventoryFindingResolvedEvent, 'openSince' | 'opened' | 'roles' | 'holdsOwnerRole'>>;

/** Fields of the event that opened a problem that are its own, not the problem's subject. */
const OPENING_EVENT_OWN_FIELDS = new Set([
  'id',
  'created',
  'eventTypeName',
  'source',
  'orgId',
  'groupId',
  'previousSnapshotAt',
  'preExisting',
  'finding',
  'existsSince',
  'postureFinding',
]);

/**
 * The subject's fields of a resolved problem, as the event that opened it carried them (its key or
 * service account, its entry, the roles of an owner), with the problem and its fix in words.
 */
function resolvedFields(
  change: InventoryFindingResolvedChange,
  context: InventoryEventContext,
): ResolvedFields {
  const opening = change.opening;
  const opened = buildInventoryEvent(opening, {
    orgId: context.orgId,
    groupId: context.groupId,
    snapshotAt: context.previousSnapshotAt ?? context.snapshotAt,
  });
  const subject: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(opened)) {
    if (!OPENING_EVENT_OWN_FIELDS.has(field)) subject[field] = value;
  }
  const firstFoundAt =
    change.firstFoundAt === undefined ? undefined : isoTime(change.firstFoundAt, 'firstFoundAt');
  // Atlas dates an entry, not the moment a credential lost its access list or gained an owner role.
  const created = 'entry' in opening ? opened.existsSince : undefined;
  const since =
    created !== undefined
      ? {
          openSince: created,
          opened: `${formatUtc(Date.parse(created))}, as Atlas records the entry's creation`,
        }
      : firstFoundAt === undefined
        ? {}
        : {
            openSince: firstFoundAt,
            opened:
              change.foundPreExisting === true
                ? `${formatUtc(Date.parse(firstFoundAt))} or earlier: the first inventory found it already there`
                : `${formatUtc(Date.parse(firstFoundAt))}, when the inventory found it`,
          };
  return {
    ...(subject as SubjectFields),
    resolvedFindingType: opening.type,
    problem: problemWords(opened as InventoryEvent & SubjectFields),
    resolution: change.resolution,
    ...since,
  };
}

/** A posture problem in words, from the event that opened it: `API key qkzvbgyt open to 0.0.0.0/0`. */
function problemWords(opened: InventoryEvent & SubjectFields): string {
  const holder =
    opened.apiKeyId !== undefined
      ? `API key ${opened.targetPublicKey ?? opened.apiKeyId}`
      : opened.serviceAccountClientId !== undefined
        ? `service account ${opened.serviceAccountName ?? opened.serviceAccountClientId}`
        : 'project IP access list';
  const entry = opened.accessListEntry;
  if (entry === undefined) return `owner ${holder} without an access list`;
  const address = opened.cidrBlock ?? opened.ipAddress;
  return address === undefined || parseIpRange(address) !== undefined
    ? `${holder} open to ${entry}`
    : `${holder} holding ${entry}, which is not an address`;
}

function keyFields(apiKey: InventoryApiKey): ApiKeyFields {
  return {
    apiKeyId: apiKey.id,
    ...(apiKey.publicKey === undefined ? {} : { targetPublicKey: apiKey.publicKey }),
    ...(apiKey.desc === undefined ? {} : { apiKeyDescription: apiKey.desc }),
  };
}

function accountFields(account: InventoryServiceAccount): ServiceAccountFields {
  return {
    serviceAccountClientId: account.clientId,
    ...(account.name === undefined ? {} : { serviceAccountName: account.name }),
    ...(account.description === undefined ? {} : { serviceAccountDescription: account.description }),
  };
}

/**
 * `existsSince` from the creation time Atlas gives an entry (`created`, or `createdAt` for a service
 * account's) or a service account (`createdAt`); nothing when that is missing or not a time.
 */
function existsSince(source: { created?: string | undefined; createdAt?: string | undefined }): {
  existsSince?: string;
} {
  const time = parseEventTime(source.created ?? source.createdAt);
  return time === undefined ? {} : { existsSince: new Date(time).toISOString() };
}

function roleChange(before: LooseRoles, after: LooseRoles): RoleChangeFields & { keys: string[][] } {
  const rolesBefore = normaliseRoles(before);
  const rolesAfter = normaliseRoles(after);
  const had = new Set(rolesBefore.map(roleKey));
  const has = new Set(rolesAfter.map(roleKey));
  return {
    rolesBefore,
    rolesAfter,
    rolesAdded: rolesAfter.filter((role) => !had.has(roleKey(role))),
    rolesRemoved: rolesBefore.filter((role) => !has.has(roleKey(role))),
    keys: [[...had], [...has]],
  };
}

function entryFields(entry: InventoryEntry, owner: string): EntryFields {
  const cidrBlock = nonEmpty(entry.cidrBlock);
  const ipAddress = nonEmpty(entry.ipAddress);
  const awsSecurityGroup = nonEmpty(entry.awsSecurityGroup);
  const comment = nonEmpty(entry.comment);
  const accessListEntry = cidrBlock ?? ipAddress ?? awsSecurityGroup;
  if (accessListEntry === undefined) {
    throw new RangeError(
      `Access-list entry of ${owner} has neither cidrBlock, ipAddress nor awsSecurityGroup: pass the entry as the API lists it`,
    );
  }
  return {
    accessListEntry,
    ...(cidrBlock === undefined ? {} : { cidrBlock }),
    ...(ipAddress === undefined ? {} : { ipAddress }),
    ...(awsSecurityGroup === undefined ? {} : { awsSecurityGroup }),
    ...(comment === undefined ? {} : { comment }),
  };
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
  before: AtlasApiKey['roles'] | LooseRoles,
  after: AtlasApiKey['roles'] | LooseRoles,
): InventoryRole[] {
  const had = new Set(normaliseRoles(before).map(roleKey));
  return normaliseRoles(after).filter(
    (role) => OWNER_ROLE_NAMES.includes(role.roleName) && !had.has(roleKey(role)),
  );
}

function normaliseRoles(roles: LooseRoles | AtlasApiKey['roles']): InventoryRole[] {
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
