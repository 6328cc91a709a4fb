import type { AtlasClient } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Severity } from '../notify/alert.js';
import type { DigestPublisher } from '../notify/digest-publisher.js';
import type { Notifier } from '../notify/notifier.js';
import type { RuleEngine } from '../rules/engine.js';
import type { DigestStore } from '../state/digest-store.js';
import type { StateStore } from '../state/state-store.js';
import type { AlertDestination } from './alert-delivery.js';
import type { EffectiveConnection } from './connections.js';
import type { DigestFlush, DigestRoute } from './digest-flush.js';
import type { DiscoveryCache } from './discovery-cache.js';
import type { MetricsSink } from './metrics-sink.js';
import type { NameCache } from './name-cache.js';
import type { PollSource, PollSourceKind } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';

/**
 * What a tick works with. Build them once (per Lambda container, per CLI run) and pass the same
 * objects to every tick: the engine remembers suppressions, the client its digest nonce, the cache
 * the projects it discovered.
 */
export interface TickDependencies {
  /**
   * The Atlas client of the connection `default` (the top-level `atlas` and `sources` settings), or
   * how to get the client of each connection the tick polls: called once per connection and tick,
   * it may read the connection's credentials. A connection whose client cannot be had (the promise
   * rejects; with a lone client, any connection but `default`) fails its own sources, with the
   * error's code, and the other connections are polled as usual.
   */
  atlas: AtlasClient | ConnectionClients;
  /** Where leases, cursors, alert records and inventory snapshots live. */
  store: StateStore;
  /** Built over the same `store` as its counter store, so threshold and suppression state persists. */
  engine: RuleEngine;
  notifier: Notifier;
  /**
   * Destinations delivered beside the notifier, each with claims of its own (an EventBridge bus,
   * Security Hub): an alert is settled once the notifier and every destination that accepts it took
   * it, or said it never can. Default: none.
   */
  destinations?: readonly AlertDestination[];
  /**
   * The routes' digests: at the end of the tick, each digest whose period has ended is sent once
   * (see `flushDigests`). Their entries are appended by their destinations in `destinations`
   * (see `digestDestination`). Default: none.
   */
  digests?: {
    routes: readonly DigestRoute[];
    store: DigestStore;
    publisher: DigestPublisher;
  };
  /** Default: the system clock. Deadlines, windows and lease times are on this clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /**
   * Projects discovered for `sources.allProjectsOfOrgs`, kept across ticks (module scope in the
   * Lambda). Without one, every tick lists the projects again.
   */
  discoveryCache?: DiscoveryCache;
  /**
   * Organization and project names for alerts, kept across ticks (module scope in the Lambda) in
   * front of the state store's copy. Without one, each tick starts with an empty cache.
   */
  names?: NameCache;
  /** Receives the tick's metrics once it ends (see `emitTickMetrics`). */
  metrics?: MetricsSink;
}

/** The Atlas client each connection is polled with (see {@link TickDependencies.atlas}). */
export type ConnectionClients = (connection: EffectiveConnection) => Promise<AtlasClient>;

