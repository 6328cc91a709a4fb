import type { AtlasClient } from '../atlas/atlas-client.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { severityTotal } from '../notify/alert.js';
import type { Notifier } from '../notify/notifier.js';
import type { RuleEngine } from '../rules/engine.js';
import type { FirstSeenStateError, RuleEvaluationError } from '../rules/errors.js';
import { LeaseLostError } from '../state/errors.js';
import type { SourceCursor, SourceError, SourceLease, StateStore } from '../state/state-store.js';
import {
  type AlertDestination,
  addAlertCounts,
  addDestinationCounts,
  type Delivery,
  deliverAlerts,
  emptyAlertCounts,
  NOTIFIER_DESTINATION,
} from './alert-delivery.js';
import type { AlertDescriber } from './alert-describer.js';
import { AlertDeliveryError, EventBudgetExceededError } from './errors.js';
import type { EventBudget, EventReservation } from './event-budget.js';
import { describeFailure } from './failure-report.js';
import { checkInventory } from './inventory-check.js';
import type { PollSource } from './poll-source.js';
import { RecentEventIds } from './recent-event-ids.js';
import { type SourceReader, sourceReader } from './source-reader.js';
import type { TickBudget } from './tick-budget.js';
import type {
  AlertCounts,
  CutShortReason,
  InventoryOutcome,
  SourceHealth,
  SourceOutcome,
  TickProgress,
} from './tick-types.js';
import {
  commitPoint,
  type EventWindow,
  firstWalkStart,
  nextWindow,
  planWalk,
  spanAfterRead,
  type WalkPlan,
} from './window-math.js';
import { readWindow, type WindowRead, windowEventBound } from './window-reader.js';

/** What every source of a tick shares. */
export interface SourcePollContext {
  atlas: AtlasClient;
  store: StateStore;
  engine: RuleEngine;
  notifier: Notifier;
  /** Destinations delivered beside the notifier (see `AlertDestination`). */
  destinations: readonly AlertDestination[];
  clock: Clock;
  logger: Logger;
  budget: TickBudget;
  /** The events the tick holds in memory, over all its sources. */
  events: EventBudget;
  /** Names and key details for the tick's alerts. */
  describer: AlertDescriber;
  owner: string;
  leaseMs: number;
  claimMs: number;
  overlapMs: number;
  lagMs: number;
  /**
   * How long a stretch of a source whose answers may fill late (access history) is read again while
   * it answers nothing, before the cursor passes it.
   */
  emptySettleMs: number;
  initialLookbackMs: number;
  inventoryIntervalMs: number;
  /** Raise baseline findings from first snapshots (`inventory.baselineFindings`). */
  baselineFindings: boolean;
  /** Entries one inventory may hold (`inventory.maxEntries`). */
  maxInventoryEntries: number;
  maxWindowMs: number;
  maxEventsPerWindow: number;
  /** Access lists read at once during an inventory. */
  concurrency: number;
  since: number | undefined;
  /** When the tick began: a source without a cursor starts its initial lookback before it. */
  startedAt: number;
  onProgress: ((progress: TickProgress) => void) | undefined;
  /**
   * Told of a source whose cursor the tick never read (cut short, or the store failed, before its
   * lease): if it has no cursor yet, the tick pins one where its first walk would have started.
   */
  onCursorUnread: ((source: PollSource) => void) | undefined;
}

const SECOND_MS = 1_000;

/** A window read to its end, and the events it holds in the budget until it is settled. */
interface WholeWindow {
  window: EventWindow;
  read: Extract<WindowRead, { kind: 'read' }>;
  reservation: EventReservation;
}

/**
 * The events a window listed in its last second: the next window starts on that second, and reads
 * them again while this one may still be evaluated, before the walk records them as seen.
 */
function boundaryKeys(whole: WholeWindow): ReadonlySet<string> {
  const last = whole.window.to;
  return new Set(whole.read.listed.filter((entry) => entry.time >= last).map((entry) => entry.key));
}
/**
 * A `Date` header has whole seconds: a walk planned on the local clock is read again only when
 * Atlas's clock ends it earlier by more than that.
 */
