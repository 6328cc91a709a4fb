import type { Alert } from './alert.js';
import { type AlertFacts, describeAlert, type Fact } from './alert-facts.js';
import { cutToJsonStringBytes } from './byte-size.js';
import { eventLinks } from './event-links.js';
import type { FormatContext } from './format-context.js';
import { boundedPrettyJson } from './json-truncation.js';
import { formatAgo, formatUtc } from './relative-time.js';
import { cleanLine, cleanMultiline, truncateText } from './text-cleaning.js';

/** Limits of the parts of an email that are not cut to fit the message size. */
export const EMAIL_LIMITS = {
  titleLength: 1_000,
  factValueLength: 500,
  labelLength: 40,
  runbookLength: 8_000,
} as const;

/** What the raw event section says when the size limit leaves no room for it. */
export const RAW_EVENT_OMITTED = '(left out: the message size limit leaves no room for it)';
/** What ends a summary cut to fit the message size limit. */
export const SUMMARY_CUT_NOTE = '\n[summary cut to fit the message size limit]';

export interface EmailFormatOptions {
  context: FormatContext;
  /**
   * The most bytes the raw event JSON may take inside the SNS message (see `jsonStringBytes`), or
   * `'omit'` to leave it out. Default: the whole event, pretty-printed.
   */
  rawEventMaxBytes?: number | 'omit';
  /** The most bytes the summary may take inside the SNS message. Default: the whole summary. */
  summaryMaxBytes?: number;
}

/**
 * The plain-text email of an alert, written for a person: severity and rule name first; then when (UTC
 * and how long ago), who, where; the summary; what changed; the runbook; links; and the raw event JSON
 * last, pretty-printed. Text from events is cleaned (no control characters or bidi tricks; values on one
 * line and cut when long); only the raw JSON keeps exact values, JSON-escaped. Never throws.
 *
 * @example
 * ```ts
 * const text = formatEmailText(alert, { context: { now: Date.now() } });
 * ```
 */
export function formatEmailText(alert: Alert, options: EmailFormatOptions): string {
  const { context } = options;
  const facts = describeAlert(alert);
  const value = (text: string): string => truncateText(cleanLine(text), EMAIL_LIMITS.factValueLength);
  const severity = alert.severity.toUpperCase();
  const sections: string[] = [];

  sections.push(
    [
      `${severity}: ${value(alert.ruleName)} (rule ${value(alert.ruleId)})`,
      '',
      truncateText(cleanLine(alert.title), EMAIL_LIMITS.titleLength),
    ].join('\n'),
  );
  sections.push(alignedFacts(headerFacts(alert, facts, context, value)));

  const summary = summaryText(alert.summary, options.summaryMaxBytes);
  if (summary !== '') sections.push(titled('What happened', summary));
  if (facts.changes.length > 0) {
    sections.push(
      titled(
        'What changed',
        alignedFacts(facts.changes.map((fact) => ({ ...fact, value: value(fact.value) }))),
      ),
    );
  }
  if (alert.runbook !== undefined && alert.runbook.trim() !== '') {
    sections.push(
      titled('Runbook', truncateText(cleanMultiline(alert.runbook).trim(), EMAIL_LIMITS.runbookLength)),
    );
  }
  const links = eventLinks(alert.events.at(-1) ?? {}, context.console);
  if (links.length > 0)
    sections.push(titled('Links', alignedFacts(links.map(({ label, url }) => ({ label, value: url })))));
  sections.push(rawEventSection(alert, options.rawEventMaxBytes));
  sections.push(`--\nSent by atlas-audit-alerts. Alert fingerprint: ${value(alert.fingerprint)}`);
  return `${sections.join('\n\n')}\n`;
}

function headerFacts(
  alert: Alert,
  facts: AlertFacts,
  context: FormatContext,
  value: (text: string) => string,
): Fact[] {
  const last = facts.lastEventAt ?? alert.raisedAt;
  const first = facts.firstEventAt ?? last;
  const when =
    first === last
      ? `${formatUtc(last)} (${formatAgo(last, context.now)})`
      : `${formatUtc(first)} to ${formatUtc(last)} (last ${formatAgo(last, context.now)})`;
  const who =
    facts.actors.length === 0
      ? 'no user recorded (Atlas or an automated process)'
      : `${facts.actors.map(value).join(', ')}${facts.moreActors > 0 ? ` and ${facts.moreActors} more` : ''}`;
  const lines: Fact[] = [
    { label: 'Severity', value: alert.severity.toUpperCase() },
    { label: 'When', value: when },
    { label: 'Who', value: who },
    ...facts.where.map((fact) => ({ label: fact.label, value: value(fact.value) })),
  ];
  const types = facts.eventTypes.slice(0, 5).map(value).join(', ');
  if (types !== '') {
    const count = facts.eventCount > 1 ? `, ${facts.eventCount} events` : '';
    const id = facts.eventId === undefined ? '' : `, id ${value(facts.eventId)}`;
    lines.push({ label: 'Event', value: `${types}${count}${facts.eventCount === 1 ? id : ''}` });
  }
  return lines;
}

function summaryText(summary: string, maxBytes: number | undefined): string {
  const text = cleanMultiline(summary).trim();
  return maxBytes === undefined ? text : cutToJsonStringBytes(text, maxBytes, SUMMARY_CUT_NOTE);
}

function rawEventSection(alert: Alert, maxBytes: number | 'omit' | undefined): string {
  const title = alert.events.length === 1 ? 'Raw event' : `Raw events (${alert.events.length})`;
  if (maxBytes === 'omit') return titled(title, RAW_EVENT_OMITTED);
  const value = alert.events.length === 1 ? alert.events[0] : alert.events;
  const json = boundedPrettyJson(value, { maxBytes: maxBytes ?? Number.POSITIVE_INFINITY });
  if (json.text === '') return titled(title, RAW_EVENT_OMITTED);
  const note = json.truncated
    ? ' (cut to fit the message size limit: long values and lists are shortened)'
    : '';
  return titled(`${title}${note}`, json.text);
}

function titled(title: string, body: string): string {
  return `${title}\n${'-'.repeat(Math.min(title.length, 72))}\n${body}`;
}

function alignedFacts(facts: readonly Fact[]): string {
  const labels = facts.map((fact) => `${truncateText(cleanLine(fact.label), EMAIL_LIMITS.labelLength)}:`);
  const width = Math.max(0, ...labels.map((label) => label.length)) + 2;
  return facts.map((fact, index) => `${(labels[index] ?? '').padEnd(width)}${fact.value}`).join('\n');
}
