import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type {
  CounterIncrement,
  CounterIncrementOptions,
  SuppressionIncrement,
} from '../rules/counter-store.js';
import {
  type FirstSeenRecord,
  type FirstSeenWriteFailures,
  firstSeenRecordProblem,
} from '../rules/first-seen-store.js';
import type { SuppressionAnswer } from '../rules/suppression-roll-up.js';
import { type AlertHour, addAlertHours } from './alert-hours.js';
import { writeFileAtomic } from './atomic-file.js';
import { applyCounterIncrements, counterMember, incrementsByKey } from './counter-increments.js';
import type { ClaimDeliveryOptions, DeliveryClaim, DeliveryClaimStore } from './delivery-claims.js';
import {
  type AppendDigestEntriesOptions,
  boundDigestEntry,
  type ClaimDigestOptions,
  compareDigestEntries,
  type DigestClaimOptions,
  type DigestClaimResult,
  type DigestEntries,
  type DigestEntry,
  type DigestPeriodOptions,
  type DigestStore,
  readStoredDigestEntries,
} from './digest-store.js';
import {
  LeaseLostError,
  StateFileCorruptError,
  StateItemRefusedError,
  StateStoreClosedError,
} from './errors.js';
import { firstSeenTtlSeconds, isExpired, nowSeconds, ttlSeconds } from './expiry.js';
import { acquireFileLock, type FileLock } from './file-lock.js';
import { FILE_STATE_VERSION, type FileStateDocument, fileStateSchema } from './file-state-format.js';
import {
  describeInventoryScope,
  type InventorySnapshot,
  inventoryKeyOf,
  parseInventorySnapshot,
  withoutPrivateKeys,
} from './inventory-snapshot.js';
import { truncateUtf8 } from './item-size.js';
import { type ResolvedRetention, resolveRetention, type StateRetention } from './retention.js';
import { SeenIdSet } from './seen-id-set.js';
import { MAX_ERROR_MESSAGE_CHARS, MAX_NAME_BYTES, sourceReport } from './source-report.js';
import type {
  AcquireLeaseOptions,
  AlertClaimOptions,
  AlertClaimResult,
  CachedName,
  ClaimAlertOptions,
  ClaimAlertsOptions,
  CommitCursorOptions,
  CreateMissingCursorsOptions,
  LeaseAcquisition,
  MarkAlertsSentOptions,
  ReadInventoryOptions,
  ReadNamesOptions,
  ReadSourceTimesOptions,
  ReleaseLeaseOptions,
  RenewLeaseOptions,
  SourceCursor,
  SourceError,
  SourceErrorInput,
  SourceLease,
  SourceReport,
  SourceTimes,
  StateStore,
  StateStoreStats,
  WriteInventoryOptions,
  WriteNamesOptions,
} from './state-store.js';
import { applyStoredSuppressions, suppressionsByKey } from './suppression-records.js';

/** Options of {@link FileStateStore.open}. */
export interface FileStateStoreOptions extends StateRetention {
  /** The state file; created, with its folder, when missing. Its lock is `<path>.lock`. */
  path: string;
  clock?: Clock;
  /** Receives the warning when a stale lock is taken over. */
  logger?: Logger;
}

interface SourceRecord {
  /** The connection that polls it, when it is not `default`. */
  connection?: string;
  /** When a worker last took the lease, in milliseconds since the epoch. */
  polledAt?: number;
  lastError?: SourceError;
  alertHours?: AlertHour[];
  lease?: { owner: string; token: string; expiresAt: number };
  cursor?: { watermark: number; seenIds: SeenIdSet; inventoryTakenAt?: number };
}

interface AlertRecord {
  status: 'IN_PROGRESS' | 'SENT';
  claimToken?: string;
  claimExpiresAt?: number;
  sentAt?: number;
  /** Epoch seconds. */
  expiresAt: number;
}

interface CounterRecord {
  members: Set<string>;
  /** On the engine's clock, in milliseconds. */
  windowExpiresAt: number;
  /** Epoch seconds, on the wall clock. */
  expiresAt: number;
  /** A suppression key's roll-ups as JSON (see `suppressMany`). */
  rollUp?: unknown;
}

/** A first-seen record and its TTL (epoch seconds; `undefined` for never). */
interface FileFirstSeenEntry {
  record: FirstSeenRecord;
  ttl: number | undefined;
}

interface InventoryRecord {
  /** Parsed JSON, narrowed when read. */
  snapshot: unknown;
  /** Epoch seconds. */
  expiresAt: number;
}

