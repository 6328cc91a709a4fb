import type { AtlasClient } from '../atlas/atlas-client.js';
import { AtlasNotFoundError } from '../atlas/errors.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Logger } from '../logger.js';
import type { Notifier } from '../notify/notifier.js';
import type { RuleEngine } from '../rules/engine.js';
import type { FirstSeenStateError, RuleEvaluationError } from '../rules/errors.js';
import { buildInventoryEvent, INVENTORY_EVENT_TYPES } from '../rules/inventory-events.js';
import {
  describeInventoryScope,
  type InventoryApiKeyEntry,
  type InventoryScope,
  type InventoryServiceAccountEntry,
  type InventorySnapshot,
} from '../state/inventory-snapshot.js';
import type { StateStore } from '../state/state-store.js';
import { type AlertDestination, type Delivery, deliverAlerts } from './alert-delivery.js';
import type { AlertDescriber } from './alert-describer.js';
import { DEFAULT_MAX_INVENTORY_ENTRIES, InventoryReadBudget } from './inventory-budget.js';
import { diffInventory } from './inventory-diff.js';
import { postureFindingOf, postureProblems } from './inventory-findings.js';
import type { PollSource } from './poll-source.js';
import { openFindingsSince, resolvedProblems } from './posture-resolutions.js';
import type { AlertCounts } from './tick-types.js';

/** Options of {@link checkInventory}. */
export interface CheckInventoryOptions {
  atlas: AtlasClient;
  store: StateStore;
  engine: RuleEngine;
  notifier: Notifier;
  /** Destinations delivered beside the notifier (see `AlertDestination`). Default: none. */
  destinations?: readonly AlertDestination[];
  logger: Logger;
  /**
   * Whose inventory: `{ orgId }` snapshots the organization's API keys and service accounts with
   * their access lists, `{ groupId }` the project's IP access list.
   */
  scope: InventoryScope;
  /** The snapshot's time, in milliseconds since the epoch. */
  now: number;
  /** Access lists read at once. */
  concurrency: number;
  /**
   * Entries the inventory may hold (keys, service accounts, access-list entries): past it, or past as
   * many pages in one list as those entries need, the inventory fails with
   * InventoryBudgetExceededError. Default 20,000.
   */
  maxEntries?: number;
  claimMs: number;
  signal: AbortSignal;
  /**
   * Raise baseline findings (what is already wrong) from the parts of a snapshot no earlier snapshot
   * held. Default `true`; `false` stores them silently as the baseline.
   */
  baselineFindings?: boolean;
  /** Told of each rule that fails on an inventory event (see `RuleEngine.evaluate`). */
  onRuleError?: (failure: RuleEvaluationError) => void;
  /** Told of each first-seen record the store did not keep (see `RuleEngine.evaluate`). */
  onStateError?: (failure: FirstSeenStateError) => void;
  /** Names and key details for the alerts, the snapshot just taken included. */
  describer?: { describer: AlertDescriber; source: PollSource };
}

/** What one inventory check did. */
export interface InventoryCheck {
  /** `baseline`: the first snapshot of the source; `compared`: compared with the stored one. */
  status: 'baseline' | 'compared' | 'undelivered';
  apiKeys: number;
  /** Service accounts in the snapshot; undefined when not read (a project, or a deployment without them). */
  serviceAccounts?: number;
  /** Entries of the project's IP access list; undefined for an organization. */
  projectEntries?: number;
  /** Differences from the stored snapshot, each one synthetic `INVENTORY_*` event. */
  changes: number;
  /** Baseline findings raised (see `baselineFindings`). */
  findings: number;
  /**
   * Posture problems of the stored snapshot that the new one no longer holds, each one synthetic
   * `INVENTORY_FINDING_RESOLVED` event.
   */
  resolved: number;
  /** Resources the deployment does not have (it answered 404), skipped this time. */
  skipped: string[];
  /**
   * Entries Atlas listed that could not be read and were left out (an access-list entry that is not
   * an object), and parts of entries left out (a role that is not an object): the rest of the
   * inventory is compared as usual.
   */
  invalidEntries: number;
  alerts: AlertCounts;
  /** What each further destination took, by its name. */
  destinations: Record<string, AlertCounts>;
  /** When the status is `undelivered`: the delivery that left alerts behind. */
  delivery?: Delivery;
}