/** How one tick runs. */
export interface TickOptions {
  config: PollerConfig;
  /** Who takes the leases, for diagnostics: a Lambda request id, `host:pid`. */
  owner: string;
  /**
   * When the tick must be over, in milliseconds since the epoch on the tick's clock (in Lambda:
   * `now + context.getRemainingTimeInMillis()`). No new source, window or page starts once less than
   * `config.timing.deadlineMarginSeconds` remains; Atlas calls still running at half the margin are
   * aborted. Without it the tick runs until every source is done.
   */
  deadline?: number;
  /** Aborts the tick: no new work starts, Atlas calls in flight are aborted, cursors stay where they are. */
  signal?: AbortSignal;
  /**
   * Backfill: read every source from this instant (milliseconds since the epoch), even when its
   * cursor is later. Alerts already sent are not sent again; a cursor never moves back.
   */
  since?: number;
  /** Called as windows and pages are read, for a progress display. Must not throw. */
  onProgress?: (progress: TickProgress) => void;
  /**
   * How long a lease holds. Default: until the deadline plus 10 seconds, or 15 minutes without one.
   * Renewed when a tick runs past half of it.
   */
  leaseMs?: number;
  /** How long an alert claim holds before another worker may take it over. Default 5 minutes. */
  alertClaimMs?: number;
  /**
   * Poll these sources instead of resolving them from `config.sources` (no project discovery): a
   * fan-out worker polls the sources its queue messages name. Each is polled once, whatever repeats.
   */
  sources?: readonly PollSource[];
  /**
   * Sources a push woke (by connection and name): their walks read up to now rather than
   * `now − lag`, so the pushed event, seconds old, is read at once, while their cursors still stop
   * at `now − lag` and the next walks read the rest again (see `SourcePollOptions.readToNow`).
   */
  woken?: readonly PollSource[];
  /**
   * The heap the tick may use, in bytes, that sizes its event budget when `config.maxEventsInMemory`
   * is not set. Default: this process's V8 heap limit.
   */
  heapLimitBytes?: number;
}

/** One step of a tick, for progress displays. */
export interface TickProgress {
  /** `org:<id>` or `project:<id>`. */
  source: string;
  /** The window being read, in milliseconds since the epoch (both ends inclusive). */
  window: { from: number; to: number };
  /** Where the walk of this source ends this tick: `now − lag`, or now for a source a push woke. */
  walkEnd: number;
  /** Pages read in this window so far. */
  pagesRead: number;
  /** Events read in this window so far. */
  eventsRead: number;
  /** Atlas's estimate of the events in the window, when it gave one. */
  totalCount: number | undefined;
}

/**
 * A change of a source's health: `failing` (its turn failed after one that went well),
 * `credentials-refused` (Atlas answered 401 or 403 where it did not before), `recovered` (its turn went
 * well after one that failed).
 */
export type SourceHealth = 'failing' | 'credentials-refused' | 'recovered';

/** How one source's tick ended. */
export type SourceStatus =
  /** Read up to the end of its walk; the cursor moved (or there was nothing to read). */
  | 'ok'
  /** Another worker holds a live lease on it: not an error, that worker polls it. */
  | 'skipped-lease-held'
  /**
   * Stopped before the end of its walk (`reason` says why): the windows it finished are committed,
   * the rest is read again next tick.
   */
  | 'cut-short'
  /** An error stopped it (`errorCode`, `message`); the cursor stays after the last finished window. */
  | 'failed';

/** Why a source was cut short. */
export type CutShortReason =
  /** Less than the deadline margin remained. */
  | 'deadline'
  /** The caller's signal aborted the tick. */
  | 'aborted'
  /** Another worker is publishing one of this window's alerts: its cursor waits until that is settled. */
  | 'alert-in-progress';

/** Alerts of one source or of the whole tick. */
export interface AlertCounts {
  /** Delivered this tick, by severity. */
  published: Record<Severity, number>;
  /** Not delivered this tick, by severity: retryable ones are raised again next tick, permanent ones never. */
  failed: Record<Severity, number>;
  /** Of `failed`, those the notifier says can never be delivered (logged with rule and fingerprint). */
  failedPermanently: number;
  /** Already recorded as sent (an event read again): not sent twice. */
  alreadySent: number;
}

