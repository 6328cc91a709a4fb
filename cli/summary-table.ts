import { SEVERITIES, type Severity } from '../shared/notify/index.js';
import type { AlertCounts, SourceOutcome, TickSummary } from '../shared/poll/index.js';
import { nounFor } from './plural.js';

/**
 * The short report of one tick for stderr: one line of totals, then one line per source that did not
 * end well (failed, cut short, skipped, inventory failed, rules that failed on an event), with what to do where the error says it.
 *
 * @example
 * ```ts
 * process.stderr.write(formatTickReport(summary));
 * // tick 14:02:11Z: 7 sources ok · 118 events (112 new) · 19 alerts: 2 critical, 9 high, 8 medium · Atlas 15 requests · state 23 requests · 1.4 s
 * ```
 */
export function formatTickReport(summary: TickSummary): string {
  const { totals } = summary;
  const parts = [
    sourcesPhrase(summary),
    `${totals.eventsFetched} ${nounFor(totals.eventsFetched, 'event')} (${totals.eventsNew} new)`,
    ...(totals.ruleErrors > 0 ? [`${totals.ruleErrors} ${nounFor(totals.ruleErrors, 'rule error')}`] : []),
    ...(totals.firstSeenStateErrors > 0
      ? [
          `${totals.firstSeenStateErrors} first-seen ${nounFor(totals.firstSeenStateErrors, 'record')} not kept`,
        ]
      : []),
    alertsPhrase(totals.alerts),
    `Atlas ${totals.atlasRequests} ${nounFor(totals.atlasRequests, 'request')}${
      totals.atlasRateLimited > 0 ? ` (${totals.atlasRateLimited} rate limited)` : ''
    }`,
    `state ${totals.stateRequests} ${nounFor(totals.stateRequests, 'request')}`,
    `${(summary.durationMs / 1000).toFixed(1)} s`,
  ];
  const lines = [`tick ${clockTime(summary.startedAt)}: ${parts.join(' · ')}`];
  for (const discovery of summary.discovery) {
    if (discovery.status === 'failed') {
      lines.push(
        `  ! listing the ${discovery.groupId === undefined ? `projects of org ${discovery.orgId}` : `clusters of project ${discovery.groupId}`} failed (${discovery.errorCode ?? 'error'}): ${discovery.message ?? ''}`,
      );
    }
  }
  for (const outcome of summary.sources) lines.push(...sourceLines(outcome));
  return `${lines.join('\n')}\n`;
}

/** One column of {@link formatSummaryTable}. */
export interface SummaryColumn {
  title: string;
  summary: TickSummary;
}

/**
 * A table of ticks side by side, with a total column: sources, events read and new, alerts by
 * severity, events read again (the overlap) and dropped as already processed, Atlas requests and
 * state store requests.
 *
 * @example
 * ```ts
 * stdout.write(formatSummaryTable([{ title: 'tick 1', summary: first }, { title: 'tick 2', summary: second }]));
 * ```
 */
export function formatSummaryTable(columns: readonly SummaryColumn[]): string {
  const sum = (pick: (summary: TickSummary) => number): number =>
    columns.reduce((total, column) => total + pick(column.summary), 0);
  const rows: Array<[string, (summary: TickSummary) => number, boolean]> = [
    ['sources polled', (s) => s.totals.sources, false],
    ['events read', (s) => s.totals.eventsFetched, true],
    ['new events', (s) => s.totals.eventsNew, true],
    ...SEVERITIES.toReversed().map((severity): [string, (summary: TickSummary) => number, boolean] => [
      `alerts ${severity}`,
      (s) => s.totals.alerts.published[severity],
      true,
    ]),
    ['alerts in all', (s) => publishedCount(s.totals.alerts), true],
    ['read again, dropped', (s) => s.totals.eventsFetched - s.totals.eventsNew, true],
    ['Atlas requests', (s) => s.totals.atlasRequests, true],
    ['state store requests', (s) => s.totals.stateRequests, true],
  ];
  const header = ['', ...columns.map((column) => column.title), 'total'];
  const body = rows.map(([label, pick, summed]) => [
    label,
    ...columns.map((column) => String(pick(column.summary))),
    summed ? String(sum(pick)) : '',
  ]);
  const widths = header.map((_, index) =>
    Math.max(...[header, ...body].map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0),
      )
      .join('   ')
      .trimEnd();
  const rule = '─'.repeat(widths.reduce((total, width) => total + width, 0) + 3 * (widths.length - 1));
  return `${[line(header), rule, ...body.map(line)].join('\n')}\n`;
}

