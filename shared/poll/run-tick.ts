import { getHeapStatistics } from 'node:v8';
import type { AtlasClient, AtlasClientStats } from '../atlas/atlas-client.js';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { AlertDescriber } from './alert-describer.js';
import { connect, NO_STATS, namesASource, unknownConnection, wantedConnections } from './connection-reach.js';
import { DEFAULT_CONNECTION, type EffectiveConnection, effectiveConnections } from './connections.js';
import { flushDigests } from './digest-flush.js';
import { DiscoveryCache } from './discovery-cache.js';
import { PollConfigError } from './errors.js';
import { EventBudget, eventBudgetForHeap } from './event-budget.js';
import { DEFAULT_MAX_INVENTORY_ENTRIES } from './inventory-budget.js';
import { emitTickMetrics } from './metrics-sink.js';
import { NameCache } from './name-cache.js';
import { DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS } from './poll-settings.js';
import type { PollSource } from './poll-source.js';
import type { PollerConfig } from './poller-config.js';
import { orderSources } from './source-order.js';
import { pollSource, type SourcePollContext, unpolledOutcome } from './source-poll.js';
import { TickBudget } from './tick-budget.js';
import { summarizeTick } from './tick-summary.js';
import type { TickDependencies, TickOptions, TickSummary } from './tick-types.js';
import { firstWalkStart } from './window-math.js';

const SECOND_MS = 1_000;
/** The lease outlives the deadline by this much: the Lambda is gone by then, or finishing its writes. */
const LEASE_PAST_DEADLINE_MS = 10 * SECOND_MS;
const DEFAULT_LEASE_MS = 15 * 60 * SECOND_MS;
const DEFAULT_ALERT_CLAIM_MS = 5 * 60 * SECOND_MS;
/** The longest window of a backlog, when the configuration does not say. */
export const DEFAULT_MAX_WINDOW_SECONDS = 6 * 60 * 60;
/** The most events one window may hold before it is cut shorter, when the configuration does not say. */
export const DEFAULT_MAX_EVENTS_PER_WINDOW = 20_000;

/**
 * Runs one poll tick over every configured source and returns what it did.
 *
 * For each source (`org:<id>`, `project:<id>`; with `allProjectsOfOrgs` every project of each org,
 * discovered through `discoveryCache`), those that waited longest first (see `orderSources`), at
 * most `config.concurrency` at once: take the lease (skip
 * the source when another worker holds a live one), read the cursor, compare the org's API keys and
 * access lists with the stored snapshot when due, then read `[watermark − overlap, now − lag]` (to
 * `now` for a source a push woke, see `TickOptions.woken`) window by window, page by page (500 a
 * page, `maxDate` fixed), drop the events already processed, sort the rest by (`created`, `id`), evaluate the rules, claim, publish and mark each alert, and commit the
 * cursor after each window whose alerts were all delivered (or can never be). The lease is freed by
 * the last commit, or released when the walk stops early.
 *
 * Nothing is lost: the cursor moves only past windows read to their end whose alerts are settled,
 * and every tick reads the overlap again for events Atlas shows late. Nothing is sent twice: alerts
 * are claimed by fingerprint before publishing and marked sent after, except when a worker dies
 * between a successful publish and the mark.
 *
 * Memory: the events held at once, over every source, stay within one budget (`maxEventsInMemory`,
 * by default sized from the V8 heap limit, see `eventBudgetForHeap`); each source reads its next
 * window while the last one is evaluated, and windows are cut shorter to fit their share. A second
 * that holds more new events than the whole budget fails its source with EVENT_BUDGET_EXCEEDED.
 *
 * A source that fails (403, 404, 5xx after retries, a store failure) is reported with its error code
 * and does not stop the others. No new source, window or page starts once less than the deadline
 * margin remains; calls in flight at half the margin are aborted.
 *
 * @throws PollConfigError when the configuration names no organization or project to poll, unless
 *   `sources.allowNone` is set: then the tick completes at once, having read nothing.
 *
 * @example
 * ```ts
 * const summary = await runTick(
 *   { atlas, store, engine, notifier, clock, logger, discoveryCache, metrics },
 *   { config, owner: context.awsRequestId, deadline: Date.now() + context.getRemainingTimeInMillis() },
 * );
 * ```
 */
