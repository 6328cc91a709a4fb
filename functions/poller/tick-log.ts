import type { LogAttributes } from '../../shared/logger.js';
import { SEVERITIES, severityTotal } from '../../shared/notify/index.js';
import type { SourceOutcome, TickSummary } from '../../shared/poll/index.js';

/** Sources listed one by one in the log line; past this, the healthy ones are only counted. */
export const MAX_LOGGED_SOURCES = 300;

/**
 * The attributes of the one structured log line a tick ends with: totals first (what a Logs Insights
 * query filters on), then each source's outcome, troubled sources first. A summary holds no credential
 * by contract (`SourceOutcome.message` never does), so everything in it may be logged.
 *
 * @example
 * ```ts
 * logger.info('Poll tick summary', tickLogAttributes(summary));
 * ```
 */
export function tickLogAttributes(summary: TickSummary): LogAttributes {
  const { totals } = summary;
  const ordered = [...summary.sources].sort((a, b) => troubleRank(a) - troubleRank(b));
  const listed = ordered.slice(0, Math.max(MAX_LOGGED_SOURCES, ordered.filter(isTroubled).length));
  return {
    completed: summary.completed,
    startedAt: new Date(summary.startedAt).toISOString(),
    durationMs: summary.durationMs,
    totals: {
      sources: totals.sources,
      sourcesOk: totals.sourcesOk,
      sourcesSkipped: totals.sourcesSkipped,
      sourcesCutShort: totals.sourcesCutShort,
      sourceErrors: totals.sourceErrors,
      errorsByCode: totals.errorsByCode,
      eventsFetched: totals.eventsFetched,
      eventsNew: totals.eventsNew,
      ruleErrors: totals.ruleErrors,
      firstSeenStateErrors: totals.firstSeenStateErrors,
      alertsPublished: severityTotal(totals.alerts.published),
      alertsPublishedBySeverity: nonZero(totals.alerts.published),
      alertsFailed: severityTotal(totals.alerts.failed),
      alertsFailedPermanently: totals.alerts.failedPermanently,
      alertsAlreadySent: totals.alerts.alreadySent,
      atlasRequests: totals.atlasRequests,
      atlasRateLimited: totals.atlasRateLimited,
      atlasAuthFailures: totals.atlasAuthFailures,
      stateRequests: totals.stateRequests,
      ...(totals.watermarkLagSeconds === undefined
        ? {}
        : { watermarkLagSeconds: totals.watermarkLagSeconds }),
    },
    sources: listed.map(sourceAttributes),
    ...(listed.length < ordered.length ? { sourcesNotListed: ordered.length - listed.length } : {}),
    ...(summary.discovery.length === 0 ? {} : { discovery: summary.discovery }),
  };
}

function sourceAttributes(outcome: SourceOutcome): Record<string, unknown> {
  const published = severityTotal(outcome.alerts.published);
  const failed = severityTotal(outcome.alerts.failed);
  return {
    source: outcome.source,
    ...(outcome.connection === undefined ? {} : { connection: outcome.connection }),
    status: outcome.status,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    ...(outcome.httpStatus === undefined ? {} : { httpStatus: outcome.httpStatus }),
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    ...(outcome.leaseHeldBy === undefined ? {} : { leaseHeldBy: outcome.leaseHeldBy.owner }),
    pagesRead: outcome.pagesRead,
    eventsFetched: outcome.eventsFetched,
    eventsNew: outcome.eventsNew,
    ...(outcome.ruleErrors === 0 ? {} : { ruleErrors: outcome.ruleErrors }),
    ...(outcome.firstSeenStateErrors === 0 ? {} : { firstSeenStateErrors: outcome.firstSeenStateErrors }),
    alertsPublished: published,
    ...(failed === 0 ? {} : { alertsFailed: failed }),
    ...(outcome.watermark === undefined ? {} : { watermark: new Date(outcome.watermark).toISOString() }),
    ...(outcome.inventory === undefined ? {} : { inventory: outcome.inventory }),
    durationMs: outcome.durationMs,
  };
}

function isTroubled(outcome: SourceOutcome): boolean {
  return troubleRank(outcome) < 3;
}

/** Failed sources first, then cut short, then skipped or with failures inside, then healthy ones. */
function troubleRank(outcome: SourceOutcome): number {
  switch (outcome.status) {
    case 'failed':
      return 0;
    case 'cut-short':
      return 1;
    case 'skipped-lease-held':
      return 2;
    default:
      return outcome.inventory?.status === 'failed' ||
        outcome.ruleErrors > 0 ||
        outcome.firstSeenStateErrors > 0
        ? 2
        : 3;
  }
}

function nonZero(counts: Readonly<Record<string, number>>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const severity of SEVERITIES) {
    const count = counts[severity] ?? 0;
    if (count > 0) result[severity] = count;
  }
  return result;
}
