import * as z from 'zod';
import type {
  AtlasAccessListEntry,
  AtlasApiKey,
  AtlasProjectAccessListEntry,
  AtlasServiceAccount,
} from '../atlas/types.js';
import { StateItemCorruptError } from './errors.js';

/** One API key of an organization with its access list, as a snapshot holds it. */
export interface InventoryApiKeyEntry {
  /** The key as the Atlas client returned it; the store never keeps its `privateKey`. */
  apiKey: AtlasApiKey;
  accessList: AtlasAccessListEntry[];
}

/** One service account of an organization with its access list, as a snapshot holds it. */
export interface InventoryServiceAccountEntry {
  /** The account as the Atlas client returned it: never its secrets. */
  serviceAccount: AtlasServiceAccount;
  accessList: AtlasAccessListEntry[];
}

/** When the inventory first found a posture problem that a snapshot holds. */
export interface OpenFinding {
  /** The time of the first snapshot that showed the problem, in milliseconds since the epoch. */
  foundAt: number;
  /**
   * Set when that snapshot found it already there (the first snapshot of a source or of a part of it,
   * or a snapshot stored before these times were kept): the problem may be older.
   */
  preExisting?: true | undefined;
}

/** Whose inventory a snapshot holds: an organization's, or a project's. */
export type InventoryScope = { orgId: string; groupId?: undefined } | { groupId: string; orgId?: undefined };

/**
 * What one inventory holds at one moment: an organization's API keys and service accounts with
 * their access lists, or a project's IP access list. A part left undefined was not read (a
 * deployment without that resource, or a snapshot stored before the part existed): it is neither
 * compared nor reported as removed.
 */
export type InventorySnapshot = InventoryScope & {
  /** When the snapshot was taken, in milliseconds since the epoch. */
  takenAt: number;
  /** The organization's API keys; empty in a project's snapshot. */
  apiKeys: InventoryApiKeyEntry[];
  /** The organization's service accounts. */
  serviceAccounts?: InventoryServiceAccountEntry[] | undefined;
  /** The project's IP access list. */
  projectAccessList?: AtlasProjectAccessListEntry[] | undefined;
  /**
   * When the inventory first found each posture problem the snapshot holds (an entry open to the
   * internet, an owner credential without an access list), by the problem's stable id: what a
   * resolved problem's `openSince` falls back to. Absent in snapshots stored before it was kept.
   */
  openFindings?: Record<string, OpenFinding> | undefined;
};

/**
 * The name a store keeps an inventory under: the organization id, or `group:` and the project id
 * (organization ids never contain a colon, so the two never meet).
 *
 * @example
 * ```ts
 * inventoryKeyOf({ orgId: '5f4e3d2c1b0a998877665544' }); // '5f4e3d2c1b0a998877665544'
 * inventoryKeyOf({ groupId: '5f4e3d2c1b0a998877665545' }); // 'group:5f4e3d2c1b0a998877665545'
 * ```
 */
export function inventoryKeyOf(scope: InventoryScope): string {
  return scope.groupId === undefined ? scope.orgId : `group:${scope.groupId}`;
}

/**
 * Words for a scope in messages: `org 5f…` or `project 5f…`.
 *
 * @example
 * ```ts
 * describeInventoryScope({ groupId: 'g1' }); // 'project g1'
 * ```
 */
export function describeInventoryScope(scope: InventoryScope): string {
  return scope.groupId === undefined ? `org ${scope.orgId}` : `project ${scope.groupId}`;
}

/** The field the store never keeps, at any depth of a snapshot. */
const SECRET_FIELD = 'privateKey';

/**
 * A deep copy of `snapshot` without any `privateKey` field. The Atlas client already masks private
 * keys; the store removes them again so that a change upstream can never put one into the table.
 *
 * @example
 * ```ts
 * withoutPrivateKeys(snapshot).apiKeys[0]?.apiKey.privateKey; // undefined
 * ```
 */
export function withoutPrivateKeys(snapshot: InventorySnapshot): InventorySnapshot {
  return stripSecrets(snapshot) as InventorySnapshot;
}

function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === SECRET_FIELD) continue;
    // Defined as own data properties so that a key named `__proto__` stays data, not a prototype.
    Object.defineProperty(copy, key, {
      value: stripSecrets(field),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

const inventorySnapshotSchema = z
  .object({
    orgId: z.string().optional(),
    groupId: z.string().optional(),
    takenAt: z.number(),
    apiKeys: z.array(
      z.object({
        apiKey: z.looseObject({ id: z.string() }),
        accessList: z.array(z.looseObject({})),
      }),
    ),
    serviceAccounts: z
      .array(
        z.object({
          serviceAccount: z.looseObject({ clientId: z.string() }),
          accessList: z.array(z.looseObject({})),
        }),
      )
      .optional(),
    projectAccessList: z.array(z.looseObject({})).optional(),
    // Only a fallback for messages: times that cannot be read are dropped, never the snapshot.
    openFindings: z
      .record(z.string(), z.object({ foundAt: z.number(), preExisting: z.literal(true).optional() }))
      .optional()
      .catch(undefined),
  })
  .refine((value) => (value.orgId === undefined) !== (value.groupId === undefined), {
    message: 'exactly one of orgId and groupId',
  });

/**
 * Narrows a stored snapshot (parsed JSON) to an {@link InventorySnapshot}, without any `privateKey`.
 *
 * @throws StateItemCorruptError when the value does not have a snapshot's shape; `where` names the
 * item or file in the message.
 *
 * @example
 * ```ts
 * const snapshot = parseInventorySnapshot(JSON.parse(text), 'state.json');
 * ```
 */
export function parseInventorySnapshot(value: unknown, where: string): InventorySnapshot {
  const parsed = inventorySnapshotSchema.safeParse(value);
  if (!parsed.success) {
    throw new StateItemCorruptError(
      `the inventory snapshot in ${where} does not have the expected shape (${parsed.error.issues[0]?.message ?? 'invalid'}): ` +
        'delete it; the next snapshot sets a new baseline',
      { cause: parsed.error },
    );
  }
  return withoutPrivateKeys(parsed.data as InventorySnapshot);
}
