import type { CounterStore } from '../rules/counter-store.js';
import type { FirstSeenStore } from '../rules/first-seen-store.js';
import type { InventoryScope, InventorySnapshot } from './inventory-snapshot.js';
import type { SeenIdSet } from './seen-id-set.js';

/**
 * What a poll tick keeps between runs, behind one port with two implementations that pass the same
 * contract tests: DynamoDB (the Lambda) and a local JSON file (the CLI).
 *
 * A tick for one source costs two store calls when nothing new happened: {@link acquireLease} (takes the
 * lease and returns the cursor in one round trip) and {@link commitCursor} with `release: true` (moves
 * the cursor and frees the source in one round trip, only if the lease is still the caller's).
 *
 * The store is also the rule engine's {@link CounterStore} (`increment` and `get`: threshold and
 * suppression state) and its {@link FirstSeenStore} (`readFirstSeen` and `writeFirstSeen`: the values
 * first-seen rules saw, read and written once per batch of events).
 *
 * Every time comes from the store's injected clock, except the counters' `now` and `expiresAt`, which
 * are on the rule engine's clock (event time). Items past their expiry are treated as absent by the
 * store itself: DynamoDB deletes expired items days late, DynamoDB Local never does.
 */
export interface StateStore extends CounterStore, FirstSeenStore {
  /**
   * Takes the lease on `source` for `durationMs`, if nobody else holds a live one, and returns the
   * source's cursor with it. A lease past its expiry is taken over.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  acquireLease(options: AcquireLeaseOptions): Promise<LeaseAcquisition>;

  /**
   * Extends a held lease to `durationMs` from now, and returns the renewed lease.
   *
   * @throws LeaseLostError when the lease is no longer the caller's.
   */
  renewLease(options: RenewLeaseOptions): Promise<SourceLease>;

  /**
   * Moves the source's cursor, only if the lease is still the caller's (fencing: a worker whose lease
   * was taken over can never move a cursor). With `release` (the default), frees the source in the same
   * write; without it, keeps the lease for the next window of a backlog.
   *
   * @throws LeaseLostError when the lease is no longer the caller's; nothing was written.
   */
  commitCursor(options: CommitCursorOptions): Promise<void>;

  /**
   * The times a tick orders its sources by, for each listed source the store has a record of: when a
   * worker last finished a turn on it (a commit, or a release marked `polled`) and its committed
   * watermark. A source missing
   * from the result has never been polled and has no cursor. One read for many sources (DynamoDB:
   * `BatchGetItem`, 100 keys a request, keys left unprocessed asked for again).
   *
   * @throws StateStoreRequestError when the store cannot be reached, or keeps leaving keys unprocessed.
   */
  readSourceTimes(options: ReadSourceTimesOptions): Promise<Map<string, SourceTimes>>;

  /**
   * Gives each listed source that has no cursor one at its `watermark`, with no seen ids, and leaves
   * alone every source that has one. Takes no lease: it only ever creates a cursor, and a worker in a
   * source's first walk replaces it with its own commit. Returns the sources it gave a cursor.
   *
   * A tick calls it for the sources it never reached (cut short by the deadline, or the store failed
   * before their lease), so a new source's first walk starts where it would have started on the first
   * tick that named it, not later on each tick that runs out of time first.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  createMissingCursors(options: CreateMissingCursorsOptions): Promise<string[]>;

  /**
   * Frees the source without moving its cursor (the tick failed). Returns `false` when the lease was
   * no longer the caller's, so there was nothing to free; never throws for that, so it can run in a
   * `finally` without hiding the first error.
   */
  releaseLease(options: ReleaseLeaseOptions): Promise<boolean>;

  /**
   * Claims the alert with this fingerprint before publishing it: creates an IN_PROGRESS record that
   * holds for `claimMs`, or takes over an IN_PROGRESS record whose claim expired. Tells apart an alert
   * already SENT (skip it) and one another worker is publishing now (do not move past it).
   */
  claimAlert(options: ClaimAlertOptions): Promise<AlertClaimResult>;

  /**
   * {@link claimAlert} for many alerts (distinct fingerprints) at once, one result per fingerprint in
   * order: DynamoDB claims up to 100 in one `TransactWriteItems`.
   *
   * @throws StateStoreRequestError when the store cannot be reached; claims already taken expire.
   */
  claimAlerts(options: ClaimAlertsOptions): Promise<AlertClaimResult[]>;

  /**
   * {@link markAlertSent} for many claims at once: DynamoDB records up to 100 in one
   * `TransactWriteItems`.
   *
   * @throws StateStoreRequestError when the store cannot be reached; the claims of a batch not
   * recorded stay IN_PROGRESS until they expire, and the alerts may then be sent again.
   */
  markAlertsSent(options: MarkAlertsSentOptions): Promise<void>;

  /**
   * Records that a claimed alert was published. Any worker that published may record it, even one
   * whose claim was taken over meanwhile: SENT is a fact, not a lock. The record then lives for the
   * store's alert retention, so every re-read of the event inside that time finds it. Its `sentAt` is
   * the time of the last record: two workers publish the same alert only in the publish/mark window.
   */
  markAlertSent(options: AlertClaimOptions): Promise<void>;