const DATE_HEADER_RESOLUTION_MS = 1_000;

/** Thrown inside a walk to end it early with a status other than `failed`. */
class WalkStopped {
  constructor(readonly reason: CutShortReason) {}
}

/** How one source is polled, beyond what every source of the tick shares. */
export interface SourcePollOptions {
  /**
   * Read up to now, not `now − lag`, while every commit stops at `now − lag`: a poll a push woke, whose
   * event is seconds old. What it reads past the commit point is read again by a later walk, which
   * drops what this one processed (the committed seen ids, the alert claims). Default false.
   */
  readToNow?: boolean;
}

/**
 * Polls one source for one tick: lease, cursor, inventory when due, then the walk
 * window by window, each committed once its alerts are settled, and the lease freed in the last
 * commit (or released when the walk stops early). Never throws: every failure is in the outcome.
 *
 * @example
 * ```ts
 * const outcome = await pollSource(context, orgSource('5f4e3d2c1b0a998877665544'));
 * ```
 */
export async function pollSource(
  context: SourcePollContext,
  source: PollSource,
  options: SourcePollOptions = {},
): Promise<SourceOutcome> {
  const startedAt = context.clock.now();
  const outcome = newOutcome(source);
  const finish = (): SourceOutcome => {
    outcome.durationMs = context.clock.now() - startedAt;
    const { alerts: _alerts, message, ...polled } = outcome;
    context.logger.debug('source polled', {
      ...polled,
      ...(message === undefined ? {} : { error: message }),
    });
    return outcome;
  };
  const reason = context.budget.stopReason();
  if (reason !== undefined) {
    outcome.status = 'cut-short';
    outcome.reason = reason;
    context.onCursorUnread?.(source);
    return finish();
  }
  let acquisition: Awaited<ReturnType<StateStore['acquireLease']>>;
  try {
    acquisition = await context.store.acquireLease({
      source: source.name,
      owner: context.owner,
      durationMs: context.leaseMs,
      connection: source.connection,
    });
  } catch (error) {
    fail(context, outcome, error);
    context.onCursorUnread?.(source);
    return finish();
  }
  if (!acquisition.acquired) {
    outcome.status = 'skipped-lease-held';
    outcome.leaseHeldBy = { owner: acquisition.owner, expiresAt: acquisition.expiresAt };
    context.logger.info('source skipped: another worker holds its lease', {
      source: source.name,
      owner: acquisition.owner,
      expiresAt: new Date(acquisition.expiresAt).toISOString(),
    });
    return finish();
  }
  await new SourceRun(
    context,
    source,
    acquisition.lease,
    acquisition.cursor,
    outcome,
    options.readToNow === true,
  ).execute();
  const health = healthChange(acquisition.lastError, outcome);
  if (health !== undefined) outcome.health = health;
  return finish();
}

/**
 * How a source's health changed with this turn, from the error its last turn recorded: `failing`
 * when a source that went well fails, `credentials-refused` when Atlas refuses its credentials (401,
 * 403) and it did not already, `recovered` when a failing source's turn went well. Nothing otherwise:
 * a source failing as it did, or cut short, changed nothing.
 */
function healthChange(previous: SourceError | undefined, outcome: SourceOutcome): SourceHealth | undefined {
  if (outcome.status === 'ok') return previous === undefined ? undefined : 'recovered';
  if (outcome.status !== 'failed') return undefined;
  const refused = outcome.httpStatus === 401 || outcome.httpStatus === 403;
  if (refused && previous?.code !== outcome.errorCode) return 'credentials-refused';
  return previous === undefined ? 'failing' : undefined;
}

