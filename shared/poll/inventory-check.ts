import type { AtlasClient } from '../atlas/atlas-client.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import type { Logger } from '../logger.js';
import type { Notifier } from '../notify/notifier.js';
import type { RuleEngine } from '../rules/engine.js';
import type { RuleEvaluationError } from '../rules/errors.js';
import { buildInventoryEvent } from '../rules/inventory-events.js';
import type { InventoryApiKeyEntry, InventorySnapshot } from '../state/inventory-snapshot.js';
import type { StateStore } from '../state/state-store.js';
import { type Delivery, deliverAlerts, emptyAlertCounts } from './alert-delivery.js';
import { diffInventory } from './inventory-diff.js';
import type { AlertCounts } from './tick-types.js';

/** Options of {@link checkInventory}. */
export interface CheckInventoryOptions {
  atlas: AtlasClient;
  store: StateStore;
  engine: RuleEngine;
  notifier: Notifier;
  logger: Logger;
  orgId: string;
  /** The snapshot's time, in milliseconds since the epoch. */
  now: number;
  /** Access lists read at once. */
  concurrency: number;
  claimMs: number;
  signal: AbortSignal;
  /** Told of each rule that fails on an inventory event (see `RuleEngine.evaluate`). */
  onRuleError?: (failure: RuleEvaluationError) => void;
}

/** What one inventory check did. */
export interface InventoryCheck {
  status: 'baseline' | 'compared' | 'undelivered';
  apiKeys: number;
  changes: number;
  alerts: AlertCounts;
  /** When the status is `undelivered`: the delivery that left alerts behind. */
  delivery?: Delivery;
}

/**
 * Snapshots an organization's API keys and each key's access list, compares the snapshot with the
 * stored one, and sends every difference through the rules as a synthetic `INVENTORY_*` event, on
 * the same claim, publish and mark path as Atlas events. The first snapshot of an organization is
 * stored as the baseline without alerts.
 *
 * The new snapshot is stored only once every alert of the comparison is settled: until then the
 * next check compares with the same old snapshot, finds the same differences, builds events with the
 * same ids (they derive from the change and the old snapshot's time), and so raises the same alerts,
 * whose records stop those already delivered from going out twice. A snapshot is stored even when
 * nothing changed, so it never expires under a quiet organization. `privateKey` is never kept.
 *
 * @throws The Atlas client's errors (an API key without the rights to list keys gets
 *   AtlasForbiddenError), RuleStateError, and StateStoreError.
 *
 * @example
 * ```ts
 * const check = await checkInventory({ atlas, store, engine, notifier, logger, orgId, now: clock.now(),
 *   concurrency: 4, claimMs: 300_000, signal });
 * ```
 */
export async function checkInventory(options: CheckInventoryOptions): Promise<InventoryCheck> {
  const { atlas, store, orgId, signal } = options;
  const keys = await atlas.listApiKeys(orgId, { signal }).toArray();
  const apiKeys = await mapWithConcurrency(
    keys,
    options.concurrency,
    async ({ privateKey: _secret, ...apiKey }): Promise<InventoryApiKeyEntry> => ({
      apiKey,
      accessList: await atlas.listApiKeyAccessList(orgId, apiKey.id, { signal }).toArray(),
    }),
  );
  const current: InventorySnapshot = { orgId, takenAt: options.now, apiKeys };
  const previous = await store.readInventory({ orgId });
  if (previous === undefined) {
    await store.writeInventory({ snapshot: current });
    options.logger.info('inventory baseline stored', { orgId, apiKeys: apiKeys.length });
    return { status: 'baseline', apiKeys: apiKeys.length, changes: 0, alerts: emptyAlertCounts() };
  }
  const changes = diffInventory({ previous, current });
  const events = changes.map((change) =>
    buildInventoryEvent(change, { orgId, snapshotAt: current.takenAt, previousSnapshotAt: previous.takenAt }),
  );
  const alerts =
    events.length === 0 ? [] : await options.engine.evaluate(events, { onRuleError: options.onRuleError });
  const delivery = await deliverAlerts({
    alerts,
    store,
    notifier: options.notifier,
    claimMs: options.claimMs,
    signal,
    logger: options.logger,
    source: `org:${orgId}`,
  });
  if (!delivery.settled) {
    return {
      status: 'undelivered',
      apiKeys: apiKeys.length,
      changes: changes.length,
      alerts: delivery.counts,
      delivery,
    };
  }
  await store.writeInventory({ snapshot: current });
  return { status: 'compared', apiKeys: apiKeys.length, changes: changes.length, alerts: delivery.counts };
}