/**
 * The state store for local runs: one JSON file, rewritten whole and atomically (temporary file,
 * fsync, rename) after every change, and locked for the life of the store so that two runs cannot
 * share it. While the lock is held this process is the file's only writer, so the state lives in
 * memory and each change resolves once the file holds it; changes made while a write is under way
 * share the next one.
 *
 * Same semantics as the DynamoDB store, checked by the same contract tests: leases with fencing,
 * expiry in epoch seconds, expired records treated as absent (and dropped at the next write).
 *
 * @example
 * ```ts
 * const store = await FileStateStore.open({ path: '.atlas-audit-alerts/state.json', logger });
 * try {
 *   const acquisition = await store.acquireLease({ source: 'org:5f4e…', owner: 'cli', durationMs: 300_000 });
 * } finally {
 *   await store.close();
 * }
 * ```
 */
export class FileStateStore implements StateStore, DeliveryClaimStore, DigestStore {
  /** The state file, as an absolute path. */
  readonly path: string;
  readonly #clock: Clock;
  readonly #retention: ResolvedRetention;
  readonly #lock: FileLock;
  readonly #sources: Map<string, SourceRecord>;
  readonly #alerts: Map<string, AlertRecord>;
  readonly #counters: Map<string, CounterRecord>;
  readonly #inventories: Map<string, InventoryRecord>;
  readonly #firstSeen: Map<string, FileFirstSeenEntry>;
  readonly #names: Map<string, CachedName>;
  /** Delivery claims by key: the claim's token and its expiry in epoch seconds. */
  readonly #deliveries: Map<string, { claimToken: string; expiresAt: number }>;
  /** Pending digest entries by `route\nperiod`, each by fingerprint, with the TTL of the whole period's list. */
  /** Pending digests; `unreadable` holds, as stored, entries that are not ones this program wrote, until the digest is sent. */
  readonly #digests: Map<
    string,
    {
      entries: Map<string, DigestEntry>;
      unreadable: Array<{ value: unknown; problem: string }>;
      expiresAt: number;
    }
  >;
  /** Claims on digests by `route\nperiod`. */
  readonly #digestClaims: Map<string, AlertRecord>;
  readonly #requests = new Map<string, number>();
  #version = 0;
  #writtenVersion = 0;
  #writing: Promise<void> | undefined;
  #closed = false;