/**
 * The number of alerts a tick delivered.
 *
 * @example
 * ```ts
 * publishedCount(summary.totals.alerts); // 19
 * ```
 */
export function publishedCount(alerts: AlertCounts): number {
  return SEVERITIES.reduce((total, severity) => total + alerts.published[severity], 0);
}

function sourcesPhrase(summary: TickSummary): string {
  const { totals } = summary;
  const failed = summary.sources.filter((outcome) => outcome.status === 'failed').length;
  const counts = [
    `${totals.sourcesOk} ok`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(totals.sourcesCutShort > 0 ? [`${totals.sourcesCutShort} cut short`] : []),
    ...(totals.sourcesSkipped > 0 ? [`${totals.sourcesSkipped} skipped`] : []),
  ];
  return `${totals.sources} ${nounFor(totals.sources, 'source')} (${counts.join(', ')})`;
}

function alertsPhrase(alerts: AlertCounts): string {
  const published = publishedCount(alerts);
  const bySeverity = SEVERITIES.toReversed()
    .filter((severity: Severity) => alerts.published[severity] > 0)
    .map((severity) => `${alerts.published[severity]} ${severity}`);
  const failed = SEVERITIES.reduce((total, severity) => total + alerts.failed[severity], 0);
  return [
    `${published} ${nounFor(published, 'alert')}${bySeverity.length > 0 ? `: ${bySeverity.join(', ')}` : ''}`,
    ...(alerts.alreadySent > 0 ? [`${alerts.alreadySent} already sent`] : []),
    ...(failed > 0 ? [`${failed} NOT DELIVERED`] : []),
  ].join(', ');
}

function sourceLines(outcome: SourceOutcome): string[] {
  const lines: string[] = [];
  const name =
    outcome.connection === undefined
      ? outcome.source
      : `${outcome.source} (connection ${outcome.connection})`;
  const status = outcome.httpStatus === undefined ? '' : `${outcome.httpStatus} `;
  switch (outcome.status) {
    case 'failed':
      lines.push(`  ! ${name} failed: ${status}${outcome.errorCode ?? ''}: ${outcome.message ?? ''}`);
      break;
    case 'cut-short':
      lines.push(
        `  ~ ${name} stopped early (${outcome.reason ?? 'cut short'}): the rest is read on the next tick`,
      );
      break;
    case 'skipped-lease-held':
      lines.push(
        `  ~ ${name} skipped: ${outcome.leaseHeldBy?.owner ?? 'another worker'} is polling it${
          outcome.leaseHeldBy === undefined
            ? ''
            : ` (lease until ${clockTime(outcome.leaseHeldBy.expiresAt)})`
        }`,
      );
      break;
    default:
      break;
  }
  if (outcome.ruleErrors > 0) {
    lines.push(
      `  ! ${name}: ${outcome.ruleErrors} ${nounFor(outcome.ruleErrors, 'rule')} failed on an event (logged with the rule and event ids); each event was skipped for that rule only and the walk went on`,
    );
  }
  if (outcome.firstSeenStateErrors > 0) {
    lines.push(
      `  ! ${name}: ${outcome.firstSeenStateErrors} first-seen ${nounFor(outcome.firstSeenStateErrors, 'record')} not kept by the state store (logged with the rule and event ids); those groups' events were not judged first-seen, and everything else went on`,
    );
  }
  const inventory = outcome.inventory;
  if (inventory?.status === 'failed') {
    lines.push(
      `  ! ${name} API key inventory failed: ${inventory.errorCode ?? ''}: ${inventory.message ?? ''}`,
    );
  }
  const invalid = inventory?.invalidEntries ?? 0;
  if (invalid > 0) {
    lines.push(
      `  ! ${name} inventory: ${invalid} ${invalid === 1 ? 'entry' : 'entries'} Atlas listed could not be read and ${invalid === 1 ? 'was' : 'were'} left out (logged); the rest was compared`,
    );
  }
  return lines;
}

function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}