export async function runTick(deps: TickDependencies, options: TickOptions): Promise<TickSummary> {
  const { config } = options;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? silentLogger;
  const connections = effectiveConnections(config);
  if (options.sources === undefined && !connections.some(namesASource)) {
    if (config.sources.allowNone !== true) {
      throw new PollConfigError(
        'nothing to poll: set sources.orgIds (organization events, API key inventory, and with ' +
          'allProjectsOfOrgs every project of the organization) or sources.projectIds, or a ' +
          'connection with sources of its own, or sources.allowNone: true to run with none (each ' +
          'tick then completes at once)',
      );
    }
    logger.info('nothing to poll: sources.allowNone is set and no organization or project is configured');
  }
  const startedAt = clock.now();
  const stateBefore = deps.store.stats().total;
  const budget = new TickBudget({
    clock,
    deadline: options.deadline,
    marginMs: config.timing.deadlineMarginSeconds * SECOND_MS,
    signal: options.signal,
  });
  const names = deps.names ?? new NameCache();
  const discoveryCache = deps.discoveryCache ?? new DiscoveryCache();
  try {
    const wanted = wantedConnections(connections, options.sources);
    const reached = await mapWithConcurrency(wanted.connections, config.concurrency, (entry) =>
      connect(deps.atlas, entry, { discoveryCache, names, clock, logger, budget, config }),
    );
    const sources = reached.flatMap((connection) => connection.sources);
    const events = new EventBudget({
      capacity:
        config.maxEventsInMemory ??
        eventBudgetForHeap(options.heapLimitBytes ?? getHeapStatistics().heap_size_limit),
      sourcesAtOnce: Math.max(1, Math.min(config.concurrency, sources.length)),
    });
    const unread = new Map<SourcePollContext, PollSource[]>();
    const contexts = new Map<string, SourcePollContext>();
    for (const connection of reached) {
      if (connection.client === undefined) continue;
      const context = sourcePollContext(connection.connection, connection.client, {
        deps: { ...deps, clock, logger, names },
        options,
        config,
        budget,
        events,
        startedAt,
        onCursorUnread: (source) => {
          const list = unread.get(context);
          if (list === undefined) unread.set(context, [source]);
          else list.push(source);
        },
      });
      contexts.set(connection.connection.name, context);
    }
    const order = await orderSources({
      store: deps.store,
      sources,
      concurrency: config.concurrency,
      logger,
    });
    const failures = new Map(
      reached.flatMap((connection) =>
        connection.failure === undefined
          ? []
          : connection.sources.map((source) => [source.name, connection.failure] as const),
      ),
    );
    const woken = new Set((options.woken ?? []).map(sourceKey));
    const outcomes = await mapWithConcurrency(order.sources, config.concurrency, async (source) => {
      const context = contexts.get(source.connection ?? DEFAULT_CONNECTION);
      return context === undefined
        ? unpolledOutcome(source, failures.get(source.name) ?? unknownConnection(source))
        : pollSource(context, source, { readToNow: woken.has(sourceKey(source)) });
    });
    outcomes.push(...wanted.unknown.map((source) => unpolledOutcome(source, unknownConnection(source))));
    const storedWatermarks = new Map<string, number>();
    for (const [source, times] of order.times) {
      if (times.watermark !== undefined) storedWatermarks.set(source, times.watermark);
    }
    for (const [context, sourcesUnread] of unread) {
      const pinned = await pinFirstWalkStarts(context, sourcesUnread);
      if (pinned === undefined) continue;
      for (const source of pinned.sources) storedWatermarks.set(source, pinned.watermark);
    }
    const clients = [
      ...new Map(
        reached.flatMap((connection) =>
          connection.client === undefined ? [] : [[connection.client, connection.statsBefore] as const],
        ),
      ),
    ];
    // Digests go out after the sources, so an alert settled this tick is in the digest it belongs to.
    const digests =
      deps.digests === undefined || options.signal?.aborted
        ? undefined
        : await flushDigests({
            ...deps.digests,
            clock,
            claimMs: options.alertClaimMs ?? DEFAULT_ALERT_CLAIM_MS,
            logger,
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
    const summary = summarizeTick({
      startedAt,
      finishedAt: clock.now(),
      atlasClockSkewMs: clients.find(([client]) => client.serverClock.skewMs !== undefined)?.[0].serverClock
        .skewMs,
      sources: outcomes,
      discovery: reached.flatMap((connection) => connection.discovery),
      atlasBefore: sumStats(clients.map(([, before]) => before)),
      atlasAfter: sumStats(clients.map(([client]) => client.stats)),
      stateRequests: deps.store.stats().total - stateBefore,
      storedWatermarks,
    });
    logger.info('poll tick finished', {
      completed: summary.completed,
      durationMs: summary.durationMs,
      ...summary.totals,
    });
    if (digests !== undefined) summary.digests = digests;
    if (deps.metrics !== undefined) emitTickMetrics({ summary, sink: deps.metrics });
    return summary;
  } finally {
    budget.dispose();
  }
}

/** A source's connection and name: what tells two sources apart across connections. */
function sourceKey(source: PollSource): string {
  return `${source.connection ?? DEFAULT_CONNECTION}|${source.name}`;
}

function sumStats(all: readonly AtlasClientStats[]): AtlasClientStats {
  const sum = { ...NO_STATS };
  for (const stats of all) {
    for (const key of Object.keys(sum) as (keyof AtlasClientStats)[]) sum[key] += stats[key];
  }
  return sum;
}

/** What the sources of one connection are polled with: its client, timings and inventory settings. */
function sourcePollContext(
  connection: EffectiveConnection,
  atlas: AtlasClient,
  tick: {
    deps: TickDependencies & { clock: Clock; logger: Logger; names: NameCache };
    options: TickOptions;
    config: PollerConfig;
    budget: TickBudget;
    events: EventBudget;
    startedAt: number;
    onCursorUnread: (source: PollSource) => void;
  },
): SourcePollContext {
  const { deps, options, config, budget, startedAt } = tick;
  const { clock, logger, names } = deps;
  const timing = connection.timing;
  return {
    atlas,
    store: deps.store,
    engine: deps.engine,
    notifier: deps.notifier,
    destinations: deps.destinations ?? [],
    clock,
    logger,
    budget,
    events: tick.events,
    describer: new AlertDescriber({ atlas, store: deps.store, names, clock, logger, signal: budget.signal }),
    owner: options.owner,
    leaseMs:
      options.leaseMs ??
      (options.deadline === undefined
        ? DEFAULT_LEASE_MS
        : Math.max(SECOND_MS, options.deadline - startedAt + LEASE_PAST_DEADLINE_MS)),
    claimMs: options.alertClaimMs ?? DEFAULT_ALERT_CLAIM_MS,
    overlapMs: timing.overlapSeconds * SECOND_MS,
    lagMs: timing.lagSeconds * SECOND_MS,
    emptySettleMs: (timing.accessHistorySettleSeconds ?? DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS) * SECOND_MS,
    initialLookbackMs: timing.initialLookbackSeconds * SECOND_MS,
    inventoryIntervalMs: timing.inventoryIntervalSeconds * SECOND_MS,
    baselineFindings: connection.inventory.baselineFindings,
    maxInventoryEntries: connection.inventory.maxEntries ?? DEFAULT_MAX_INVENTORY_ENTRIES,
    maxWindowMs: (timing.maxWindowSeconds ?? DEFAULT_MAX_WINDOW_SECONDS) * SECOND_MS,
    maxEventsPerWindow: config.maxEventsPerWindow ?? DEFAULT_MAX_EVENTS_PER_WINDOW,
    concurrency: config.concurrency,
    since: options.since,
    startedAt: atlas.serverClock.now(),
    onProgress: options.onProgress,
    onCursorUnread: tick.onCursorUnread,
  };
}

/**
 * Gives the sources the tick never reached a cursor where their first walk would have started, when
 * they have none: a new source keeps the start of the first tick that named it, however many ticks
 * run out of time before its turn comes. Without it, each such tick would move its start later by
 * the time between ticks, and the events in between would never be read. Best effort: a failure is
 * logged, and costs at most the same slide.
 */
async function pinFirstWalkStarts(
  context: SourcePollContext,
  unread: readonly PollSource[],
): Promise<{ sources: string[]; watermark: number } | undefined> {
  if (unread.length === 0) return undefined;
  const watermark = firstWalkStart({
    // Atlas's clock may have become known during the tick: a pin never lies ahead of it.
    now: Math.min(context.startedAt, context.atlas.serverClock.now()),
    overlapMs: context.overlapMs,
    lagMs: context.lagMs,
    initialLookbackMs: context.initialLookbackMs,
    since: context.since,
  });
  try {
    const created = await context.store.createMissingCursors({
      cursors: unread.map((source) => ({ source: source.name, watermark })),
    });
    if (created.length > 0) {
      context.logger.info('sources not reached this tick keep where their first walk starts', {
        sources: created.length,
        watermark: new Date(watermark).toISOString(),
      });
    }
    return { sources: created, watermark };
  } catch (error) {
    context.logger.warn('could not record where unreached new sources start; they start later', {
      sources: unread.length,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