/**
 * Snapshots an inventory, compares it with the stored one, and sends every difference through the
 * rules as a synthetic `INVENTORY_*` event, on the same claim, publish and mark path as Atlas
 * events. An organization's inventory is its API keys and service accounts with each one's access
 * list; a project's is its IP access list. Service accounts exist only on Atlas: a deployment that
 * answers 404 for them (Ops Manager, the legacy API) is skipped with one log line, never an error.
 *
 * The first snapshot of a source, and a part of a snapshot no earlier one held, raise baseline
 * findings (`baselineFindings`): one alert for each thing already wrong, marked `preExisting`; after
 * that only changes alert. `baselineFindings: false` stores the first snapshot silently.
 *
 * Posture findings have a life: every event that opens a posture problem (see `postureProblems`)
 * carries its stable id in `postureFinding`; each problem of the stored snapshot that the new one no
 * longer holds becomes one `INVENTORY_FINDING_RESOLVED` event with the same id; a problem that comes
 * back is reported again by the comparison, under the same id: reopened. The snapshot keeps when each
 * problem was first found, for the `openSince` of its resolution.
 *
 * The new snapshot is stored only once every alert of the comparison is settled: until then the
 * next check compares with the same old snapshot, finds the same differences, builds events with the
 * same ids (they derive from the change and the old snapshot's time), and so raises the same alerts,
 * whose records stop those already delivered from going out twice. A snapshot is stored even when
 * nothing changed, so it never expires under a quiet source. `privateKey` and service-account
 * secrets are never kept.
 *
 * Each list is read within a budget (see `InventoryReadBudget`): an endless list fails the inventory
 * with InventoryBudgetExceededError rather than the function's memory.
 *
 * @throws The Atlas client's errors (an API key without the rights to list keys gets
 *   AtlasForbiddenError), InventoryBudgetExceededError, RuleStateError, and StateStoreError.
 *
 * @example
 * ```ts
 * const check = await checkInventory({ atlas, store, engine, notifier, logger, scope: { orgId },
 *   now: clock.now(), concurrency: 4, claimMs: 300_000, signal });
 * ```
 */
export async function checkInventory(options: CheckInventoryOptions): Promise<InventoryCheck> {
  const { store, scope } = options;
  const skipped: string[] = [];
  const budget = new InventoryReadBudget({
    scope: describeInventoryScope(scope),
    maxEntries: options.maxEntries ?? DEFAULT_MAX_INVENTORY_ENTRIES,
  });
  const current = await readSnapshot(options, budget, skipped);
  if (budget.dropped > 0) {
    options.logger.warn('inventory entries that cannot be read were left out; the rest is compared', {
      scope: describeInventoryScope(scope),
      invalidEntries: budget.dropped,
    });
  }
  const previous = await store.readInventory(scope);
  const parts = {
    apiKeys: previous === undefined && scope.orgId !== undefined,
    serviceAccounts: current.serviceAccounts !== undefined && previous?.serviceAccounts === undefined,
    projectAccessList: current.projectAccessList !== undefined && previous?.projectAccessList === undefined,
  };
  const findings = options.baselineFindings === false ? [] : postureProblems(current, parts);
  const changes = previous === undefined ? [] : diffInventory({ previous, current });
  const resolved = previous === undefined ? [] : resolvedProblems({ previous, current });
  const context = {
    ...(scope.orgId === undefined ? {} : { orgId: scope.orgId }),
    ...(scope.groupId === undefined ? {} : { groupId: scope.groupId }),
    snapshotAt: current.takenAt,
  };
  const compared = { ...context, previousSnapshotAt: previous?.takenAt };
  const events = [
    ...findings.map((problem) =>
      buildInventoryEvent(problem.opening, { ...context, preExisting: true, postureFinding: problem.id }),
    ),
    ...changes.map((change) =>
      buildInventoryEvent(change, { ...compared, postureFinding: postureFindingOf(change, scope) }),
    ),
    ...resolved.map(({ problem, resolution, found }) =>
      buildInventoryEvent(
        {
          type: INVENTORY_EVENT_TYPES.findingResolved,
          postureFinding: problem.id,
          opening: problem.opening,
          resolution,
          firstFoundAt: found.foundAt,
          ...(found.preExisting === true ? { foundPreExisting: true } : {}),
        },
        compared,
      ),
    ),
  ];
  const counts = {
    status: previous === undefined ? ('baseline' as const) : ('compared' as const),
    apiKeys: current.apiKeys.length,
    ...(current.serviceAccounts === undefined ? {} : { serviceAccounts: current.serviceAccounts.length }),
    ...(current.projectAccessList === undefined ? {} : { projectEntries: current.projectAccessList.length }),
    changes: changes.length,
    findings: findings.length,
    resolved: resolved.length,
    skipped,
    invalidEntries: budget.dropped,
  };
  const described = options.describer;
  if (described !== undefined) described.describer.useSnapshot(current);
  const alerts =
    events.length === 0
      ? []
      : await options.engine.evaluate(events, {
          onRuleError: options.onRuleError,
          onStateError: options.onStateError,
          ...(described === undefined
            ? {}
            : { describe: (event) => described.describer.describe(event, described.source) }),
        });
  const delivery = await deliverAlerts({
    alerts,
    store,
    notifier: options.notifier,
    ...(options.destinations === undefined ? {} : { destinations: options.destinations }),
    claimMs: options.claimMs,
    signal: options.signal,
    logger: options.logger,
    source: scope.orgId === undefined ? `project:${scope.groupId}` : `org:${scope.orgId}`,
  });
  if (!delivery.settled) {
    return {
      ...counts,
      status: 'undelivered',
      alerts: delivery.counts,
      destinations: delivery.destinations,
      delivery,
    };
  }
  await store.writeInventory({
    snapshot: { ...current, openFindings: openFindingsSince({ previous, current }) },
  });
  if (previous === undefined) {
    options.logger.info('inventory baseline stored', {
      scope: describeInventoryScope(scope),
      apiKeys: counts.apiKeys,
      serviceAccounts: counts.serviceAccounts,
      projectEntries: counts.projectEntries,
      findings: findings.length,
    });
  }
  return { ...counts, alerts: delivery.counts, destinations: delivery.destinations };
}