/** How the inventory of an organization (API keys, service accounts) or a project (IP access list) went this tick. */
export interface InventoryOutcome {
  status: /** Not due yet (`timing.inventoryIntervalSeconds`). */
    | 'not-due'
    /** First snapshot of the source: stored as the baseline; only baseline findings alert. */
    | 'baseline'
    /** Compared with the stored snapshot; `changes` differences went through the rules. */
    | 'compared'
    /** Not finished: no time left, the tick was aborted, or another worker is publishing one of its alerts. */
    | 'cut-short'
    /** Atlas or the store failed (`errorCode`, `message`), or an alert of it was not delivered. */
    | 'failed';
  /** API keys in the snapshot (0 for a project). */
  apiKeys: number;
  /** Service accounts in the snapshot, when read. */
  serviceAccounts?: number;
  /** Entries of the project's IP access list, when read. */
  projectEntries?: number;
  /** Differences from the stored snapshot, each one synthetic `INVENTORY_*` event. */
  changes: number;
  /** Baseline findings raised: things already wrong in a first snapshot, marked `preExisting`. */
  findings: number;
  /**
   * Posture findings resolved: problems of the stored snapshot (an entry open to the internet, an
   * owner credential without an access list) gone from the new one, each an `INVENTORY_FINDING_RESOLVED`.
   */
  resolved: number;
  /** Resources the deployment answered 404 for (Ops Manager has no service accounts), skipped. */
  skipped?: string[];
  /**
   * Entries Atlas listed that could not be read (an access-list entry that is not an object, a role
   * that is not an object), left out with a warning while the rest was compared.
   */
  invalidEntries?: number;
  errorCode?: string;
  message?: string;
  /** HTTP status of the Atlas answer that failed the inventory, if any. */
  httpStatus?: number;
}

/** The outcome of one source. */
export interface SourceOutcome {
  /** `org:<id>`, `project:<id>` or `cluster:<project id>:<name>`: the name in the state store. */
  source: string;
  /** The connection that polls it, when it is not `default` (see `PollSource.connection`). */
  connection?: string;
  kind: PollSourceKind;
  /** The org or project id (a cluster's project). */
  id: string;
  /** A cluster's name, for a cluster's access history. */
  cluster?: string;
  status: SourceStatus;
  /** Set when `status` is `cut-short`. */
  reason?: CutShortReason;
  /** Set when `status` is `failed`: Atlas's `errorCode` when it gave one, else the error's own `code`. */
  errorCode?: string;
  /** Set when `status` is `failed`: what happened and what to do; never a credential. */
  message?: string;
  /** HTTP status of the Atlas answer that failed the source, if any. */
  httpStatus?: number;
  /** Set when a 429 failed the source and Atlas said how long to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** Set when `status` is `skipped-lease-held`: who holds the lease and until when. */
  leaseHeldBy?: { owner: string; expiresAt: number };
  /** Windows read to the end and committed. */
  windowsCommitted: number;
  pagesRead: number;
  /** Events read from Atlas, the overlap included. */
  eventsFetched: number;
  /** Events not processed before. */
  eventsNew: number;
  /**
   * Rule evaluations that failed on an event of this source (a rule that threw on it, or an event
   * that could not be evaluated): each is logged, the event is skipped for that rule only, and the
   * walk goes on.
   */
  ruleErrors: number;
  /**
   * First-seen records of this source's groups the state store did not keep (see
   * `FirstSeenStateError`): each is logged, that group's events raise no first-seen alert this time,
   * and every other rule and group goes on.
   */
  firstSeenStateErrors: number;
  alerts: AlertCounts;
  /** What each destination beside the notifier took, by its name, when there are any. */
  destinations?: Record<string, AlertCounts>;
  /** The source's watermark after the tick, when its cursor was read. */
  watermark?: number;
  /** How its health changed with this turn (see `SourceHealth`); absent when it did not. */
  health?: SourceHealth;
  /** The source's inventory: the org's keys and service accounts, or the project's access list. */
  inventory?: InventoryOutcome;
  durationMs: number;
}

/**
 * How the projects of one organization were found (`sources.allProjectsOfOrgs`), or the clusters of
 * one project (`sources.accessHistory`).
 */
