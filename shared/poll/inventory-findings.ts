import type { AtlasApiKey, AtlasServiceAccount } from '../atlas/types.js';
import {
  INVENTORY_EVENT_TYPES,
  type InventoryChange,
  type InventoryEntry,
  OWNER_ROLE_NAMES,
} from '../rules/inventory-events.js';
import { isPublicRange, parseIpRange } from '../rules/ip-range.js';
import type { InventorySnapshot } from '../state/inventory-snapshot.js';
import { entriesOf, inventoryKey, inventoryServiceAccount } from './inventory-diff.js';

/** The widest prefix an access-list entry may have before it counts as open to the internet. */
const WIDE_PREFIX = { ipv4: 16, ipv6: 48 } as const;

/** Which parts of a snapshot are new (never stored before), and so looked at for baseline findings. */
export interface FindingParts {
  apiKeys: boolean;
  serviceAccounts: boolean;
  projectAccessList: boolean;
}

/**
 * The baseline findings of a snapshot: what is already wrong in the parts no earlier snapshot held,
 * as the changes the inventory events are built from (each is then marked `preExisting`):
 *
 * - an access-list entry of a key, a service account or a project that is open to the internet (a
 *   public range of /16 or wider for IPv4, /48 or wider for IPv6, as `0.0.0.0/0`), or whose address
 *   cannot be read as an address or range at all (`0.0.0.0 /0`, `[::]/0`: what Atlas makes of it is
 *   unknown), as an entry added;
 * - a key or a service account holding an owner role with no access list at all, as
 *   `…_WITHOUT_ACCESS_LIST` (anyone with its credentials can own the organization from anywhere).
 *
 * Everything else of a first snapshot is the baseline: later snapshots report changes from it.
 *
 * @example
 * ```ts
 * const findings = baselineFindings(snapshot, { apiKeys: true, serviceAccounts: true, projectAccessList: false });
 * ```
 */
export function baselineFindings(snapshot: InventorySnapshot, parts: FindingParts): InventoryChange[] {
  const findings: InventoryChange[] = [];
  if (parts.apiKeys) {
    for (const { apiKey, accessList } of [...snapshot.apiKeys].sort(byString((entry) => entry.apiKey.id))) {
      const subject = inventoryKey(apiKey);
      const entries = [...entriesOf(accessList).values()];
      for (const entry of entries.filter(isBaselineFinding)) {
        findings.push({ type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey: subject, entry });
      }
      if (entries.length === 0 && holdsOwnerRole(apiKey)) {
        findings.push({ type: INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList, apiKey: subject });
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
      for (const entry of entries.filter(isBaselineFinding)) {
        findings.push({
          type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
          serviceAccount: subject,
          entry,
        });
      }
      if (entries.length === 0 && accountHoldsOwnerRole(serviceAccount)) {
        findings.push({
          type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList,
          serviceAccount: subject,
        });
      }
    }
  }
  const groupId = snapshot.groupId;
  if (parts.projectAccessList && groupId !== undefined) {
    for (const entry of entriesOf(snapshot.projectAccessList ?? []).values()) {
      if (isBaselineFinding(entry)) {
        findings.push({ type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded, groupId, entry });
      }
    }
  }
  return findings;
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

function isBaselineFinding(entry: InventoryEntry): boolean {
  return isOpenToInternet(entry) || hasUnreadableAddress(entry);
}

function holdsOwnerRole(apiKey: AtlasApiKey): boolean {
  return (apiKey.roles ?? []).some(
    (role) => typeof role.roleName === 'string' && OWNER_ROLE_NAMES.includes(role.roleName),
  );
}

function accountHoldsOwnerRole(account: AtlasServiceAccount): boolean {
  return (account.roles ?? []).some((role) => OWNER_ROLE_NAMES.includes(role));
}

function byString<T>(keyOf: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
}