/** Reads the inventory of the scope from Atlas, noting in `skipped` each resource it answered 404 for. */
async function readSnapshot(
  options: CheckInventoryOptions,
  budget: InventoryReadBudget,
  skipped: string[],
): Promise<InventorySnapshot> {
  const { atlas, scope, signal, logger } = options;
  const takenAt = options.now;
  if (scope.groupId !== undefined) {
    const path = `/groups/${scope.groupId}/accessList`;
    const projectAccessList = await unlessMissing(
      () => budget.readAll(atlas.listProjectAccessList(scope.groupId, { signal }), `GET ${path}`),
      path,
      skipped,
      logger,
    );
    return {
      groupId: scope.groupId,
      takenAt,
      apiKeys: [],
      ...(projectAccessList === undefined ? {} : { projectAccessList }),
    };
  }
  const orgId = scope.orgId;
  const keys = await budget.readAll(atlas.listApiKeys(orgId, { signal }), `GET /orgs/${orgId}/apiKeys`);
  const apiKeys = await mapWithConcurrency(
    keys,
    options.concurrency,
    async ({ privateKey: _secret, ...apiKey }): Promise<InventoryApiKeyEntry> => ({
      apiKey,
      accessList: await budget.readAll(
        atlas.listApiKeyAccessList(orgId, apiKey.id, { signal }),
        `GET /orgs/${orgId}/apiKeys/${apiKey.id}/accessList`,
      ),
    }),
  );
  const accountsPath = `/orgs/${orgId}/serviceAccounts`;
  const accounts = await unlessMissing(
    () => budget.readAll(atlas.listServiceAccounts(orgId, { signal }), `GET ${accountsPath}`),
    accountsPath,
    skipped,
    logger,
  );
  const serviceAccounts =
    accounts === undefined
      ? undefined
      : await mapWithConcurrency(
          accounts,
          options.concurrency,
          async (serviceAccount): Promise<InventoryServiceAccountEntry> => ({
            serviceAccount,
            accessList: await budget.readAll(
              atlas.listServiceAccountAccessList(orgId, serviceAccount.clientId, { signal }),
              `GET ${accountsPath}/${serviceAccount.clientId}/accessList`,
            ),
          }),
        );
  return { orgId, takenAt, apiKeys, ...(serviceAccounts === undefined ? {} : { serviceAccounts }) };
}

/**
 * Runs `read`, or, when the deployment answers 404 for the resource (Ops Manager has no service
 * accounts), logs one line and returns `undefined`: a resource the deployment lacks is not an error.
 */
async function unlessMissing<T>(
  read: () => Promise<T>,
  path: string,
  skipped: string[],
  logger: Logger,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof AtlasNotFoundError)) throw error;
    skipped.push(path);
    logger.info('inventory resource not available on this deployment; skipped', {
      path,
      errorCode: error.errorCode,
    });
    return undefined;
  }
}
