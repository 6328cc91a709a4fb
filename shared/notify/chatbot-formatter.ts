import type { Alert, Severity } from './alert.js';
import { type AlertFacts, describeAlert, type Fact, timeAndActorFacts } from './alert-facts.js';
import {
  CHATBOT_DESCRIPTION_MAX_LENGTH,
  CHATBOT_TITLE_MAX_LENGTH,
  type ChatbotNotification,
} from './chatbot-notification.js';
import { eventLinks } from './event-links.js';
import { fingerprintDigest } from './fingerprint-digest.js';
import { consoleOf, type FormatContext } from './format-context.js';
import { formatHeadline } from './headline.js';
import { allowedMentionTokens } from './mentions.js';
import { describeRollUp } from './roll-up-text.js';
import { escapeSlackText } from './slack-escape.js';
import { severityLabel } from './subject.js';

/**
 * Limits this project keeps where the Chatbot guide gives none: a notification stays readable in a
 * channel, and far below the SNS size limit whatever the events hold.
 */
export const CHATBOT_LIMITS = {
  factValueLength: 200,
  changeLines: 6,
  summaryLength: 200,
  nextSteps: 10,
  nextStepLength: 500,
  keywords: 10,
  keywordLength: 60,
  contextValueLength: 256,
  eventTypeLength: 128,
} as const;

const SEVERITY_EMOJI: Readonly<Partial<Record<Severity, string>>> = {
  critical: ':rotating_light:',
  high: ':red_circle:',
  medium: ':large_orange_circle:',
  low: ':large_yellow_circle:',
  info: ':information_source:',
};

export interface ChatbotFormatOptions {
  context: FormatContext;
  /** The alert's facts when the caller has them already (`describeAlert(alert)`); default: described here. */
  facts?: AlertFacts;
}

/**
 * The AWS Chatbot custom notification of an alert: what Slack shows. The title is the severity and the
 * headline (what, where, who); the description the summary, then each fact once; the tags are the
 * rule's tags. Every text that comes from the alert or its events is escaped for Slack (see `slack-escape.ts`); a mention survives only where the
 * rule allows mentions and the events do not carry it (see `mentions.ts`). The result always satisfies
 * `chatbotNotificationSchema`. Never throws, whatever the events hold.
 *
 * @example
 * ```ts
 * const notification = formatChatbotNotification(alert, { context: { now: Date.now() } });
 * JSON.stringify(notification); // the `default` text of the SNS message
 * ```
 */
export function formatChatbotNotification(alert: Alert, options: ChatbotFormatOptions): ChatbotNotification {
  const { context } = options;
  const facts = options.facts ?? describeAlert(alert);
  const mentions = allowedMentionTokens(alert);
  const digest = fingerprintDigest(alert.fingerprint);
  const label = severityLabel(alert.severity);
  // A severity outside the type still formats; the validator then refuses the entry.
  const emoji = SEVERITY_EMOJI[alert.severity] ?? ':warning:';
  const firstEvent = alert.events[0] ?? {};
  const links = eventLinks(alert.events.at(-1) ?? {}, consoleOf(context, alert));
  const consoleLink = links.find((link) => link.kind === 'console');

  const headline = `${label} ${formatHeadline(alert, facts)}`;
  const title = escapeSlackText(headline, {
    allowedMentions: mentions,
    maxLength: CHATBOT_TITLE_MAX_LENGTH - emoji.length - 1,
  });
  // The console link is a next step: said there, once.
  const factLines = describeFacts(alert, facts);
  const factsText = fitLines(factLines, CHATBOT_DESCRIPTION_MAX_LENGTH);
  const summaryRoom = CHATBOT_DESCRIPTION_MAX_LENGTH - factsText.length - 2;
  const summary =
    summaryRoom > 0
      ? escapeSlackText(alert.summary, { multiline: true, allowedMentions: mentions, maxLength: summaryRoom })
      : '';
  const description = summary.trim() === '' ? factsText : `${summary}\n\n${factsText}`;

  const notification: ChatbotNotification = {
    version: '1.0',
    source: 'custom',
    id: `atlas-audit-alerts-${digest}`,
    content: {
      textType: 'client-markdown',
      title: `${emoji} ${title}`,
      description,
      nextSteps: nextSteps(alert, facts, mentions, consoleLink),
      keywords: keywords(alert),
    },
    metadata: {
      threadId: `atlas-audit-alerts-${digest}`,
      summary: escapeSlackText(headline, { maxLength: CHATBOT_LIMITS.summaryLength }),
      eventType: escapeSlackText(facts.eventTypes[0] ?? 'UNKNOWN', {
        maxLength: CHATBOT_LIMITS.eventTypeLength,
      }),
      relatedResources: links.map((link) => slackUrl(link.url)),
      additionalContext: additionalContext(alert, facts, firstEvent),
    },
  };
  return notification;
}