  /**
   * Drops a claim whose publish failed, so the next tick can claim the alert again at once rather than
   * after the claim expires. Does nothing when the claim is no longer the caller's or the alert was sent.
   */
  releaseAlertClaim(options: AlertClaimOptions): Promise<void>;

  /**
   * What an operator sees of every source the store has a record of (`atlas-audit-alerts status`):
   * watermark, last poll, live lease, last error and alerts sent in the last day. For a person, not
   * a tick: DynamoDB reads it with a `Scan` of the source items.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  listSourceReports(): Promise<SourceReport[]>;

  /** The organization's (or project's) last inventory snapshot, or `undefined` when there is none (or it expired). */
  readInventory(options: ReadInventoryOptions): Promise<InventorySnapshot | undefined>;

  /**
   * Stores an organization's (or project's) inventory snapshot, with every `privateKey` removed, unless a newer one
   * (a later `takenAt`) is already stored. Returns whether it was stored.
   */
  writeInventory(options: WriteInventoryOptions): Promise<boolean>;

  /**
   * The organization and project names cached for alerts, for each listed key the store holds a live
   * record of (`org:<id>`, `project:<id>`). One read for many keys (DynamoDB: `BatchGetItem`).
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  readNames(options: ReadNamesOptions): Promise<Map<string, CachedName>>;

  /**
   * Keeps names resolved from Atlas until their `expiresAt`, replacing what was kept under the same keys.
   * A name is kept to its first 512 UTF-8 bytes.
   *
   * @throws StateStoreRequestError when the store cannot be reached.
   */
  writeNames(options: WriteNamesOptions): Promise<void>;

  /** Requests (DynamoDB) or operations (file) made so far, by operation: for metrics and benchmarks. */
  stats(): StateStoreStats;

  /** Zeroes {@link stats}. */
  resetStats(): void;

  /**
   * Finishes pending writes and frees what the store holds (the file store's lock). The DynamoDB store
   * leaves its client open: the caller created it and may share it.
   */
  close(): Promise<void>;
}

/** A held lease on a source. Pass it back unchanged to renew, commit or release. */
export interface SourceLease {
  /** The source, as the caller named it (`org:…`, `project:…`). */
  readonly source: string;
  /** Who holds it, for diagnostics (a Lambda request id, `host:pid`). */
  readonly owner: string;
  /** The fencing token: unique to this acquisition; a commit succeeds only while it is still stored. */
  readonly token: string;
  /** When the lease lapses, in milliseconds since the epoch, on the store's clock. */
  readonly expiresAt: number;
}

/** Where a source's polling stands. */
export interface SourceCursor {
  /** The newest event `created` time fully processed, in milliseconds since the epoch. */
  readonly watermark: number;
  /** Ids of the events already processed at or after `watermark − overlap`. */
  readonly seenIds: SeenIdSet;
  /**
   * When the organization's inventory was last snapshotted, in milliseconds since the epoch, if the
   * tick recorded it: lets the tick decide whether a snapshot is due without another read.
   */
  readonly inventoryTakenAt?: number;
}

/** The outcome of {@link StateStore.acquireLease}. */
export type LeaseAcquisition =
  | {
      readonly acquired: true;
      readonly lease: SourceLease;
      /** `undefined` for a source never committed: the tick starts from its initial lookback. */
      readonly cursor: SourceCursor | undefined;
      /** The error the source's last turn recorded, when it failed: what tells a recovery from a new failure. */
      readonly lastError?: SourceError;
    }
  | {
      readonly acquired: false;
      /** Who holds the live lease. */
      readonly owner: string;
      /** When that lease lapses, in milliseconds since the epoch. */
      readonly expiresAt: number;
    };

export interface AcquireLeaseOptions {
  source: string;
  /** Who asks, for diagnostics. */
  owner: string;
  /**
   * The connection that polls the source, recorded on it for `status`; absent for the connection
   * `default` (and a record of another is then removed).
   */
  connection?: string | undefined;
  /** How long the lease holds: at least the time a tick may take (the function's timeout). */
  durationMs: number;
}

export interface RenewLeaseOptions {
  lease: SourceLease;
  durationMs: number;
}

export interface CommitCursorOptions {
  lease: SourceLease;
  /** The newest `created` fully processed, in milliseconds since the epoch. */
  watermark: number;
  /** Ids processed at or after `watermark − overlap`: the ones the next tick will read again. */
  seenIds: Iterable<string>;
  /** When the organization's inventory was snapshotted, if it was this tick; kept as it was when absent. */
  inventoryTakenAt?: number;
  /** Free the source in the same write. Default `true`. */
  release?: boolean;
  /**
   * Record now as the source's last poll (see {@link StateStore.readSourceTimes}). Default `true`:
   * a commit is progress. `false` for a cursor committed only to keep where a walk that did no work
   * (cut short by the deadline) started, so the source keeps its place at the front of the next tick.
   */
  polled?: boolean;
  /** Alerts published for the source since the lease was taken or last committed: added to its day's count. */
  alertsSent?: number;
  /**
   * Why the source's turn failed, recorded as its last error in the same write. Absent: the turn
   * went well, and a recorded error is cleared.
   */
  error?: SourceErrorInput;
}

