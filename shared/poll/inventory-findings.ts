import {
  INVENTORY_EVENT_TYPES,
  type InventoryChange,
  type InventoryEntry,
  type InventoryOpeningChange,
} from '../rules/inventory-events.js';
import { isPublicRange, parseIpRange } from '../rules/ip-range.js';
import type { InventoryScope, InventorySnapshot } from '../state/inventory-snapshot.js';
import {
  accessListEntryKey,
  entriesOf,
  holdsOwnerRole,
  inventoryKey,
  inventoryServiceAccount,
} from './inventory-diff.js';
import { postureFindingId } from './posture-finding-id.js';

/** The widest prefix an access-list entry may have before it counts as open to the internet. */
const WIDE_PREFIX = { ipv4: 16, ipv6: 48 } as const;

/** Which parts of a snapshot to look at: those no earlier snapshot held, for baseline findings. */
export interface FindingParts {
  apiKeys: boolean;
  serviceAccounts: boolean;
  projectAccessList: boolean;
}

/** A part of a snapshot a posture problem lives in. */
export type SnapshotPart = keyof FindingParts;

const ALL_PARTS: FindingParts = { apiKeys: true, serviceAccounts: true, projectAccessList: true };

/** Something wrong in an inventory snapshot, as long as it stays so. */
export interface PostureProblem {
  /** Its stable id (see `postureFindingId`): the `postureFinding` of its events. */
  id: string;
  part: SnapshotPart;
  /**
   * The change that reports it: what the first snapshot raises as a baseline finding, and what the
   * comparison of two snapshots reports when the problem appears.
   */
  opening: InventoryOpeningChange;
}

/**
 * The posture problems of a snapshot, each with its stable id, API keys by id first, then service
 * accounts by client id, then project entries, each holder's entries in the order listed:
 *
 * - an access-list entry of a key, a service account or a project that is open to the internet (a
 *   public range of /16 or wider for IPv4, /48 or wider for IPv6, as `0.0.0.0/0`), or whose address
 *   cannot be read as an address or range at all (`0.0.0.0 /0`, `[::]/0`: what Atlas makes of it is
 *   unknown), opened by an entry added;
 * - a key or a service account holding an owner role with no access list at all, opened by
 *   `…_WITHOUT_ACCESS_LIST` (anyone with its credentials can own the organization from anywhere).
 *
 * Only the `parts` asked for (all by default), and only those the snapshot holds.
 *
 * @example
 * ```ts
 * postureProblems(snapshot).map((problem) => problem.id);
 * // ['org/5f…/api-key/5f…/access-list/0.0.0.0%2F0', 'org/5f…/service-account/mdb_sa_id_…/owner-without-access-list']
 * ```
 */
export function postureProblems(
  snapshot: InventorySnapshot,
  parts: FindingParts = ALL_PARTS,
): PostureProblem[] {
  const openings: { part: SnapshotPart; opening: InventoryOpeningChange }[] = [];
  if (parts.apiKeys) {
    for (const { apiKey, accessList } of [...snapshot.apiKeys].sort(byString((entry) => entry.apiKey.id))) {
      const subject = inventoryKey(apiKey);
      const entries = [...entriesOf(accessList).values()];
      for (const entry of entries) {
        openings.push({
          part: 'apiKeys',
          opening: { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey: subject, entry },
        });
      }
      if (entries.length === 0) {
        openings.push({
          part: 'apiKeys',
          opening: { type: INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList, apiKey: subject },
        });
      }
    }
  }
  if (parts.serviceAccounts) {
    const accounts = [...(snapshot.serviceAccounts ?? [])].sort(
      byString((entry) => entry.serviceAccount.clientId),
    );
    for (const { serviceAccount, accessList } of accounts) {
      const subject = inventoryServiceAccount(serviceAccount, snapshot.orgId);
      const entries = [...entriesOf(accessList).values()];
      for (const entry of entries) {
        openings.push({
          part: 'serviceAccounts',
          opening: {
            type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
            serviceAccount: subject,
            entry,
          },
        });
      }
      if (entries.length === 0) {
        openings.push({
          part: 'serviceAccounts',
          opening: { type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList, serviceAccount: subject },
        });
      }
    }
  }
  const groupId = snapshot.groupId;
  if (parts.projectAccessList && groupId !== undefined) {
    for (const entry of entriesOf(snapshot.projectAccessList ?? []).values()) {
      openings.push({
        part: 'projectAccessList',
        opening: { type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded, groupId, entry },
      });
    }
  }
  const problems: PostureProblem[] = [];
  for (const { part, opening } of openings) {
    const id = postureFindingOf(opening, snapshot);
    if (id !== undefined) problems.push({ id, part, opening });
  }
  return problems;
}