  private constructor(options: {
    path: string;
    clock: Clock;
    retention: ResolvedRetention;
    lock: FileLock;
    document: FileStateDocument;
  }) {
    this.path = options.path;
    this.#clock = options.clock;
    this.#retention = options.retention;
    this.#lock = options.lock;
    const { document } = options;
    this.#sources = new Map(document.sources.map((record) => [record.source, sourceFromDocument(record)]));
    // The lock is exclusive: every lease in the file was taken by a run that is gone (it exited
    // without freeing it, or was killed). Free them now, rather than wait for them to lapse.
    for (const record of this.#sources.values()) delete record.lease;
    this.#alerts = new Map(
      document.alerts.map(({ fingerprint, ...record }) => [fingerprint, alertFromDocument(record)]),
    );
    this.#counters = new Map(
      document.counters.map(({ key, members, windowExpiresAt, expiresAt, rollUp }) => [
        key,
        {
          members: new Set(members),
          windowExpiresAt,
          expiresAt,
          ...(rollUp === undefined ? {} : { rollUp }),
        },
      ]),
    );
    this.#names = new Map(
      (document.names ?? []).map(({ key, name, resolvedAt, nameExpiresAt }) => [
        key,
        { key, name, resolvedAt, expiresAt: nameExpiresAt },
      ]),
    );
    this.#deliveries = new Map(
      (document.deliveries ?? []).map(({ key, claimToken, expiresAt }) => [key, { claimToken, expiresAt }]),
    );
    this.#digests = new Map(
      (document.digests ?? []).map(({ route, period, entries, expiresAt }) => {
        const where = `${options.path} (digest ${route} ${period})`;
        const unreadable: Array<{ value: unknown; problem: string }> = [];
        const parsed = entries.flatMap((value) => {
          const read = readStoredDigestEntries([{ value, where }]);
          const problem = read.unreadable[0];
          if (problem !== undefined) unreadable.push({ value, problem });
          return read.entries;
        });
        return [
          digestKey(route, period),
          { entries: new Map(parsed.map((entry) => [entry.fingerprint, entry])), unreadable, expiresAt },
        ];
      }),
    );
    this.#digestClaims = new Map(
      (document.digestClaims ?? []).map(({ route, period, ...record }) => [
        digestKey(route, period),
        alertFromDocument(record),
      ]),
    );
    this.#inventories = new Map(
      document.inventories.map(({ orgId, snapshot, expiresAt }) => [orgId, { snapshot, expiresAt }]),
    );
    this.#firstSeen = new Map(
      (document.firstSeen ?? []).map(({ key, values, windowExpiresAt, startedAt, expiresAt }) => [
        key,
        {
          record: {
            values: Object.fromEntries(
              values.map(([value, first, last, by]) => [value, { first, last, by }]),
            ),
            expiresAt: windowExpiresAt,
            ...(startedAt === undefined ? {} : { startedAt }),
          },
          ttl: expiresAt,
        },
      ]),
    );
  }

  /**
   * Locks the state file and loads it (a missing file is an empty state).
   *
   * @throws StateFileLockedError when another live process holds the file; the message names the file
   * and the pid.
   * @throws StateFileCorruptError when the file is not a state file this program wrote; it is left
   * untouched and the message says what to do.
   */
  static async open(options: FileStateStoreOptions): Promise<FileStateStore> {
    const path = resolve(options.path);
    const retention = resolveRetention(options);
    await mkdir(dirname(path), { recursive: true });
    const lock = await acquireFileLock({ guardedPath: path, logger: options.logger ?? silentLogger });
    try {
      const document = await loadDocument(path);
      return new FileStateStore({ path, clock: options.clock ?? systemClock, retention, lock, document });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  async acquireLease(options: AcquireLeaseOptions): Promise<LeaseAcquisition> {
    this.#count('acquireLease');
    this.#assertOpen();
    const now = this.#clock.now();
    const record = this.#sources.get(options.source) ?? {};
    if (record.lease !== undefined && record.lease.expiresAt > now) {
      return { acquired: false, owner: record.lease.owner, expiresAt: record.lease.expiresAt };
    }
    const lease: SourceLease = {
      source: options.source,
      owner: options.owner,
      token: randomUUID(),
      expiresAt: now + options.durationMs,
    };
    record.lease = { owner: lease.owner, token: lease.token, expiresAt: lease.expiresAt };
    if (options.connection === undefined) delete record.connection;
    else record.connection = options.connection;
    this.#sources.set(options.source, record);
    await this.#persist();
    return {
      acquired: true,
      lease,
      cursor: cursorOf(record),
      ...(record.lastError === undefined ? {} : { lastError: { ...record.lastError } }),
    };
  }

  async renewLease(options: RenewLeaseOptions): Promise<SourceLease> {
    this.#count('renewLease');
    const record = this.#heldBy(options.lease, 'renew');
    const expiresAt = this.#clock.now() + options.durationMs;
    record.lease = { owner: options.lease.owner, token: options.lease.token, expiresAt };
    await this.#persist();
    return { ...options.lease, expiresAt };
  }

  async commitCursor(options: CommitCursorOptions): Promise<void> {
    this.#count('commitCursor');
    const record = this.#heldBy(options.lease, 'commit the cursor of');
    const inventoryTakenAt = options.inventoryTakenAt ?? record.cursor?.inventoryTakenAt;
    record.cursor = {
      watermark: options.watermark,
      seenIds: SeenIdSet.from(options.seenIds),
      ...(inventoryTakenAt === undefined ? {} : { inventoryTakenAt }),
    };
    if (options.polled ?? true) record.polledAt = this.#clock.now();
    if (options.release ?? true) delete record.lease;
    this.#recordTurn(record, options);
    await this.#persist();
  }

  /** A turn's alerts added to the hourly counts; its error recorded, or without one the last cleared. */
  #recordTurn(record: SourceRecord, options: { alertsSent?: number; error?: SourceErrorInput }): void {
    const now = this.#clock.now();
    const sent = options.alertsSent ?? 0;
    if (sent > 0) record.alertHours = addAlertHours(record.alertHours ?? [], now, sent);
    if (options.error === undefined) delete record.lastError;
    else
      record.lastError = {
        at: now,
        code: options.error.code,
        message: options.error.message.slice(0, MAX_ERROR_MESSAGE_CHARS),
      };
  }

  async listSourceReports(): Promise<SourceReport[]> {
    this.#count('listSourceReports');
    this.#assertOpen();
    return reportsOf(
      [...this.#sources].map(([source, record]) => ({ source, ...record })),
      this.#clock.now(),
    );
  }

  /**
   * The reports of a state file read without its lock, so a running `run --every` that holds it
   * need not stop: the file is always replaced whole (atomic rename), so a reader sees one state.
   * A missing file has no sources.
   *
   * @throws StateFileCorruptError when the file is not a state file this program wrote.
   * @example
   * ```ts
   * const reports = await FileStateStore.readSourceReports({ path: '.atlas-audit-alerts/state.json' });
   * ```
   */
  static async readSourceReports(options: { path: string; clock?: Clock }): Promise<SourceReport[]> {
    const document = await loadDocument(resolve(options.path));
    const now = (options.clock ?? systemClock).now();
    return reportsOf(
      document.sources.map((record) => ({ ...sourceFromDocument(record), source: record.source })),
      now,
    );
  }

  async readSourceTimes(options: ReadSourceTimesOptions): Promise<Map<string, SourceTimes>> {
    this.#count('readSourceTimes');
    this.#assertOpen();
    const times = new Map<string, SourceTimes>();
    for (const source of options.sources) {
      const record = this.#sources.get(source);
      if (record === undefined) continue;
      const watermark = record.cursor?.watermark;
      times.set(source, {
        ...(record.polledAt === undefined ? {} : { polledAt: record.polledAt }),
        ...(watermark === undefined ? {} : { watermark }),
      });
    }
    return times;
  }

  async createMissingCursors(options: CreateMissingCursorsOptions): Promise<string[]> {
    this.#count('createMissingCursors');
    this.#assertOpen();
    const created: string[] = [];
    for (const { source, watermark } of options.cursors) {
      const record = this.#sources.get(source) ?? {};
      if (record.cursor !== undefined) continue;
      record.cursor = { watermark, seenIds: SeenIdSet.from([]) };
      this.#sources.set(source, record);
      created.push(source);
    }
    if (created.length > 0) await this.#persist();
    return created;
  }

  async releaseLease(options: ReleaseLeaseOptions): Promise<boolean> {
    this.#count('releaseLease');
    this.#assertOpen();
    const record = this.#sources.get(options.lease.source);
    if (record?.lease?.token !== options.lease.token) return false;
    delete record.lease;
    if (options.polled ?? false) record.polledAt = this.#clock.now();
    // A release without an error leaves a recorded one alone: only a commit is a turn that went well.
    if (options.error !== undefined || (options.alertsSent ?? 0) > 0) this.#recordTurn(record, options);
    await this.#persist();
    return true;
  }

  async claimAlert(options: ClaimAlertOptions): Promise<AlertClaimResult> {
    this.#count('claimAlert');
    this.#assertOpen();
    const result = this.#claim(options.fingerprint, options.claimMs, this.#clock.now());
    if (result.outcome === 'claimed') await this.#persist();
    return result;
  }

  /** The claims of all the alerts in memory, then one write of the file. */
  async claimAlerts(options: ClaimAlertsOptions): Promise<AlertClaimResult[]> {
    this.#count('claimAlerts');
    this.#assertOpen();
    const now = this.#clock.now();
    const results = options.fingerprints.map((fingerprint) => this.#claim(fingerprint, options.claimMs, now));
    if (results.some((result) => result.outcome === 'claimed')) await this.#persist();
    return results;
  }

  async markAlertSent(options: AlertClaimOptions): Promise<void> {
    this.#count('markAlertSent');
    this.#assertOpen();
    this.#markSent(options.claim.fingerprint, this.#clock.now());
    await this.#persist();
  }

  /** The records of all the claims in memory, then one write of the file. */
  async markAlertsSent(options: MarkAlertsSentOptions): Promise<void> {
    this.#count('markAlertsSent');
    this.#assertOpen();
    if (options.claims.length === 0) return;
    const now = this.#clock.now();
    for (const claim of options.claims) this.#markSent(claim.fingerprint, now);
    await this.#persist();
  }

  #claim(fingerprint: string, claimMs: number, now: number): AlertClaimResult {
    const existing = this.#liveAlert(fingerprint, now);
    if (existing?.status === 'SENT') return { outcome: 'sent', sentAt: existing.sentAt ?? 0 };
    if (existing !== undefined && (existing.claimExpiresAt ?? 0) > now) {
      return { outcome: 'in-progress', claimExpiresAt: existing.claimExpiresAt ?? 0 };
    }
    const claim = { fingerprint, token: randomUUID(), expiresAt: now + claimMs };
    this.#alerts.set(fingerprint, {
      status: 'IN_PROGRESS',
      claimToken: claim.token,
      claimExpiresAt: claim.expiresAt,
      expiresAt: ttlSeconds(claim.expiresAt + this.#retention.alertRetentionMs),
    });
    return { outcome: 'claimed', claim, tookOver: existing !== undefined };
  }

  #markSent(fingerprint: string, now: number): void {
    this.#alerts.set(fingerprint, {
      status: 'SENT',
      sentAt: now,
      expiresAt: ttlSeconds(now + this.#retention.alertRetentionMs),
    });
  }

  async releaseAlertClaim(options: AlertClaimOptions): Promise<void> {
    this.#count('releaseAlertClaim');
    this.#assertOpen();
    const existing = this.#alerts.get(options.claim.fingerprint);
    if (existing?.status !== 'IN_PROGRESS' || existing.claimToken !== options.claim.token) return;
    this.#alerts.delete(options.claim.fingerprint);
    await this.#persist();
  }

  async claimDelivery(options: ClaimDeliveryOptions): Promise<DeliveryClaim | undefined> {
    this.#count('claimDelivery');
    this.#assertOpen();
    const now = this.#clock.now();
    const existing = this.#deliveries.get(options.key);
    if (existing !== undefined && existing.expiresAt > nowSeconds(now)) return undefined;
    const expiresAt = ttlSeconds(now + options.holdMs);
    const claim = { key: options.key, token: randomUUID(), expiresAt: expiresAt * 1000 };
    this.#deliveries.set(options.key, { claimToken: claim.token, expiresAt });
    await this.#persist();
    return claim;
  }

  async releaseDelivery(claim: DeliveryClaim): Promise<void> {
    this.#count('releaseDelivery');
    this.#assertOpen();
    if (this.#deliveries.get(claim.key)?.claimToken !== claim.token) return;
    this.#deliveries.delete(claim.key);
    await this.#persist();
  }

  async appendDigestEntries(options: AppendDigestEntriesOptions): Promise<DigestEntry[]> {
    this.#count('appendDigestEntries');
    this.#assertOpen();
    if (options.entries.length === 0) return [];
    const now = this.#clock.now();
    const key = digestKey(options.route, options.period);
    if (this.#liveDigestClaim(key, now) !== undefined) return [...options.entries];
    const pending = this.#digests.get(key) ?? {
      entries: new Map<string, DigestEntry>(),
      unreadable: [],
      expiresAt: 0,
    };
    for (const entry of options.entries) pending.entries.set(entry.fingerprint, boundDigestEntry(entry));
    pending.expiresAt = ttlSeconds(now + this.#retention.alertRetentionMs);
    this.#digests.set(key, pending);
    await this.#persist();
    return [];
  }

  async listDigestPeriods(options: { route: string }): Promise<string[]> {
    this.#count('listDigestPeriods');
    this.#assertOpen();
    const now = this.#clock.now();
    const periods: string[] = [];
    for (const [key, pending] of this.#digests) {
      const [route, period] = splitDigestKey(key);
      const empty = pending.entries.size === 0 && pending.unreadable.length === 0;
      if (route !== options.route || isExpired(pending.expiresAt, now) || empty) continue;
      if (this.#liveDigestClaim(key, now)?.status === 'SENT') continue;
      periods.push(period);
    }
    return periods.sort();
  }

  async claimDigest(options: ClaimDigestOptions): Promise<DigestClaimResult> {
    this.#count('claimDigest');
    this.#assertOpen();
    const now = this.#clock.now();
    const key = digestKey(options.route, options.period);
    const existing = this.#liveDigestClaim(key, now);
    if (existing?.status === 'SENT') return { outcome: 'sent', sentAt: existing.sentAt ?? 0 };
    if (existing !== undefined && (existing.claimExpiresAt ?? 0) > now) {
      return { outcome: 'in-progress', claimExpiresAt: existing.claimExpiresAt ?? 0 };
    }
    const claim = {
      route: options.route,
      period: options.period,
      token: randomUUID(),
      expiresAt: now + options.claimMs,
    };
    this.#digestClaims.set(key, {
      status: 'IN_PROGRESS',
      claimToken: claim.token,
      claimExpiresAt: claim.expiresAt,
      expiresAt: ttlSeconds(claim.expiresAt + this.#retention.alertRetentionMs),
    });
    await this.#persist();
    return { outcome: 'claimed', claim, tookOver: existing !== undefined };
  }

  async readDigestEntries(options: DigestPeriodOptions): Promise<DigestEntries> {
    this.#count('readDigestEntries');
    this.#assertOpen();
    const pending = this.#digests.get(digestKey(options.route, options.period));
    if (pending === undefined || isExpired(pending.expiresAt, this.#clock.now())) {
      return { entries: [], unreadable: [] };
    }
    return {
      entries: [...pending.entries.values()].sort(compareDigestEntries),
      unreadable: pending.unreadable.map(({ problem }) => problem),
    };
  }

  async markDigestSent(options: DigestClaimOptions): Promise<void> {
    this.#count('markDigestSent');
    this.#assertOpen();
    const now = this.#clock.now();
    const key = digestKey(options.claim.route, options.claim.period);
    this.#digestClaims.set(key, {
      status: 'SENT',
      sentAt: now,
      expiresAt: ttlSeconds(now + this.#retention.alertRetentionMs),
    });
    this.#digests.delete(key);
    await this.#persist();
  }

  async releaseDigestClaim(options: DigestClaimOptions): Promise<void> {
    this.#count('releaseDigestClaim');
    this.#assertOpen();
    const key = digestKey(options.claim.route, options.claim.period);
    const existing = this.#digestClaims.get(key);
    if (existing?.status !== 'IN_PROGRESS' || existing.claimToken !== options.claim.token) return;
    this.#digestClaims.delete(key);
    await this.#persist();
  }

  #liveDigestClaim(key: string, now: number): AlertRecord | undefined {
    const record = this.#digestClaims.get(key);
    return record === undefined || isExpired(record.expiresAt, now) ? undefined : record;
  }

  async readInventory(options: ReadInventoryOptions): Promise<InventorySnapshot | undefined> {
    this.#count('readInventory');
    this.#assertOpen();
    const record = this.#inventories.get(inventoryKeyOf(options));
    if (record === undefined || isExpired(record.expiresAt, this.#clock.now())) return undefined;
    return parseInventorySnapshot(
      record.snapshot,
      `state file ${this.path} (${describeInventoryScope(options)})`,
    );
  }

  async readNames(options: ReadNamesOptions): Promise<Map<string, CachedName>> {
    this.#count('readNames');
    this.#assertOpen();
    const now = this.#clock.now();
    const found = new Map<string, CachedName>();
    for (const key of options.keys) {
      const record = this.#names.get(key);
      if (record !== undefined && record.expiresAt > now) found.set(key, { ...record });
    }
    return found;
  }

  async writeNames(options: WriteNamesOptions): Promise<void> {
    this.#count('writeNames');
    this.#assertOpen();
    if (options.names.length === 0) return;
    for (const entry of options.names) {
      this.#names.set(entry.key, { ...entry, name: truncateUtf8(entry.name, MAX_NAME_BYTES) });
    }
    await this.#persist();
  }

  async writeInventory(options: WriteInventoryOptions): Promise<boolean> {
    this.#count('writeInventory');
    this.#assertOpen();
    const now = this.#clock.now();
    const { snapshot } = options;
    const existing = this.#inventories.get(inventoryKeyOf(snapshot));
    if (
      existing !== undefined &&
      !isExpired(existing.expiresAt, now) &&
      takenAtOf(existing.snapshot) > snapshot.takenAt
    ) {
      return false;
    }
    this.#inventories.set(inventoryKeyOf(snapshot), {
      snapshot: structuredClone(withoutPrivateKeys(snapshot)),
      expiresAt: ttlSeconds(now + this.#retention.inventoryRetentionMs),
    });
    await this.#persist();
    return true;
  }

  async increment(key: string, member: string, options: CounterIncrementOptions): Promise<number> {
    this.#count('increment');
    this.#assertOpen();
    const [count = 0] = await this.#applyIncrements([{ key, member, ...options }]);
    return count;
  }

  /** Applies the increments in memory, key by key, then writes the file once if any set changed. */
  async incrementMany(increments: readonly CounterIncrement[]): Promise<number[]> {
    this.#count('incrementMany');
    this.#assertOpen();
    return this.#applyIncrements(increments);
  }

  async #applyIncrements(increments: readonly CounterIncrement[]): Promise<number[]> {
    const wallNow = this.#clock.now();
    const answers: number[] = new Array(increments.length);
    let changed = false;
    const stored = increments.map((increment) => ({ ...increment, member: counterMember(increment.member) }));
    for (const [key, entries] of incrementsByKey(stored)) {
      const update = applyCounterIncrements(this.#counters.get(key), entries, {
        wallNow,
        graceMs: this.#retention.counterGraceMs,
      });
      entries.forEach((entry, at) => {
        answers[entry.index] = update.answers[at] ?? 0;
      });
      const counter = update.counter;
      if (update.write === 'none' || counter === undefined) continue;
      this.#counters.set(key, {
        members: new Set(counter.members),
        windowExpiresAt: counter.windowExpiresAt,
        // Never undefined here: a set this store started has a TTL.
        expiresAt: counter.expiresAt ?? ttlSeconds(wallNow),
      });
      changed = true;
    }
    if (changed) await this.#persist();
    return answers;
  }

  /** Applies the occurrences in memory, key by key, then writes the file once if any key changed. */
  async suppressMany(steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]> {
    this.#count('suppressMany');
    this.#assertOpen();
    const wallNow = this.#clock.now();
    const answers: SuppressionAnswer[] = new Array(steps.length);
    let changed = false;
    for (const [key, entries] of suppressionsByKey(steps)) {
      const update = applyStoredSuppressions(this.#counters.get(key), entries, {
        wallNow,
        graceMs: this.#retention.counterGraceMs,
      });
      entries.forEach((entry, at) => {
        answers[entry.index] = update.answers[at] as SuppressionAnswer;
      });
      if (update.write === undefined) continue;
      const { rollUp, ...record } = update.write;
      this.#counters.set(key, rollUp === undefined ? record : { ...record, rollUp });
      changed = true;
    }
    if (changed) await this.#persist();
    return answers;
  }

  async get(key: string, now: number): Promise<number> {
    this.#count('get');
    this.#assertOpen();
    const existing = this.#counters.get(key);
    if (
      existing === undefined ||
      existing.windowExpiresAt <= now ||
      isExpired(existing.expiresAt, this.#clock.now())
    ) {
      return 0;
    }
    return existing.members.size;
  }

  async readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> {
    this.#count('readFirstSeen');
    this.#assertOpen();
    const wallNow = this.#clock.now();
    const found = new Map<string, FirstSeenRecord>();
    for (const key of keys) {
      const entry = this.#firstSeen.get(key);
      if (entry === undefined || isExpired(entry.ttl, wallNow)) continue;
      found.set(key, structuredClone(entry.record));
    }
    return found;
  }

  /**
   * Replaces the records in memory, then writes the file once for all of them. A record the DynamoDB
   * store could not hold (see `firstSeenRecordProblem`) is refused alone, as it refuses it.
   */
  async writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures> {
    this.#count('writeFirstSeen');
    this.#assertOpen();
    const failures = new Map<string, Error>();
    if (records.size === 0) return failures;
    const wallNow = this.#clock.now();
    for (const [key, record] of records) {
      const problem = firstSeenRecordProblem(record);
      if (problem !== undefined) {
        failures.set(
          key,
          new StateItemRefusedError(
            `first-seen record ${key} of state file ${this.path} would hold ${problem}: it was not written`,
          ),
        );
        continue;
      }
      if (Object.keys(record.values).length === 0 && record.startedAt === undefined) {
        this.#firstSeen.delete(key);
        continue;
      }
      this.#firstSeen.set(key, {
        record: structuredClone(record),
        ttl: firstSeenTtlSeconds(record.expiresAt, wallNow),
      });
    }
    if (failures.size < records.size) await this.#persist();
    return failures;
  }

  stats(): StateStoreStats {
    const requests = Object.fromEntries(this.#requests);
    return { requests, total: [...this.#requests.values()].reduce((sum, count) => sum + count, 0) };
  }

  resetStats(): void {
    this.#requests.clear();
  }

  /** Writes what is pending, then deletes the lock file. Later calls throw `StateStoreClosedError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#flush();
    } finally {
      this.#closed = true;
      await this.#lock.release();
    }
  }

  #count(operation: string): void {
    this.#requests.set(operation, (this.#requests.get(operation) ?? 0) + 1);
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StateStoreClosedError(`the state store of ${this.path} is closed: open it again to use it`);
    }
  }

  #heldBy(lease: SourceLease, action: string): SourceRecord {
    this.#assertOpen();
    const record = this.#sources.get(lease.source);
    if (record?.lease?.token !== lease.token) {
      throw new LeaseLostError(
        `cannot ${action} source ${lease.source}: the lease of ${lease.owner} was taken over or released; ` +
          'another run now owns the source, and this run must stop working on it',
        { source: lease.source },
      );
    }
    return record;
  }

  #liveAlert(fingerprint: string, now: number): AlertRecord | undefined {
    const record = this.#alerts.get(fingerprint);
    return record === undefined || isExpired(record.expiresAt, now) ? undefined : record;
  }

  /** Marks the state changed and resolves once the file holds this change. */
  #persist(): Promise<void> {
    this.#version += 1;
    return this.#flush();
  }

  async #flush(): Promise<void> {
    while (this.#writtenVersion < this.#version) {
      if (this.#writing !== undefined) {
        await this.#writing;
        continue;
      }
      const version = this.#version;
      const text = JSON.stringify(this.#document(this.#clock.now()));
      this.#count('fileWrite');
      this.#writing = writeFileAtomic(this.path, text)
        .then(() => {
          this.#writtenVersion = Math.max(this.#writtenVersion, version);
        })
        .finally(() => {
          this.#writing = undefined;
        });
      await this.#writing;
    }
  }

  /** The state as stored, without the records that have expired. */
  #document(now: number): FileStateDocument {
    const live = <T extends { expiresAt: number }>(entries: Map<string, T>): Array<[string, T]> =>
      [...entries].filter(([, record]) => !isExpired(record.expiresAt, now));
    const deliveries = live(this.#deliveries).map(([key, record]) => ({ key, ...record }));
    const digests = live(this.#digests).map(([key, { entries, unreadable, expiresAt }]) => {
      const [route, period] = splitDigestKey(key);
      // Unreadable entries are written back as they were, so the file loses nothing it was given.
      return {
        route,
        period,
        entries: [...entries.values(), ...unreadable.map(({ value }) => value)],
        expiresAt,
      };
    });
    const digestClaims = live(this.#digestClaims).map(([key, record]) => {
      const [route, period] = splitDigestKey(key);
      return { route, period, ...record };
    });
    return {
      version: FILE_STATE_VERSION,
      sources: [...this.#sources].map(([source, record]) => ({
        source,
        ...(record.connection === undefined ? {} : { connection: record.connection }),
        ...(record.polledAt === undefined ? {} : { polledAt: record.polledAt }),
        ...(record.lastError === undefined ? {} : { lastError: record.lastError }),
        ...(record.alertHours === undefined
          ? {}
          : { alertHours: record.alertHours.map(({ hour, count }): [number, number] => [hour, count]) }),
        ...(record.lease === undefined ? {} : { lease: record.lease }),
        ...(record.cursor === undefined
          ? {}
          : {
              cursor: {
                watermark: record.cursor.watermark,
                seenIds: [...record.cursor.seenIds],
                ...(record.cursor.inventoryTakenAt === undefined
                  ? {}
                  : { inventoryTakenAt: record.cursor.inventoryTakenAt }),
              },
            }),
      })),
      alerts: live(this.#alerts).map(([fingerprint, record]) => ({ fingerprint, ...record })),
      counters: live(this.#counters).map(([key, record]) => ({
        key,
        members: [...record.members],
        windowExpiresAt: record.windowExpiresAt,
        expiresAt: record.expiresAt,
        ...(record.rollUp === undefined ? {} : { rollUp: record.rollUp }),
      })),
      inventories: live(this.#inventories).map(([orgId, record]) => ({ orgId, ...record })),
      firstSeen: [...this.#firstSeen]
        .filter(([, entry]) => !isExpired(entry.ttl, now))
        .map(([key, { record, ttl }]) => ({
          key,
          values: Object.entries(record.values).map(([value, seen]): [string, number, number, string] => [
            value,
            seen.first,
            seen.last,
            seen.by,
          ]),
          windowExpiresAt: record.expiresAt,
          ...(record.startedAt === undefined ? {} : { startedAt: record.startedAt }),
          ...(ttl === undefined ? {} : { expiresAt: ttl }),
        })),
      names: [...this.#names.values()]
        .filter((record) => record.expiresAt > now)
        .map(({ key, name, resolvedAt, expiresAt }) => ({ key, name, resolvedAt, nameExpiresAt: expiresAt })),
      ...(deliveries.length === 0 ? {} : { deliveries }),
      ...(digests.length === 0 ? {} : { digests }),
      ...(digestClaims.length === 0 ? {} : { digestClaims }),
    };
  }
}