/** The mutable state of one source's tick once its lease is held. */
class SourceRun {
  readonly #context: SourcePollContext;
  readonly #source: PollSource;
  readonly #cursor: SourceCursor | undefined;
  readonly #outcome: SourceOutcome;
  readonly #recent: RecentEventIds;
  readonly #reader: SourceReader;
  /** Undefined once freed (by the last commit, or a release). */
  #lease: SourceLease | undefined;
  /** The cursor as last stored, to record an inventory in when the walk commits nothing. */
  #committed: { watermark: number; seenIds: Iterable<string> } | undefined;
  /** An inventory snapshot stored this tick whose time the cursor does not carry yet. */
  #inventoryTakenAt: number | undefined;
  /** Alerts published that a commit or release has already recorded with the store. */
  #alertsRecorded = 0;
  /**
   * Where the first walk of a source without a cursor starts evaluating: committed as its cursor if
   * the walk commits no window (or never starts), so that the next tick starts there again.
   */
  readonly #firstRunStart: number | undefined;
  /** How long the next window is: shorter after a window had to be cut, sized from the last one's density. */
  #spanMs: number;
  /** The walk reads to now; its commits stop at `now − lag` (see `SourcePollOptions.readToNow`). */
  readonly #readToNow: boolean;

  constructor(
    context: SourcePollContext,
    source: PollSource,
    lease: SourceLease,
    cursor: SourceCursor | undefined,
    outcome: SourceOutcome,
    readToNow: boolean,
  ) {
    this.#context = context;
    this.#readToNow = readToNow;
    this.#source = source;
    this.#lease = lease;
    this.#cursor = cursor;
    this.#outcome = outcome;
    this.#recent = new RecentEventIds(cursor?.seenIds);
    this.#reader = sourceReader(context.atlas, source);
    this.#spanMs = context.maxWindowMs;
    this.#committed =
      cursor === undefined ? undefined : { watermark: cursor.watermark, seenIds: cursor.seenIds };
    if (cursor !== undefined) outcome.watermark = cursor.watermark;
    this.#firstRunStart =
      cursor === undefined
        ? firstWalkStart({
            now: context.atlas.serverClock.now(),
            startedAt: context.startedAt,
            overlapMs: context.overlapMs,
            lagMs: context.lagMs,
            initialLookbackMs: context.initialLookbackMs,
            since: context.since,
          })
        : undefined;
  }