/**
 * The stable id of the posture problem an inventory change opens, or `undefined` when it opens none:
 * an entry added that is open to the internet or not an address, or a key or service account
 * without an access list that holds an owner role. The one test both the problems of a snapshot and
 * the events of a comparison go through, so they always agree.
 *
 * @example
 * ```ts
 * postureFindingOf({ type: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED', apiKey: { id: 'k1' }, entry: { cidrBlock: '0.0.0.0/0' } }, { orgId: 'o1' });
 * // 'org/o1/api-key/k1/access-list/0.0.0.0%2F0'
 * ```
 */
export function postureFindingOf(change: InventoryChange, scope: InventoryScope): string | undefined {
  switch (change.type) {
    case INVENTORY_EVENT_TYPES.accessListEntryAdded:
    case INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded:
    case INVENTORY_EVENT_TYPES.projectAccessListEntryAdded: {
      const entry = accessListEntryKey(change.entry);
      if (entry === undefined || !isPostureProblem(change.entry)) return undefined;
      if ('groupId' in change)
        return postureFindingId({ groupId: change.groupId }, { kind: 'project-entry', entry });
      return 'apiKey' in change
        ? postureFindingId(scope, { kind: 'api-key', id: change.apiKey.id, entry })
        : postureFindingId(scope, { kind: 'service-account', id: change.serviceAccount.clientId, entry });
    }
    case INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList:
      return holdsOwnerRole(change.apiKey.roles)
        ? postureFindingId(scope, { kind: 'api-key', id: change.apiKey.id })
        : undefined;
    case INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList:
      return holdsOwnerRole(change.serviceAccount.roles)
        ? postureFindingId(scope, { kind: 'service-account', id: change.serviceAccount.clientId })
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The baseline findings of a snapshot: the posture problems (see {@link postureProblems}) of the
 * parts no earlier snapshot held, as the changes the inventory events are built from (each is then
 * marked `preExisting`). Everything else of a first snapshot is the baseline: later snapshots report
 * changes from it.
 *
 * @example
 * ```ts
 * const findings = baselineFindings(snapshot, { apiKeys: true, serviceAccounts: true, projectAccessList: false });
 * ```
 */
export function baselineFindings(snapshot: InventorySnapshot, parts: FindingParts): InventoryOpeningChange[] {
  return postureProblems(snapshot, parts).map((problem) => problem.opening);
}

/**
 * Whether an access-list entry lets in a large part of the internet: a public range at least as
 * wide as a /16 (IPv4) or a /48 (IPv6). The rule pack's `cidr_public` and `cidr_at_least_as_wide_as`
 * draw the same line.
 *
 * @example
 * ```ts
 * isOpenToInternet({ cidrBlock: '0.0.0.0/0' }); // true
 * isOpenToInternet({ cidrBlock: '10.0.0.0/8' }); // false: private
 * ```
 */
export function isOpenToInternet(entry: InventoryEntry): boolean {
  const text = entry.cidrBlock ?? entry.ipAddress;
  const range = typeof text === 'string' ? parseIpRange(text) : undefined;
  return range !== undefined && range.prefix <= WIDE_PREFIX[range.kind] && isPublicRange(range);
}

/**
 * Whether an access-list entry names an address (its CIDR block, or else its IP address) that cannot
 * be read as an IP address or CIDR block, such as `0.0.0.0 /0`, `000.000.000.000/0` or `0/0`. An
 * entry with no address (an AWS security group) is not.
 *
 * @example
 * ```ts
 * hasUnreadableAddress({ cidrBlock: '0.0.0.0/0.0.0.0' }); // true
 * hasUnreadableAddress({ awsSecurityGroup: 'sg-0123' }); // false
 * ```
 */
export function hasUnreadableAddress(entry: InventoryEntry): boolean {
  const text = entry.cidrBlock ?? entry.ipAddress;
  return typeof text === 'string' && text.trim() !== '' && parseIpRange(text) === undefined;
}

/** Whether an entry makes a posture problem: open to the internet, or not an address at all. */
function isPostureProblem(entry: InventoryEntry): boolean {
  return isOpenToInternet(entry) || hasUnreadableAddress(entry);
}

function byString<T>(keyOf: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
}