/** The key of a (route, period) in the store's maps: route names never hold a line break. */
function digestKey(route: string, period: string): string {
  return `${route}\n${period}`;
}

function splitDigestKey(key: string): [string, string] {
  const at = key.indexOf('\n');
  return [key.slice(0, at), key.slice(at + 1)];
}

async function loadDocument(path: string): Promise<FileStateDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        version: FILE_STATE_VERSION,
        sources: [],
        alerts: [],
        counters: [],
        inventories: [],
        names: [],
      };
    }
    throw error;
  }
  const remedy =
    'The file was left as it is: restore it from a backup, or move it aside to start afresh (every source ' +
    'then starts again from its initial lookback, and alerts sent recently may be sent again)';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StateFileCorruptError(
      `state file ${path} is not valid JSON (${(error as Error).message}). ${remedy}`,
      { path, cause: error },
    );
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    'version' in value &&
    value.version !== FILE_STATE_VERSION
  ) {
    throw new StateFileCorruptError(
      `state file ${path} has format version ${String(value.version)}, and this program reads version ` +
        `${FILE_STATE_VERSION}: run the version of atlas-audit-alerts that wrote it. ${remedy}`,
      { path },
    );
  }
  const parsed = fileStateSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue === undefined ? '' : ` at ${issue.path.join('.') || 'the top'}: ${issue.message}`;
    throw new StateFileCorruptError(
      `state file ${path} is not a state file this program wrote${at}. ${remedy}`,
      {
        path,
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

function sourceFromDocument(record: FileStateDocument['sources'][number]): SourceRecord {
  const result: SourceRecord = {};
  if (record.connection !== undefined) result.connection = record.connection;
  if (record.polledAt !== undefined) result.polledAt = record.polledAt;
  if (record.lastError !== undefined) result.lastError = record.lastError;
  if (record.alertHours !== undefined) {
    result.alertHours = record.alertHours.map(([hour, count]) => ({ hour, count }));
  }
  if (record.lease !== undefined) result.lease = record.lease;
  if (record.cursor !== undefined) {
    const { watermark, seenIds, inventoryTakenAt } = record.cursor;
    result.cursor = {
      watermark,
      seenIds: SeenIdSet.from(seenIds),
      ...(inventoryTakenAt === undefined ? {} : { inventoryTakenAt }),
    };
  }
  return result;
}

function reportsOf(records: ReadonlyArray<SourceRecord & { source: string }>, now: number): SourceReport[] {
  return records
    .map((record) =>
      sourceReport({
        source: record.source,
        connection: record.connection,
        watermark: record.cursor?.watermark,
        polledAt: record.polledAt,
        leaseOwner: record.lease?.owner,
        leaseExpiresAt: record.lease?.expiresAt,
        lastErrorAt: record.lastError?.at,
        lastErrorCode: record.lastError?.code,
        lastErrorMessage: record.lastError?.message,
        alertHours: record.alertHours ?? [],
        now,
      }),
    )
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}

function alertFromDocument(record: Omit<FileStateDocument['alerts'][number], 'fingerprint'>): AlertRecord {
  const result: AlertRecord = { status: record.status, expiresAt: record.expiresAt };
  if (record.claimToken !== undefined) result.claimToken = record.claimToken;
  if (record.claimExpiresAt !== undefined) result.claimExpiresAt = record.claimExpiresAt;
  if (record.sentAt !== undefined) result.sentAt = record.sentAt;
  return result;
}

function cursorOf(record: SourceRecord): SourceCursor | undefined {
  return record.cursor === undefined ? undefined : { ...record.cursor };
}

function takenAtOf(snapshot: unknown): number {
  if (typeof snapshot === 'object' && snapshot !== null && 'takenAt' in snapshot) {
    return typeof snapshot.takenAt === 'number' ? snapshot.takenAt : Number.NEGATIVE_INFINITY;
  }
  return Number.NEGATIVE_INFINITY;
}
