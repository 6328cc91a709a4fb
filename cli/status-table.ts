import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import type { SourceReport } from '../shared/state/index.js';
import { cleanVisibleLine } from '../shared/text-cleaning.js';
import { formatDuration } from './duration-option.js';

const HEADERS = ['SOURCE', 'WATERMARK', 'LAG', 'LAST POLL', 'ALERTS 24H', 'LEASE', 'LAST ERROR'] as const;

/**
 * The sources as a table for a terminal, one row each: the watermark (UTC), the lag behind now, how
 * long ago the last poll was, alerts sent in the last day, who holds the lease and until when, and
 * the last error's code and message. Columns are padded to their widest cell; the last error is the
 * last column, so a long message only runs off to the right. `-` marks what is not recorded.
 *
 * @example
 * ```ts
 * process.stdout.write(formatStatusTable(reports, Date.now()));
 * ```
 */
export function formatStatusTable(reports: readonly SourceReport[], now: number): string {
  if (reports.length === 0) {
    return 'no sources in this state store yet: a run (or the Lambda) records each source it polls\n';
  }
  // Grouped by connection, with its column, once a source was polled through one besides default.
  const connections = reports.some((report) => report.connection !== undefined);
  const ordered = connections
    ? [...reports].sort((a, b) => connectionOf(a).localeCompare(connectionOf(b)))
    : reports;
  const headers = connections ? ['CONNECTION', ...HEADERS] : [...HEADERS];
  const rows = ordered.map((report) => [
    ...(connections ? [connectionOf(report)] : []),
    report.source,
    report.watermark === undefined ? '-' : utc(report.watermark),
    report.watermark === undefined ? '-' : formatDuration(Math.max(0, now - report.watermark)),
    report.polledAt === undefined ? 'never' : `${formatDuration(Math.max(0, now - report.polledAt))} ago`,
    String(report.alertsLastDay),
    report.lease === undefined ? '-' : `${report.lease.owner} until ${utc(report.lease.expiresAt)}`,
    report.lastError === undefined
      ? '-'
      : `${report.lastError.code} ${formatDuration(Math.max(0, now - report.lastError.at))} ago: ${oneLine(report.lastError.message)}`,
  ]);
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** The connection a source was polled through: `default` when the store recorded none. */
function connectionOf(report: SourceReport): string {
  return report.connection ?? DEFAULT_CONNECTION;
}

/**
 * The sources as one JSON document: `{ now, sources: [...] }`, times as ISO-8601 strings and the
 * lag in seconds, so scripts need no epoch arithmetic.
 *
 * @example
 * ```ts
 * JSON.parse(formatStatusJson(reports, Date.now())).sources[0].lagSeconds;
 * ```
 */
export function formatStatusJson(reports: readonly SourceReport[], now: number): string {
  const iso = (ms: number | undefined): string | null =>
    ms === undefined ? null : new Date(ms).toISOString();
  const sources = reports.map((report) => ({
    source: report.source,
    connection: connectionOf(report),
    watermark: iso(report.watermark),
    lagSeconds:
      report.watermark === undefined ? null : Math.max(0, Math.round((now - report.watermark) / 1000)),
    lastPoll: iso(report.polledAt),
    alertsLastDay: report.alertsLastDay,
    lease:
      report.lease === undefined
        ? null
        : { owner: report.lease.owner, expiresAt: iso(report.lease.expiresAt) },
    lastError:
      report.lastError === undefined
        ? null
        : { at: iso(report.lastError.at), code: report.lastError.code, message: report.lastError.message },
  }));
  return `${JSON.stringify({ now: iso(now), sources }, null, 2)}\n`;
}

function utc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Control characters (a newline in a message) would break the row, and a bidi override or an invisible
 * character kept in state (by a version that did not clean Atlas's words) would make it read wrong.
 */
function oneLine(text: string): string {
  return cleanVisibleLine(text).replace(/\uFFFD+/g, ' ');
}