function describeFacts(alert: Alert, facts: AlertFacts): string[] {
  const value = (text: string): string =>
    escapeSlackText(text, { maxLength: CHATBOT_LIMITS.factValueLength });
  const line = (fact: Fact): string =>
    `*${escapeSlackText(fact.label, { maxLength: 60 })}:* ${value(fact.value)}`;
  const lines = [`*Rule:* ${value(alert.ruleName)} (${value(alert.ruleId)})`];
  // Next to the rule, where a description cut to fit keeps it.
  if (alert.rollUp !== undefined)
    lines.push(`*Repeats:* ${value(describeRollUp(alert.rollUp, alert.raisedAt))}`);
  lines.push(...timeAndActorFacts(facts, alert.raisedAt).map(line));
  if (facts.where.length > 0)
    lines.push(`*Where:* ${facts.where.map((fact) => factText(fact, value)).join(', ')}`);
  lines.push(...facts.credential.map(line));
  lines.push(...facts.changes.slice(0, CHATBOT_LIMITS.changeLines).map(line));
  const types = facts.eventTypes.slice(0, 5).map(value).join(', ');
  if (types !== '')
    lines.push(`*Event:* ${types}${facts.eventCount > 1 ? ` (${facts.eventCount} events)` : ''}`);
  return lines;
}

function factText(fact: Fact, value: (text: string) => string): string {
  return `${fact.label} ${value(fact.value)}`;
}

/** What the next steps say when the rule has no runbook: whom to ask depends on who is known. */
export const DEFAULT_NEXT_STEP = {
  actor: 'Check with the person under Who that this change was expected.',
  inventory:
    'Find who made this change in the activity feed of the organization or project, and check that it was expected.',
  nobody:
    'Check the event in the activity feed of the organization or project and decide whether it needs action.',
} as const;

function nextSteps(
  alert: Alert,
  facts: AlertFacts,
  mentions: ReadonlySet<string>,
  consoleLink: { url: string; label: string } | undefined,
): string[] {
  const steps = (alert.runbook ?? '')
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => line.trim().replace(/^(?:[-*\u2022]|\d+[.)])\s+/, ''))
    .filter((line) => line !== '')
    .slice(0, CHATBOT_LIMITS.nextSteps - 1)
    .map((line) =>
      escapeSlackText(line, { allowedMentions: mentions, maxLength: CHATBOT_LIMITS.nextStepLength }),
    );
  if (steps.length === 0) {
    steps.push(
      facts.finding !== undefined
        ? DEFAULT_NEXT_STEP.inventory
        : facts.actors.length > 0
          ? DEFAULT_NEXT_STEP.actor
          : DEFAULT_NEXT_STEP.nobody,
    );
  }
  if (consoleLink !== undefined)
    steps.push(
      `Open the ${slackLink(consoleLink.url, `${consoleLink.label.charAt(0).toLowerCase()}${consoleLink.label.slice(1)}`)}.`,
    );
  return steps;
}

/** The rule's tags: severity, rule and place are in the title and the description already. */
function keywords(alert: Alert): string[] {
  const out: string[] = [];
  for (const tag of alert.tags) {
    const keyword = escapeSlackText(tag, { maxLength: CHATBOT_LIMITS.keywordLength }).trim();
    if (keyword !== '' && !out.includes(keyword)) out.push(keyword);
    if (out.length === CHATBOT_LIMITS.keywords) break;
  }
  return out;
}

function additionalContext(
  alert: Alert,
  facts: AlertFacts,
  firstEvent: Record<string, unknown>,
): Record<string, string> {
  const context: Record<string, string> = {
    ruleId: alert.ruleId,
    severity: alert.severity,
    fingerprint: alert.fingerprint,
    eventCount: String(facts.eventCount),
  };
  if (facts.eventId !== undefined) context.eventId = facts.eventId;
  if (alert.rulePack !== undefined) {
    if (alert.rulePack.version !== undefined) context.rulePackVersion = alert.rulePack.version;
    if (alert.rulePack.layers.length > 0) context.ruleLayers = alert.rulePack.layers.join(', ');
  }
  for (const key of ['orgId', 'groupId'] as const) {
    const value = firstEvent[key];
    if (typeof value === 'string' && value !== '') context[key] = value;
  }
  const escaped: Record<string, string> = {};
  for (const [key, value] of Object.entries(context)) {
    escaped[key] = escapeSlackText(value, { maxLength: CHATBOT_LIMITS.contextValueLength });
  }
  return escaped;
}

/** Joins lines, leaving out whole lines from the end until the text fits `maxLength`. */
function fitLines(lines: readonly string[], maxLength: number): string {
  const kept = [...lines];
  let text = kept.join('\n');
  while (text.length > maxLength && kept.length > 1) {
    kept.pop();
    text = kept.join('\n');
  }
  return text.slice(0, maxLength);
}

/** A URL as Slack reads it inside `<url|label>`: `&` escaped, `|` percent-encoded. */
function slackUrl(url: string): string {
  return url.replace(/\|/g, '%7C').replace(/&/g, '&amp;');
}

function slackLink(url: string, label: string): string {
  return `<${slackUrl(url)}|${label}>`;
}
