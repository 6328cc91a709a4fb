import {
  cleanLine,
  cleanLineWithin,
  cleanMultiline,
  sliceCodePoints,
  truncateText,
} from '../text-cleaning.js';
import type { Alert } from './alert.js';
import { type AlertFacts, describeAlert, type Fact, headerFacts } from './alert-facts.js';
import { cutToJsonStringBytes } from './byte-size.js';
import { eventLinks } from './event-links.js';
import { consoleOf, type FormatContext } from './format-context.js';
import { type BoundedJson, boundedPrettyJson } from './json-truncation.js';
import { describeRollUp } from './roll-up-text.js';

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

export interface EmailFormatOptions extends EmailCutOptions {
  context: FormatContext;
}

/** How much of the two unbounded parts of an email, the raw event and the summary, to keep. */
export interface EmailCutOptions {
  /**
   * The most bytes the raw event JSON may take inside the SNS message (see `jsonStringBytes`), or
   * `'omit'` to leave it out. Default: the whole event, pretty-printed.
   */
  rawEventMaxBytes?: number | 'omit';
  /** The most bytes the summary may take inside the SNS message. Default: the whole summary. */
  summaryMaxBytes?: number;
}

export interface EmailComposeOptions {
  context: FormatContext;
  /** The alert's facts when the caller has them already (`describeAlert(alert)`); default: described here. */
  facts?: AlertFacts;
}

/** An email whose fixed parts are written once, rendered as often as a size budget needs. */
export interface EmailComposer {
  render(options?: EmailCutOptions): string;
  /**
   * The email with the whole summary and raw event (what `render()` gives), and whether the raw event
   * JSON left anything out even so: nesting deeper than the uncut pass keeps, or a cycle.
   */
  renderWhole(): { text: string; rawEventCut: boolean };
}

/**
 * The plain-text email of an alert, written for a person: the title, then severity, rule, when (UTC),
 * who and where, and the key it is about; the summary; what changed; the runbook; links; and the raw
 * event JSON last, pretty-printed. Each fact is said once. Text from events is cleaned (no control
 * characters or bidi tricks; values on one line and cut when long); only the raw JSON keeps exact
 * values, JSON-escaped. Never throws.
 *
 * @example
 * ```ts
 * const text = formatEmailText(alert, { context: { now: Date.now() } });
 * ```
 */
export function formatEmailText(alert: Alert, options: EmailFormatOptions): string {
  return composeEmail(alert, { context: options.context }).render(options);
}

/**
 * Writes the parts of an alert's email that do not depend on the size budget, and returns a composer
 * that renders the whole text for a budget: what `buildSnsEntry` uses to try budgets without formatting
 * the alert again each time. Never throws.
 *
 * @example
 * ```ts
 * const email = composeEmail(alert, { context });
 * email.render({ rawEventMaxBytes: 100_000 });
 * ```
 */
export function composeEmail(alert: Alert, options: EmailComposeOptions): EmailComposer {
  const { context } = options;
  const facts = options.facts ?? describeAlert(alert);
  const value = (text: string): string => cleanLineWithin(text, EMAIL_LIMITS.factValueLength);
  const head = [
    cleanLineWithin(alert.title, EMAIL_LIMITS.titleLength),
    alignedFacts(emailHeaderFacts(alert, facts, value)),
  ];
  const tail: string[] = [];
  if (facts.changes.length > 0) {
    tail.push(
      titled(
        'What changed',
        alignedFacts(facts.changes.map((fact) => ({ ...fact, value: value(fact.value) }))),
      ),
    );
  }
  if (alert.runbook !== undefined && alert.runbook.trim() !== '') {
    const runbook = cleanMultiline(sliceCodePoints(alert.runbook, EMAIL_LIMITS.runbookLength * 2)).trim();
    tail.push(titled('Runbook', truncateText(runbook, EMAIL_LIMITS.runbookLength)));
  }
  const links = eventLinks(alert.events.at(-1) ?? {}, consoleOf(context, alert));
  if (links.length > 0)
    tail.push(titled('Links', alignedFacts(links.map(({ label, url }) => ({ label, value: url })))));
  const footer = `--\nSent by atlas-audit-alerts. Alert fingerprint: ${value(alert.fingerprint)}${rulePackLine(alert, value)}`;
  const summary = cleanMultiline(alert.summary).trim();
  const rawEvents = alert.events.length === 1 ? alert.events[0] : alert.events;
  const rawTitle = alert.events.length === 1 ? 'Raw event' : `Raw events (${alert.events.length})`;

  const assemble = (shownSummary: string, rawSection: string): string => {
    const sections = [...head];
    if (shownSummary !== '') sections.push(titled('What happened', shownSummary));
    sections.push(...tail, rawSection, footer);
    return `${sections.join('\n\n')}\n`;
  };

  return {
    render(cut: EmailCutOptions = {}): string {
      const shownSummary =
        cut.summaryMaxBytes === undefined
          ? summary
          : cutToJsonStringBytes(summary, cut.summaryMaxBytes, SUMMARY_CUT_NOTE);
      return assemble(shownSummary, rawEventSection(rawTitle, rawEvents, cut.rawEventMaxBytes));
    },
    renderWhole(): { text: string; rawEventCut: boolean } {
      const json = boundedPrettyJson(rawEvents, { maxBytes: Number.POSITIVE_INFINITY });
      return { text: assemble(summary, rawJsonSection(rawTitle, json)), rawEventCut: json.truncated };
    },
  };
}

function emailHeaderFacts(alert: Alert, facts: AlertFacts, value: (text: string) => string): Fact[] {
  const lines: Fact[] = [
    { label: 'Severity', value: alert.severity.toUpperCase() },
    { label: 'Rule', value: `${value(alert.ruleName)} (${value(alert.ruleId)})` },
    ...headerFacts(facts, alert.raisedAt).map((fact) => ({
      label: fact.label,
      value: value(fact.value),
    })),
  ];
  const types = facts.eventTypes.slice(0, 5).map(value).join(', ');
  if (types !== '') {
    const count = facts.eventCount > 1 ? `, ${facts.eventCount} events` : '';
    const id = facts.eventId === undefined ? '' : `, id ${value(facts.eventId)}`;
    lines.push({ label: 'Event', value: `${types}${count}${facts.eventCount === 1 ? id : ''}` });
  }
  if (alert.rollUp !== undefined) {
    lines.push({ label: 'Repeats', value: value(describeRollUp(alert.rollUp, alert.raisedAt)) });
  }
  return lines;
}

function rawEventSection(title: string, value: unknown, maxBytes: number | 'omit' | undefined): string {
  if (maxBytes === 'omit') return titled(title, RAW_EVENT_OMITTED);
  return rawJsonSection(title, boundedPrettyJson(value, { maxBytes: maxBytes ?? Number.POSITIVE_INFINITY }));
}

function rawJsonSection(title: string, json: BoundedJson): string {
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

/** Which pack and layers the rule comes from, so a reader can tell a tuned rule from a shipped one. */
function rulePackLine(alert: Alert, value: (text: string) => string): string {
  const pack = alert.rulePack;
  if (pack === undefined) return '';
  const version = pack.version === undefined ? '' : `Rule pack ${value(pack.version)}; `;
  return `\n${version}rule ${value(alert.ruleId)} from ${pack.layers.length === 1 ? 'layer' : 'layers'} ${value(pack.layers.join(', '))}.`;
}