  async execute(): Promise<void> {
    const outcome = this.#outcome;
    try {
      await this.#inventory();
      await this.#walk();
    } catch (error) {
      if (error instanceof WalkStopped) {
        outcome.status = 'cut-short';
        outcome.reason = error.reason;
      } else if (this.#context.budget.isAbort(error)) {
        outcome.status = 'cut-short';
        outcome.reason = this.#context.budget.stopReason() ?? 'deadline';
      } else {
        if (error instanceof LeaseLostError) this.#lease = undefined;
        fail(this.#context, outcome, error);
      }
    } finally {
      await this.#settle();
    }
  }

  /**
   * Reads the walk window by window, each read while the one before it is evaluated and delivered
   * (a pipeline of two), and settles them in order: a window is committed only after every window
   * before it, and a read that fails or is stopped surfaces only once the window before it settled.
   */
  async #walk(): Promise<void> {
    const context = this.#context;
    let plan = this.#plan();
    if (plan.upToDate) return;
    // Aborts a read ahead whose window before it failed, so the walk never outlives its lease.
    const ahead = new AbortController();
    const signal = AbortSignal.any([context.budget.signal, ahead.signal]);
    let pending: Promise<WholeWindow> | undefined = this.#readWholeWindow(
      plan,
      plan.from,
      true,
      undefined,
      signal,
    );
    if (context.atlas.serverClock.skewMs === undefined) {
      // Before Atlas's first answer in this container the plan rests on the local clock: the first
      // window is read alone, then the walk is planned again on Atlas's clock, and read again from
      // its start when that ends it earlier.
      const first: WholeWindow = await pending;
      const replanned = this.#plan();
      if (
        context.atlas.serverClock.skewMs !== undefined &&
        replanned.end + DATE_HEADER_RESOLUTION_MS < plan.end
      ) {
        first.reservation.release();
        context.logger.info('walk planned again on Atlas clock: the local clock runs ahead', {
          source: this.#source.name,
          skewSeconds: Math.round((context.atlas.serverClock.skewMs ?? 0) / 1_000),
          end: new Date(replanned.end).toISOString(),
        });
        plan = replanned;
        if (plan.upToDate) return;
        pending = this.#readWholeWindow(plan, plan.from, true, undefined, signal);
      } else {
        pending = Promise.resolve(first);
      }
    }
    try {
      for (;;) {
        const current: WholeWindow = await pending;
        pending = undefined;
        try {
          if (current.window.to < plan.end) {
            pending = this.#readWholeWindow(plan, current.window.to, false, boundaryKeys(current), signal);
            // Awaited on the next turn, or given up on below: never an unhandled rejection.
            pending.catch(() => {});
          }
          await this.#settleWindow(plan, current.window, current.read);
        } finally {
          current.reservation.release();
        }
        if (pending === undefined) return;
      }
    } finally {
      if (pending !== undefined) {
        ahead.abort(new Error('the window before this one did not settle'));
        await pending.then(
          (unused) => unused.reservation.release(),
          () => {},
        );
      }
    }
  }

  /** Plans the walk on Atlas's clock (the local one until Atlas has answered). */
  #plan(): WalkPlan {
    const context = this.#context;
    return planWalk({
      watermark: this.#cursor?.watermark,
      now: context.atlas.serverClock.now(),
      overlapMs: context.overlapMs,
      lagMs: context.lagMs,
      initialLookbackMs: context.initialLookbackMs,
      since: context.since,
      startedAt: context.startedAt,
      readToNow: this.#readToNow,
    });
  }

  /**
   * Reads a window to its end, cutting it shorter while it holds too many events. A window of one
   * second whose events do not fit in its share of the event budget is read again with the whole
   * budget; when they do not fit in that either, the source fails with EventBudgetExceededError.
   */
  async #readWholeWindow(
    plan: WalkPlan,
    from: number,
    first: boolean,
    previous: ReadonlySet<string> | undefined,
    signal: AbortSignal,
  ): Promise<WholeWindow> {
    const context = this.#context;
    const outcome = this.#outcome;
    this.#checkBudget();
    await this.#keepLease();
    const reservation = await context.events.open(signal);
    let window = nextWindow({
      from,
      end: plan.end,
      maxWindowMs: Math.min(context.maxWindowMs, this.#spanMs),
    });
    try {
      for (;;) {
        const current = window;
        const read = await readWindow({
          reader: this.#reader,
          window: current,
          recent: this.#recent,
          previous,
          maxEvents: context.maxEventsPerWindow,
          reservation,
          knownInWindow: first ? (this.#cursor?.seenIds.size ?? 0) : 0,
          signal,
          stopReason: () => context.budget.stopReason(),
          beforeNextPage: () => this.#keepLease(),
          holdWhole: (event) => context.engine.mayAlert(event),
          onPage: (page) => this.#progress(plan, current, page),
        });
        outcome.pagesRead += read.pagesRead;
        outcome.eventsFetched += read.eventsFetched;
        if (read.kind === 'read') {
          this.#spanMs = spanAfterRead({
            window: current,
            held: read.fresh.length + read.passed.length,
            maxEvents: windowEventBound(context.maxEventsPerWindow, reservation),
            maxWindowMs: context.maxWindowMs,
          });
          return { window: current, read, reservation };
        }
        if (read.kind === 'cut-short') throw new WalkStopped(read.reason);
        if (read.kind === 'over-budget') {
          if (reservation.widened) throw this.#overBudget(current, read.held);
          context.logger.info(
            'a one-second window holds more events than its share of the budget; reading it alone',
            {
              source: this.#source.name,
              second: new Date(current.from).toISOString(),
              held: read.held,
              share: reservation.limit,
            },
          );
          await context.events.widen(reservation, signal);
          this.#checkBudget();
          continue;
        }
        context.logger.debug('window holds too many events; reading a shorter one', {
          source: this.#source.name,
          from: new Date(current.from).toISOString(),
          to: new Date(current.to).toISOString(),
          shorterTo: new Date(read.shorter.to).toISOString(),
        });
        window = read.shorter;
        this.#spanMs = Math.max(SECOND_MS, window.to - window.from);
        this.#checkBudget();
      }
    } catch (error) {
      reservation.release();
      throw error;
    }
  }

  #overBudget(window: EventWindow, held: number): EventBudgetExceededError {
    const second = new Date(window.from).toISOString();
    return new EventBudgetExceededError(
      `${this.#source.name} listed more than ${this.#context.events.capacity} new events created within one ` +
        `second (${second}; ${held} held when the next page no longer fit): more than the tick may hold in ` +
        'memory, and a second cannot be cut shorter. The source fails this tick and its cursor stays before ' +
        'that second; the other sources go on. Check what writes so many events, or give the poller more ' +
        'memory (or set maxEventsInMemory)',
    );
  }

  /** Evaluates a window's new events, delivers their alerts, and commits the window if they settled. */
  async #settleWindow(
    plan: WalkPlan,
    window: EventWindow,
    read: Extract<WindowRead, { kind: 'read' }>,
  ): Promise<void> {
    const context = this.#context;
    const outcome = this.#outcome;
    const events = read.fresh.filter((keyed) => keyed.time >= plan.evaluateFrom).map((keyed) => keyed.event);
    outcome.eventsNew += events.length;
    for (const time of read.passed) if (time >= plan.evaluateFrom) outcome.eventsNew += 1;
    const alerts =
      events.length === 0
        ? []
        : await context.engine.evaluate(events, {
            onRuleError: this.#onRuleError,
            onStateError: this.#onStateError,
            describe: (event) => context.describer.describe(event, this.#source),
          });
    const delivery = await deliverAlerts({
      alerts,
      store: context.store,
      notifier: context.notifier,
      destinations: context.destinations,
      claimMs: context.claimMs,
      signal: context.budget.signal,
      logger: context.logger,
      source: this.#source.name,
    });
    addAlertCounts(outcome.alerts, delivery.counts);
    this.#addDestinationCounts(delivery.destinations);
    this.#throwIfUnsettled(delivery);

    this.#recent.addAll(read.listed);
    const watermark = commitPoint({
      windowEnd: this.#settledEnd(window, read),
      previousWatermark: plan.previousWatermark,
      commitEnd: plan.commitEnd,
    });
    // The seen ids keep the overlap before the commit point, and what the walk read past it.
    this.#recent.forgetBefore((watermark ?? window.to) - context.overlapMs);
    if (watermark === undefined) return;
    await this.#commit(watermark, this.#recent.idsFrom(watermark - context.overlapMs), window.to >= plan.end);
    outcome.windowsCommitted += 1;
  }

  /**
   * How far a window read to its end lets the cursor move: to its end, except for a source whose
   * answers may fill late (access history) when the window listed nothing. Then only to what is
   * older than the settle time, so the stretch is read again on the next ticks; a window that lists
   * anything, later in the walk or on a later tick, moves it on. Never back, and never to the start
   * of a later empty window of the walk: that would pass the empty windows before it.
   */
  #settledEnd(window: EventWindow, read: Extract<WindowRead, { kind: 'read' }>): number {
    if (read.listed.length > 0 || !this.#reader.emptyMayFill) return window.to;
    const settled = this.#context.atlas.serverClock.now() - this.#context.emptySettleMs;
    const floor = Math.min(window.from, this.#committed?.watermark ?? window.from);
    return Math.min(window.to, Math.max(floor, settled));
  }

  /** Adds what the destinations beside the notifier took; an outcome without any has no such counts. */
  #addDestinationCounts(counts: Readonly<Record<string, AlertCounts>>): void {
    if (Object.keys(counts).length === 0) return;
    const totals = this.#outcome.destinations ?? {};
    addDestinationCounts(totals, counts);
    this.#outcome.destinations = totals;
  }

  #throwIfUnsettled(delivery: Delivery): void {
    if (delivery.settled) return;
    const budget = this.#context.budget;
    if (budget.signal.aborted) throw new WalkStopped(budget.stopReason() ?? 'deadline');
    const failure = delivery.retryableFailure;
    if (failure !== undefined) {
      throw new AlertDeliveryError(
        `alerts of ${this.#source.name} were not delivered (${failure.code}: ${failure.message}): the cursor ` +
          `stays before them and the next tick raises them again; check ${describeFailedDestination(failure.destination)}`,
      );
    }
    throw new WalkStopped('alert-in-progress');
  }

  async #inventory(): Promise<void> {
    const context = this.#context;
    const scope = inventoryScope(this.#source);
    if (scope === undefined) return;
    const now = context.clock.now();
    const takenAt = this.#cursor?.inventoryTakenAt;
    const base: Omit<InventoryOutcome, 'status'> = { apiKeys: 0, changes: 0, findings: 0, resolved: 0 };
    if (takenAt !== undefined && now - takenAt < context.inventoryIntervalMs) {
      this.#outcome.inventory = { ...base, status: 'not-due' };
      return;
    }
    if (context.budget.stopReason() !== undefined) {
      this.#outcome.inventory = { ...base, status: 'cut-short' };
      return;
    }
    await this.#keepLease();
    try {
      const check = await checkInventory({
        atlas: context.atlas,
        store: context.store,
        engine: context.engine,
        notifier: context.notifier,
        destinations: context.destinations,
        logger: context.logger,
        scope,
        now,
        baselineFindings: context.baselineFindings,
        maxEntries: context.maxInventoryEntries,
        concurrency: context.concurrency,
        claimMs: context.claimMs,
        signal: context.budget.signal,
        onRuleError: this.#onRuleError,
        onStateError: this.#onStateError,
        describer: { describer: context.describer, source: this.#source },
      });
      addAlertCounts(this.#outcome.alerts, check.alerts);
      this.#addDestinationCounts(check.destinations);
      const counts = {
        apiKeys: check.apiKeys,
        changes: check.changes,
        findings: check.findings,
        resolved: check.resolved,
        ...(check.serviceAccounts === undefined ? {} : { serviceAccounts: check.serviceAccounts }),
        ...(check.projectEntries === undefined ? {} : { projectEntries: check.projectEntries }),
        ...(check.skipped.length === 0 ? {} : { skipped: check.skipped }),
        ...(check.invalidEntries === 0 ? {} : { invalidEntries: check.invalidEntries }),
      };
      if (check.status !== 'undelivered') {
        this.#inventoryTakenAt = now;
        this.#outcome.inventory = { ...counts, status: check.status };
        return;
      }
      if (check.delivery !== undefined) this.#throwIfUnsettled(check.delivery);
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      if (error instanceof WalkStopped || context.budget.isAbort(error)) {
        const elsewhere = error instanceof WalkStopped && error.reason === 'alert-in-progress';
        this.#outcome.inventory = {
          ...base,
          status: 'cut-short',
          ...(elsewhere
            ? {
                message:
                  'another worker is publishing an alert of this inventory; it is compared again next tick',
              }
            : {}),
        };
        return;
      }
      const failure = describeFailure(error);
      this.#outcome.inventory = {
        ...base,
        status: 'failed',
        errorCode: failure.errorCode,
        message: failure.message,
        ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
      };
      context.logger.warn('inventory check failed; the events of the source are still polled', {
        source: this.#source.name,
        errorCode: failure.errorCode,
        httpStatus: failure.httpStatus,
        error: failure.message,
      });
    }
  }

  /**
   * Whether this tick counts as the source's turn (see `orderSources`): anything but a walk stopped by
   * the deadline or the caller before it committed a window. A source whose turn did not count keeps
   * its place at the front of the next tick.
   */
  #turnCounted(): boolean {
    const outcome = this.#outcome;
    if (outcome.windowsCommitted > 0 || outcome.status !== 'cut-short') return true;
    return outcome.reason !== 'deadline' && outcome.reason !== 'aborted';
  }

  /** What the store records of the turn with a commit or a release: alerts sent, and the error if any. */
  #turnRecord(): { alertsSent?: number; error?: { code: string; message: string } } {
    const alertsSent = this.#alertsUnrecorded();
    const error = this.#turnError();
    return { ...(alertsSent > 0 ? { alertsSent } : {}), ...(error === undefined ? {} : { error }) };
  }

  /** Alerts published since the store last heard of them: recorded with the next commit or release. */
  #alertsUnrecorded(): number {
    const published = severityTotal(this.#outcome.alerts.published);
    const unrecorded = published - this.#alertsRecorded;
    this.#alertsRecorded = published;
    return unrecorded;
  }

  /** The failure the store records as the source's last error, when the turn failed. */
  #turnError(): { code: string; message: string } | undefined {
    const { status, errorCode, message } = this.#outcome;
    if (status !== 'failed') return undefined;
    return { code: errorCode ?? 'UNEXPECTED_ERROR', message: message ?? 'the source failed' };
  }

  async #commit(watermark: number, seenIds: string[], release: boolean, polled = true): Promise<void> {
    const lease = this.#lease;
    if (lease === undefined) {
      throw new LeaseLostError(`the lease on ${this.#source.name} was already freed`, {
        source: this.#source.name,
      });
    }
    await this.#context.store.commitCursor({
      lease,
      watermark,
      seenIds,
      release,
      polled,
      ...(this.#inventoryTakenAt === undefined ? {} : { inventoryTakenAt: this.#inventoryTakenAt }),
      ...this.#turnRecord(),
    });
    this.#inventoryTakenAt = undefined;
    this.#committed = { watermark, seenIds };
    this.#outcome.watermark = watermark;
    if (release) this.#lease = undefined;
  }

  /**
   * Frees the lease if the walk did not, recording a pending inventory time on the way. A source's
   * first walk that committed nothing (it failed or was cut short) commits where it started: without
   * a cursor, the next tick would start from its own `now − initialLookback`, later each time, and
   * the events between the two starts, whose alerts this tick may have failed to deliver, would never
   * be evaluated. From that cursor the next walk reads the overlap before it too, so it evaluates up
   * to one overlap more than the initial lookback: alerts on older events rather than none.
   */
  async #settle(): Promise<void> {
    const lease = this.#lease;
    if (lease === undefined) return;
    const { store, logger } = this.#context;
    try {
      const committed = this.#committed;
      const polled = this.#turnCounted();
      if (committed === undefined && this.#firstRunStart !== undefined) {
        await this.#commit(this.#firstRunStart, [], true, polled);
      } else if (this.#inventoryTakenAt !== undefined && committed !== undefined) {
        await this.#commit(committed.watermark, [...committed.seenIds], true, polled);
      } else {
        await store.releaseLease({ lease, polled, ...this.#turnRecord() });
      }
    } catch (error) {
      logger.warn('could not free the lease of a source; it lapses by itself', {
        source: this.#source.name,
        expiresAt: new Date(lease.expiresAt).toISOString(),
        error: error instanceof Error ? error.message : String(error),
      });
    }
    this.#lease = undefined;
  }

  /** Renews the lease when less than half of it remains and it would lapse before the deadline. */
  async #keepLease(): Promise<void> {
    const lease = this.#lease;
    if (lease === undefined) return;
    const { budget, clock, store, leaseMs } = this.#context;
    const deadline = budget.deadline;
    if (deadline !== undefined && lease.expiresAt >= deadline) return;
    if (lease.expiresAt - clock.now() > leaseMs / 2) return;
    this.#lease = await store.renewLease({ lease, durationMs: leaseMs });
  }

  /** Counts and logs a rule that failed on an event of this source; the walk goes on. */
  readonly #onRuleError = (failure: RuleEvaluationError): void => {
    this.#outcome.ruleErrors += 1;
    this.#context.logger.warn(failure.message, {
      source: this.#source.name,
      errorCode: failure.code,
      ruleId: failure.ruleId,
      eventId: failure.eventId,
    });
  };

  /** Counts and logs a first-seen record of this source the store did not keep; the walk goes on. */
  readonly #onStateError = (failure: FirstSeenStateError): void => {
    this.#outcome.firstSeenStateErrors += 1;
    this.#context.logger.warn(failure.message, {
      source: this.#source.name,
      errorCode: failure.code,
      ruleId: failure.ruleId,
      eventIds: failure.eventIds.slice(0, 10),
    });
  };

  #checkBudget(): void {
    const reason = this.#context.budget.stopReason();
    if (reason !== undefined) throw new WalkStopped(reason);
  }

  #progress(
    plan: WalkPlan,
    window: EventWindow,
    page: { pagesRead: number; eventsRead: number; totalCount: number | undefined },
  ): void {
    const onProgress = this.#context.onProgress;
    if (onProgress === undefined) return;
    try {
      onProgress({ source: this.#source.name, window: { ...window }, walkEnd: plan.end, ...page });
    } catch (error) {
      this.#context.logger.warn('progress callback threw; ignored', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** What a source's inventory snapshots: an organization's keys, a project's access list; a cluster has none. */
function inventoryScope(source: PollSource): { orgId: string } | { groupId: string } | undefined {
  if (source.kind === 'org') return { orgId: source.id };
  if (source.kind === 'project') return { groupId: source.id };
  return undefined;
}

/** A source's outcome before it is polled: nothing read, nothing raised. */
function newOutcome(source: PollSource): SourceOutcome {
  return {
    source: source.name,
    ...(source.connection === undefined ? {} : { connection: source.connection }),
    kind: source.kind,
    id: source.id,
    ...(source.cluster === undefined ? {} : { cluster: source.cluster }),
    status: 'ok',
    windowsCommitted: 0,
    pagesRead: 0,
    eventsFetched: 0,
    eventsNew: 0,
    ruleErrors: 0,
    firstSeenStateErrors: 0,
    alerts: emptyAlertCounts(),
    durationMs: 0,
  };
}

/**
 * The outcome of a source the tick could not poll at all (its connection has no client): failed
 * with `error`, nothing read. The caller logs the cause once, for the whole connection.
 *
 * @example
 * ```ts
 * unpolledOutcome(orgSource(orgId), new ConnectionUnavailableError('...')).errorCode; // 'CONNECTION_UNAVAILABLE'
 * ```
 */
export function unpolledOutcome(source: PollSource, error: unknown): SourceOutcome {
  const outcome = newOutcome(source);
  const failure = describeFailure(error);
  outcome.status = 'failed';
  outcome.errorCode = failure.errorCode;
  outcome.message = failure.message;
  if (failure.httpStatus !== undefined) outcome.httpStatus = failure.httpStatus;
  return outcome;
}

function fail(context: SourcePollContext, outcome: SourceOutcome, error: unknown): void {
  const failure = describeFailure(error);
  outcome.status = 'failed';
  outcome.errorCode = failure.errorCode;
  outcome.message = failure.message;
  if (failure.httpStatus !== undefined) outcome.httpStatus = failure.httpStatus;
  if (failure.retryAfterMs !== undefined) outcome.retryAfterMs = failure.retryAfterMs;
  context.logger.error('source failed; the other sources go on', {
    source: outcome.source,
    errorCode: failure.errorCode,
    httpStatus: failure.httpStatus,
    error: failure.message,
    ...(failure.errorCode === 'UNEXPECTED_ERROR' && error instanceof Error ? { stack: error.stack } : {}),
  });
}

/** Where to look when a destination keeps failing, for the error a failed delivery raises. */
function describeFailedDestination(destination: string): string {
  switch (destination) {
    case NOTIFIER_DESTINATION:
      return 'the notifier (topic, key policy)';
    case 'eventbridge':
      return "the EventBridge bus (its name, the function's events:PutEvents permission, the bus policy)";
    case 'securityhub':
      return "Security Hub (enabled in this account and region, the function's securityhub:BatchImportFindings permission)";
    default:
      return `the destination ${destination}`;
  }
}