/** What a source's failed turn records (never a credential: messages are the tick's own). */
export interface SourceErrorInput {
  /** Atlas's `errorCode`, or the error's own `code`. */
  readonly code: string;
  /** What happened and what to do. */
  readonly message: string;
}

/** A source's last error, as recorded. */
export interface SourceError extends SourceErrorInput {
  /** When it was recorded, in milliseconds since the epoch. */
  readonly at: number;
}

/** What `status` shows of one source. */
export interface SourceReport {
  /** `org:<id>` or `project:<id>`. */
  readonly source: string;
  /** The connection that last polled it, when it is not `default`. */
  readonly connection?: string;
  /** The committed watermark, in milliseconds since the epoch; absent without a cursor. */
  readonly watermark?: number;
  /** When a worker last finished a turn on it; absent if never. */
  readonly polledAt?: number;
  /** The lease, when one is live. */
  readonly lease?: { readonly owner: string; readonly expiresAt: number };
  /** The error of the last turn, when it failed (cleared by the next turn that succeeds). */
  readonly lastError?: SourceError;
  /** Alerts published for the source in the last 24 hours (by the hour: up to an hour more). */
  readonly alertsLastDay: number;
}

export interface ReadSourceTimesOptions {
  sources: readonly string[];
}

/** When a source was last polled and how far its cursor is, for the order of a tick. */
export interface SourceTimes {
  /** When a worker last finished a turn on the source, in milliseconds since the epoch; absent if never. */
  readonly polledAt?: number;
  /** The committed watermark, in milliseconds since the epoch; absent without a cursor. */
  readonly watermark?: number;
}

export interface CreateMissingCursorsOptions {
  /** Each source, with the watermark its cursor gets if it has none. */
  cursors: ReadonlyArray<{ readonly source: string; readonly watermark: number }>;
}

export interface ReleaseLeaseOptions {
  lease: SourceLease;
  /**
   * Record now as the source's last poll: its turn counted (it failed on its own, or another worker
   * was publishing its alert), so it waits behind the others next tick. Default `false`: a source cut
   * short by the deadline before any progress keeps its place at the front.
   */
  polled?: boolean;
  /** Alerts published for the source since the lease was taken or last committed. */
  alertsSent?: number;
  /** Why the turn failed, recorded as the source's last error in the same write. */
  error?: SourceErrorInput;
}

export interface ClaimAlertOptions {
  /** The alert's stable identity. */
  fingerprint: string;
  /** How long the claim holds before another worker may take it over: longer than a publish takes. */
  claimMs: number;
}

export interface ClaimAlertsOptions {
  /** The alerts' stable identities, each once. */
  fingerprints: readonly string[];
  /** How long each claim holds before another worker may take it over. */
  claimMs: number;
}

export interface MarkAlertsSentOptions {
  claims: readonly AlertClaim[];
}

/** A held claim on an alert. */
export interface AlertClaim {
  readonly fingerprint: string;
  /** Unique to this claim. */
  readonly token: string;
  /** When the claim lapses, in milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** The outcome of {@link StateStore.claimAlert}. */
export type AlertClaimResult =
  | {
      readonly outcome: 'claimed';
      readonly claim: AlertClaim;
      /** Whether an expired IN_PROGRESS claim of another worker was taken over (it may have published). */
      readonly tookOver: boolean;
    }
  | {
      readonly outcome: 'sent';
      /** When it was recorded as sent, in milliseconds since the epoch. */
      readonly sentAt: number;
    }
  | {
      readonly outcome: 'in-progress';
      /** When the other worker's claim lapses, in milliseconds since the epoch. */
      readonly claimExpiresAt: number;
    };

export interface AlertClaimOptions {
  claim: AlertClaim;
}

/** Whose snapshot: `{ orgId }` for an organization's, `{ groupId }` for a project's. */
export type ReadInventoryOptions = InventoryScope;

export interface WriteInventoryOptions {
  snapshot: InventorySnapshot;
}

/** An organization's or project's name as resolved from Atlas, kept for alerts. */
export interface CachedName {
  /** `org:<id>`, `project:<id>`, `project-org:<id>`, `team:<orgId>/<id>` or `alert-config:<groupId>/<id>`. */
  readonly key: string;
  /** The name as cleaned for display (never longer than 128 characters). */
  readonly name: string;
  /** When it was read from Atlas, in milliseconds since the epoch. */
  readonly resolvedAt: number;
  /** When it is read from Atlas again, in milliseconds since the epoch; the store drops it then. */
  readonly expiresAt: number;
}

export interface ReadNamesOptions {
  keys: readonly string[];
}

export interface WriteNamesOptions {
  names: readonly CachedName[];
}

/** Requests made by a store, by operation. */
export interface StateStoreStats {
  /** Count per operation name (`UpdateItem`, `GetItem`... for DynamoDB: one per HTTP attempt). */
  readonly requests: Readonly<Record<string, number>>;
  /** Sum over all operations. */
  readonly total: number;
}
