import type { AtlasClientStats } from '../atlas/atlas-client.js';
import { addAlertCounts, addDestinationCounts, emptyAlertCounts } from './alert-delivery.js';
import type { AlertCounts, DiscoveryOutcome, SourceOutcome, TickSummary, TickTotals } from './tick-types.js';

/** Options of {@link summarizeTick}. */
export interface SummarizeTickOptions {
  startedAt: number;
  finishedAt: number;
  /** The local clock minus Atlas's, from its `Date` header; undefined before Atlas answered. */
  atlasClockSkewMs?: number | undefined;
  sources: SourceOutcome[];
  discovery: DiscoveryOutcome[];
  /** The Atlas client's counters before and after the tick. */
  atlasBefore: AtlasClientStats;
  atlasAfter: AtlasClientStats;
  /** State store requests made during the tick. */
  stateRequests: number;
  /**
   * Watermarks of sources as stored before or pinned during the tick, by source name: the lag of a
   * source the tick did not poll (or whose cursor it never read) comes from here.
   */
  storedWatermarks?: ReadonlyMap<string, number>;
}

/**
 * Adds up a tick's outcomes. `completed` is false when a source was cut short by the deadline or an
 * abort (not when one failed on its own: `sourceErrors` counts those). The watermark lag is taken at
 * `finishedAt` over every source whose cursor the tick read; the oldest source's lag over every
 * source of the tick, with the stored watermark of those it did not read.
 *
 * @example
 * ```ts
 * const summary = summarizeTick({ startedAt, finishedAt: clock.now(), sources, discovery, atlasBefore,
 *   atlasAfter: atlas.stats, stateRequests });
 * ```
 */
export function summarizeTick(options: SummarizeTickOptions): TickSummary {
  const { sources, discovery, atlasBefore, atlasAfter, finishedAt } = options;
  const alerts = emptyAlertCounts();
  const destinations: Record<string, AlertCounts> = {};
  const errorsByCode: Record<string, number> = {};
  let sourceErrors = 0;
  let authFailures = 0;
  const countFailure = (errorCode: string | undefined, httpStatus: number | undefined): void => {
    sourceErrors += 1;
    const code = errorCode ?? 'UNEXPECTED_ERROR';
    errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
    if (httpStatus === 401 || httpStatus === 403) authFailures += 1;
  };
  let oldestWatermark: number | undefined;
  let oldestAnyWatermark: number | undefined;
  for (const source of sources) {
    const watermark = source.watermark ?? options.storedWatermarks?.get(source.source);
    if (watermark !== undefined && (oldestAnyWatermark === undefined || watermark < oldestAnyWatermark)) {
      oldestAnyWatermark = watermark;
    }
    addAlertCounts(alerts, source.alerts);
    if (source.destinations !== undefined) addDestinationCounts(destinations, source.destinations);
    const failure = sourceFailure(source);
    if (failure !== undefined) countFailure(failure.errorCode, failure.httpStatus);
    if (
      source.watermark !== undefined &&
      (oldestWatermark === undefined || source.watermark < oldestWatermark)
    ) {
      oldestWatermark = source.watermark;
    }
  }
  for (const outcome of discovery) {
    if (outcome.status === 'failed') countFailure(outcome.errorCode, outcome.httpStatus);
  }
  const sum = (pick: (source: SourceOutcome) => number): number =>
    sources.reduce((total, source) => total + pick(source), 0);
  const count = (status: SourceOutcome['status']): number =>
    sources.filter((source) => source.status === status).length;
  const totals: TickTotals = {
    sources: sources.length,
    sourcesOk: count('ok'),
    sourcesSkipped: count('skipped-lease-held'),
    sourcesCutShort: count('cut-short'),
    sourceErrors,
    errorsByCode,
    eventsFetched: sum((source) => source.eventsFetched),
    eventsNew: sum((source) => source.eventsNew),
    ruleErrors: sum((source) => source.ruleErrors),
    firstSeenStateErrors: sum((source) => source.firstSeenStateErrors),
    alerts,
    destinations,
    atlasRequests: atlasAfter.requests - atlasBefore.requests,
    atlasRateLimited: atlasAfter.rateLimited - atlasBefore.rateLimited,
    atlasAuthFailures: authFailures,
    stateRequests: options.stateRequests,
    watermarkLagSeconds: lagSeconds(finishedAt, oldestWatermark),
    oldestSourceLagSeconds: lagSeconds(finishedAt, oldestAnyWatermark),
    atlasClockSkewSeconds:
      options.atlasClockSkewMs === undefined ? undefined : Math.round(options.atlasClockSkewMs / 1000),
  };
  return {
    startedAt: options.startedAt,
    finishedAt,
    durationMs: finishedAt - options.startedAt,
    completed: sources.every(
      (source) => source.status !== 'cut-short' || source.reason === 'alert-in-progress',
    ),
    sources,
    discovery,
    totals,
  };
}

/** Now minus a watermark, in whole seconds, never below 0; `undefined` without a watermark. */
export function lagSeconds(now: number, watermark: number | undefined): number | undefined {
  return watermark === undefined ? undefined : Math.max(0, Math.round((now - watermark) / 1000));
}

/**
 * What a source failed with, counted once: its own failure, else its inventory's (an org whose events
 * and inventory both fail counts once); `undefined` when neither failed.
 *
 * @example
 * ```ts
 * sourceFailure(outcome)?.httpStatus; // 403
 * ```
 */
export function sourceFailure(
  source: SourceOutcome,
): { errorCode: string | undefined; httpStatus: number | undefined } | undefined {
  if (source.status === 'failed') return { errorCode: source.errorCode, httpStatus: source.httpStatus };
  const inventory = source.inventory;
  if (inventory?.status === 'failed')
    return { errorCode: inventory.errorCode, httpStatus: inventory.httpStatus };
  return undefined;
}