export interface DiscoveryOutcome {
  /** The connection whose credentials listed it, when it is not `default`. */
  connection?: string;
  /** The organization whose projects were listed; absent for a project's clusters. */
  orgId?: string;
  /** The project whose clusters were listed; absent for an organization's projects. */
  groupId?: string;
  status: /** Listed from Atlas this tick. */
    | 'listed'
    /** Taken from the discovery cache. */
    | 'cached'
    /** Listing failed; a stale cached list was used if there was one (`projects`, `clusters`). */
    | 'failed';
  /** The organization's projects polled. */
  projects?: number;
  /** The project's clusters whose access history is read (shared tier and serverless left out). */
  clusters?: number;
  errorCode?: string;
  message?: string;
  /** HTTP status of the Atlas answer that failed the listing, if any. */
  httpStatus?: number;
}

/** Sums over the whole tick. */
export interface TickTotals {
  sources: number;
  sourcesOk: number;
  sourcesSkipped: number;
  sourcesCutShort: number;
  /** Failed sources, project discoveries, and inventories of sources that did not fail otherwise. */
  sourceErrors: number;
  /** The same failures by error code. */
  errorsByCode: Record<string, number>;
  eventsFetched: number;
  eventsNew: number;
  /** Rule evaluations that failed on an event, over every source (see `SourceOutcome.ruleErrors`). */
  ruleErrors: number;
  /** First-seen records the store did not keep, over every source (see `SourceOutcome.firstSeenStateErrors`). */
  firstSeenStateErrors: number;
  alerts: AlertCounts;
  /** What each destination beside the notifier took, by its name: `{}` without any. */
  destinations: Record<string, AlertCounts>;
  /** HTTP requests sent to Atlas during the tick (challenges and retries included). */
  atlasRequests: number;
  /** 429 answers from Atlas during the tick. */
  atlasRateLimited: number;
  /** Sources, discoveries and inventories that Atlas refused with 401 or 403. */
  atlasAuthFailures: number;
  /** State store requests during the tick (DynamoDB: one per HTTP attempt). */
  stateRequests: number;
  /**
   * Now minus the oldest watermark among the sources whose cursor this tick read (whatever their
   * status), in seconds: a source that keeps failing after taking its lease makes it grow.
   * `undefined` when no source had a watermark.
   */
  watermarkLagSeconds: number | undefined;
  /**
   * Now minus the oldest watermark over every source of the tick, polled or not (the stored one for
   * a source the tick did not reach or could not lease), in seconds: what grows when a source is
   * starved, not only when it fails. `undefined` when no source has a watermark.
   */
  oldestSourceLagSeconds: number | undefined;
  /**
   * The local clock minus Atlas's (from the `Date` header of its answers), in seconds: positive when
   * the local clock runs ahead. Windows end on Atlas's clock either way. `undefined` before Atlas
   * has sent a usable `Date`.
   */
  atlasClockSkewSeconds: number | undefined;
}

/** What a tick did. */
export interface TickSummary {
  /** Milliseconds since the epoch, on the tick's clock. */
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /**
   * Every source was attempted and none was cut short by the deadline or an abort. A source that
   * failed on its own (403, 404...) does not make the tick incomplete: `SourceErrors` reports it.
   */
  completed: boolean;
  sources: SourceOutcome[];
  discovery: DiscoveryOutcome[];
  totals: TickTotals;
  /** What the flush of the routes' digests at the end of the tick did; absent without digests. */
  digests?: DigestFlush;
}

/**
 * The signature of `runTick`: one poll tick over every configured source.
 *
 * For each source (`org:<id>`, `project:<id>`), concurrently up to `config.concurrency`: take the
 * lease (skip the source when another worker holds it), read the cursor, read the window
 * `[watermark − overlap, now − lag]` page by page (a backlog in bounded windows), drop the ids
 * already seen, sort by (`created`, `id`), evaluate the rules, claim, publish and mark each alert,
 * commit the cursor after each window whose alerts were all delivered, release the lease. Org
 * sources also compare the org's API keys and access lists with the stored snapshot when due.
 *
 * It never throws for a source that fails: the outcome says so. It throws `PollConfigError` when no
 * source is configured.
 */
export type RunTick = (deps: TickDependencies, options: TickOptions) => Promise<TickSummary>;
