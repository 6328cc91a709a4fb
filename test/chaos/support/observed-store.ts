import type {
  CounterIncrement,
  CounterIncrementOptions,
  SuppressionIncrement,
} from '../../../shared/rules/counter-store.js';
import type { FirstSeenRecord, FirstSeenWriteFailures } from '../../../shared/rules/first-seen-store.js';
import type { SuppressionAnswer } from '../../../shared/rules/suppression-roll-up.js';
import type {
  AcquireLeaseOptions,
  AlertClaimOptions,
  AlertClaimResult,
  CachedName,
  ClaimAlertOptions,
  ClaimAlertsOptions,
  CommitCursorOptions,
  CreateMissingCursorsOptions,
  InventorySnapshot,
  LeaseAcquisition,
  MarkAlertsSentOptions,
  ReadInventoryOptions,
  ReadNamesOptions,
  ReadSourceTimesOptions,
  ReleaseLeaseOptions,
  RenewLeaseOptions,
  SourceLease,
  SourceReport,
  SourceTimes,
  StateStore,
  StateStoreStats,
  WriteInventoryOptions,
  WriteNamesOptions,
} from '../../../shared/state/index.js';

/** A planned outage: when the store is called for the `atCall`-th time, `stop` runs first. */
interface PlannedStop {
  atCall: number;
  stop: () => Promise<void>;
}

/**
 * The state store port around a real store: passes every call through unchanged, and lets the chaos
 * run watch and break it. It reports each cursor commit that succeeded (to check the watermark
 * against what was published), remembers the alerts whose `markAlertSent` failed (the one window in
 * which an alert may be sent twice), and can stop the database at a chosen call: it then waits for the
 * calls already in flight to settle, runs `stop`, and only then lets that call and the later ones
 * through, so the same seed always breaks the store at the same point.
 */
export class ObservedStore implements StateStore {
  readonly #inner: StateStore;
  readonly #inflight = new Set<Promise<unknown>>();
  #planned: PlannedStop | undefined;
  #gate: Promise<void> | undefined;
  /** Calls made so far, of every method. */
  calls = 0;
  /** Whether the planned stop has run. */
  stopped = false;
  /** Fingerprints whose `markAlertSent` rejected. */
  readonly markFailures = new Set<string>();
  /** Told after each cursor commit the store accepted. */
  onCommit: ((source: string, watermark: number) => void) | undefined;

  constructor(inner: StateStore) {
    this.#inner = inner;
  }

  /** Stops the database when the store is next called for the `atCall`-th time. */
  planStop(atCall: number, stop: () => Promise<void>): void {
    this.#planned = { atCall, stop };
  }

  /** Drops a planned stop that has not run. */
  cancelStop(): void {
    this.#planned = undefined;
  }

  /** Whether a planned stop is still waiting for its call. */
  get stopPending(): boolean {
    return this.#planned !== undefined;
  }

  acquireLease(options: AcquireLeaseOptions): Promise<LeaseAcquisition> {
    return this.#call(() => this.#inner.acquireLease(options));
  }

  renewLease(options: RenewLeaseOptions): Promise<SourceLease> {
    return this.#call(() => this.#inner.renewLease(options));
  }

  async commitCursor(options: CommitCursorOptions): Promise<void> {
    await this.#call(() => this.#inner.commitCursor(options));
    this.onCommit?.(options.lease.source, options.watermark);
  }

  async createMissingCursors(options: CreateMissingCursorsOptions): Promise<string[]> {
    const created = await this.#call(() => this.#inner.createMissingCursors(options));
    for (const { source, watermark } of options.cursors) {
      if (created.includes(source)) this.onCommit?.(source, watermark);
    }
    return created;
  }

  readSourceTimes(options: ReadSourceTimesOptions): Promise<Map<string, SourceTimes>> {
    return this.#call(() => this.#inner.readSourceTimes(options));
  }

  listSourceReports(): Promise<SourceReport[]> {
    return this.#call(() => this.#inner.listSourceReports());
  }

  releaseLease(options: ReleaseLeaseOptions): Promise<boolean> {
    return this.#call(() => this.#inner.releaseLease(options));
  }

  claimAlert(options: ClaimAlertOptions): Promise<AlertClaimResult> {
    return this.#call(() => this.#inner.claimAlert(options));
  }

  claimAlerts(options: ClaimAlertsOptions): Promise<AlertClaimResult[]> {
    return this.#call(() => this.#inner.claimAlerts(options));
  }

  async markAlertsSent(options: MarkAlertsSentOptions): Promise<void> {
    try {
      await this.#call(() => this.#inner.markAlertsSent(options));
    } catch (error) {
      // Batches before the failing one may be recorded: count every claim of the call as failed.
      for (const claim of options.claims) this.markFailures.add(claim.fingerprint);
      throw error;
    }
  }

  async markAlertSent(options: AlertClaimOptions): Promise<void> {
    try {
      await this.#call(() => this.#inner.markAlertSent(options));
    } catch (error) {
      this.markFailures.add(options.claim.fingerprint);
      throw error;
    }
  }

  releaseAlertClaim(options: AlertClaimOptions): Promise<void> {
    return this.#call(() => this.#inner.releaseAlertClaim(options));
  }

  readInventory(options: ReadInventoryOptions): Promise<InventorySnapshot | undefined> {
    return this.#call(() => this.#inner.readInventory(options));
  }

  writeInventory(options: WriteInventoryOptions): Promise<boolean> {
    return this.#call(() => this.#inner.writeInventory(options));
  }

  readNames(options: ReadNamesOptions): Promise<Map<string, CachedName>> {
    return this.#call(() => this.#inner.readNames(options));
  }

  writeNames(options: WriteNamesOptions): Promise<void> {
    return this.#call(() => this.#inner.writeNames(options));
  }

  increment(key: string, member: string, options: CounterIncrementOptions): Promise<number> {
    return this.#call(() => this.#inner.increment(key, member, options));
  }

  incrementMany(increments: readonly CounterIncrement[]): Promise<number[]> {
    return this.#call(() => this.#inner.incrementMany(increments));
  }

  suppressMany(steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]> {
    return this.#call(() => this.#inner.suppressMany(steps));
  }

  get(key: string, now: number): Promise<number> {
    return this.#call(() => this.#inner.get(key, now));
  }

  readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> {
    return this.#call(() => this.#inner.readFirstSeen(keys));
  }

  writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures> {
    return this.#call(() => this.#inner.writeFirstSeen(records));
  }

  stats(): StateStoreStats {
    return this.#inner.stats();
  }

  resetStats(): void {
    this.#inner.resetStats();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #call<T>(send: () => Promise<T>): Promise<T> {
    this.calls += 1;
    const planned = this.#planned;
    if (planned !== undefined && this.calls >= planned.atCall) {
      this.#planned = undefined;
      const pending = [...this.#inflight];
      this.#gate = Promise.allSettled(pending)
        .then(() => planned.stop())
        .then(() => {
          this.stopped = true;
          this.#gate = undefined;
        });
    }
    if (this.#gate !== undefined) await this.#gate;
    const request = send();
    this.#inflight.add(request);
    const forget = (): void => {
      this.#inflight.delete(request);
    };
    request.then(forget, forget);
    return request;
  }
}
