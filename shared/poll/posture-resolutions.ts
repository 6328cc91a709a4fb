import { INVENTORY_EVENT_TYPES, type InventoryEntry } from '../rules/inventory-events.js';
import type { InventorySnapshot, OpenFinding } from '../state/inventory-snapshot.js';
import { accessListEntryKey, entriesOf, holdsOwnerRole, inventoryServiceAccount } from './inventory-diff.js';
import { type FindingParts, type PostureProblem, postureProblems } from './inventory-findings.js';

/** A posture problem the previous snapshot held and the current one does not. */
export interface ResolvedProblem {
  /** The problem as the previous snapshot held it. */
  problem: PostureProblem;
  /** What fixed it, in words: `the entry was removed from the access list`. */
  resolution: string;
  /** When the inventory first found it. */
  found: OpenFinding;
}

/** Options of {@link resolvedProblems}. */
export interface ResolvedProblemsOptions {
  previous: InventorySnapshot;
  current: InventorySnapshot;
}

/**
 * The posture problems (see `postureProblems`) the previous snapshot held and the current one does
 * not: an entry removed or narrowed, an access list added, an owner role removed, the key or service
 * account deleted. Only parts both snapshots hold are compared: service accounts a deployment stopped
 * answering for, or did not answer for before, resolve nothing.
 *
 * @example
 * ```ts
 * resolvedProblems({ previous, current }).map(({ problem, resolution }) => `${problem.id}: ${resolution}`);
 * // ['org/5f…/api-key/5f…/access-list/0.0.0.0%2F0: the API key was deleted']
 * ```
 */
export function resolvedProblems(options: ResolvedProblemsOptions): ResolvedProblem[] {
  const { previous, current } = options;
  const parts = comparedParts(previous, current);
  const open = new Set(postureProblems(current, parts).map((problem) => problem.id));
  return postureProblems(previous, parts)
    .filter((problem) => !open.has(problem.id))
    .map((problem) => ({
      problem,
      resolution: resolutionOf(problem, current),
      found: foundIn(previous, problem.id),
    }));
}

/** Options of {@link openFindingsSince}. */
export interface OpenFindingsSinceOptions {
  /** The snapshot before, if there is one. */
  previous: InventorySnapshot | undefined;
  /** The snapshot just taken. */
  current: InventorySnapshot;
}

/**
 * When the inventory first found each posture problem of `current`, by id: what the previous
 * snapshot recorded for a problem it held too (its own time, as already there, when it recorded
 * nothing: a snapshot stored before these times were kept); else `current`'s own time, as already
 * there when no earlier snapshot held its part (a first snapshot, service accounts read for the first
 * time), as new otherwise. Stored with the snapshot, so a resolved problem can say since when it had
 * been open.
 *
 * @example
 * ```ts
 * const snapshot = { ...current, openFindings: openFindingsSince({ previous, current }) };
 * ```
 */
export function openFindingsSince(options: OpenFindingsSinceOptions): Record<string, OpenFinding> {
  const { previous, current } = options;
  const parts = previous === undefined ? undefined : comparedParts(previous, current);
  const held =
    previous === undefined || parts === undefined
      ? new Set<string>()
      : new Set(postureProblems(previous, parts).map((problem) => problem.id));
  const since: Record<string, OpenFinding> = {};
  for (const { id, part } of postureProblems(current)) {
    const found: OpenFinding =
      previous !== undefined && held.has(id)
        ? foundIn(previous, id)
        : parts?.[part] === true
          ? { foundAt: current.takenAt }
          : { foundAt: current.takenAt, preExisting: true };
    // Ids start with `org/` or `project/`: never a name Object.prototype holds.
    since[id] = found;
  }
  return since;
}

/** The latest time a Date can hold, in milliseconds since the epoch. */
const MAX_DATE_MS = 8.64e15;

/** When `snapshot` says the inventory first found a problem it holds: its own time, as already there, when it does not say. */
function foundIn(snapshot: InventorySnapshot, id: string): OpenFinding {
  const recorded =
    snapshot.openFindings !== undefined && Object.hasOwn(snapshot.openFindings, id)
      ? snapshot.openFindings[id]
      : undefined;
  // A time no Date can hold, or one after the snapshot (a state file edited by hand), is not believed.
  const foundAt = recorded?.foundAt;
  if (
    recorded === undefined ||
    foundAt === undefined ||
    !Number.isSafeInteger(foundAt) ||
    foundAt < 0 ||
    foundAt > Math.min(snapshot.takenAt, MAX_DATE_MS)
  ) {
    return { foundAt: snapshot.takenAt, preExisting: true };
  }
  return recorded.preExisting === true ? { foundAt, preExisting: true } : { foundAt };
}

/** The parts of two snapshots that can be compared: those both of them hold. */
function comparedParts(previous: InventorySnapshot, current: InventorySnapshot): FindingParts {
  return {
    apiKeys: previous.orgId !== undefined && previous.orgId === current.orgId,
    serviceAccounts: previous.serviceAccounts !== undefined && current.serviceAccounts !== undefined,
    projectAccessList: previous.projectAccessList !== undefined && current.projectAccessList !== undefined,
  };
}

/** What fixed a problem, read off the current snapshot. */
function resolutionOf(problem: PostureProblem, current: InventorySnapshot): string {
  const opening = problem.opening;
  switch (opening.type) {
    case INVENTORY_EVENT_TYPES.projectAccessListEntryAdded:
      return entryResolution(opening.entry, current.projectAccessList ?? [], "the project's IP access list");
    case INVENTORY_EVENT_TYPES.accessListEntryAdded:
    case INVENTORY_EVENT_TYPES.apiKeyWithoutAccessList: {
      const key = current.apiKeys.find((entry) => entry.apiKey.id === opening.apiKey.id);
      if (key === undefined) return 'the API key was deleted';
      return 'entry' in opening
        ? entryResolution(opening.entry, key.accessList, "the key's access list")
        : ownerResolution(key.accessList.length > 0, holdsOwnerRole(key.apiKey.roles));
    }
    case INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded:
    case INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList: {
      const account = (current.serviceAccounts ?? []).find(
        (entry) => entry.serviceAccount.clientId === opening.serviceAccount.clientId,
      );
      if (account === undefined) return 'the service account was deleted';
      return 'entry' in opening
        ? entryResolution(opening.entry, account.accessList, "the service account's access list")
        : ownerResolution(
            account.accessList.length > 0,
            holdsOwnerRole(inventoryServiceAccount(account.serviceAccount, current.orgId).roles),
          );
    }
  }
}

function entryResolution(
  entry: InventoryEntry,
  accessList: readonly InventoryEntry[],
  where: string,
): string {
  const key = accessListEntryKey(entry);
  return key !== undefined && entriesOf(accessList).has(key)
    ? 'the entry no longer reads as open to the internet'
    : `the entry was removed from ${where}`;
}

function ownerResolution(hasAccessList: boolean, holdsOwner: boolean): string {
  if (hasAccessList && !holdsOwner) return 'an access list was added and the owner role was removed';
  return hasAccessList ? 'an access list was added' : 'the owner role was removed';
}
