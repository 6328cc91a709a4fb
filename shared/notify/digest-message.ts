import type { DigestEntry } from '../state/digest-store.js';
import { cleanLine } from '../text-cleaning.js';
import { CHATBOT_DESCRIPTION_MAX_LENGTH, type ChatbotNotification } from './chatbot-notification.js';
import { DIGEST_ACTORS_SHOWN, type DigestGroup, groupDigestEntries } from './digest-groups.js';
import type { DigestPeriod } from './digest-period.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';
import { escapeSlackText } from './slack-escape.js';
import type { SnsEntry } from './sns-entry.js';
import { severityLabel } from './subject.js';
import { assertValidSnsEntry } from './validate-sns-entry.js';

/** The message attribute that names the route a digest is for: its subscriptions take only that route's. */
export const DIGEST_ATTRIBUTE = 'digest';

/** Room a part keeps in the Slack description for its header and its "N more" line. */
const SLACK_GROUPS_BUDGET = CHATBOT_DESCRIPTION_MAX_LENGTH - 1_000;
/** Room a part keeps in the email for the Slack part of the same message, header and footer. */
const EMAIL_GROUPS_BUDGET_BYTES = MAX_MESSAGE_BYTES - 3 * CHATBOT_DESCRIPTION_MAX_LENGTH * 6 - 8_192;
/** An absolute http(s) URL with nothing Slack's link syntax or a mail reader could read otherwise. */
const SAFE_LINK = /^https?:\/\/[A-Za-z0-9.:-]+(\/[A-Za-z0-9._~\-/#%?=&]*)?$/;
/** Longest text of one value in a group's lines. */
const VALUE_LENGTH = 200;

export interface DigestMessageOptions {
  /** The route's name (its `digest` attribute). */
  route: string;
  period: DigestPeriod;
  /** The period's entries, any order. */
  entries: readonly DigestEntry[];
}

/**
 * The SNS entries of one route's digest for one period: one message (email text and an AWS Chatbot
 * notification) that groups the entries by rule and project with counts, first and last time, actors,
 * a link to the Atlas activity feed and the roll-ups of suppressed repeats; split into parts when
 * one message would pass the Chatbot description limit or SNS's size limit, each part saying in
 * words how many groups and alerts the following parts hold. Each part carries the one attribute
 * `digest` (the route) and is checked by `validateSnsEntry`. Every text from events is escaped for
 * Slack. Returns no entry for no entries.
 *
 * @throws InvalidSnsEntryError if a part breaks a rule of SNS (a bug: parts are sized to fit).
 *
 * @example
 * ```ts
 * const parts = buildDigestEntries({ route: 'security', period: digestPeriodAt('daily', day), entries });
 * parts[0]?.Subject; // '[DIGEST] security: 42 alerts, daily 2026-11-27'
 * ```
 */
export function buildDigestEntries(options: DigestMessageOptions): SnsEntry[] {
  const groups = groupDigestEntries(options.entries);
  if (groups.length === 0) return [];
  const blocks = groups.map((group) => ({
    group,
    email: emailBlock(group),
    slack: slackBlock(group),
  }));
  const parts: Array<typeof blocks> = [];
  let current: typeof blocks = [];
  let slackLength = 0;
  let emailBytes = 0;
  for (const block of blocks) {
    const blockBytes = Buffer.byteLength(block.email) * 2;
    if (
      current.length > 0 &&
      (slackLength + block.slack.length + 2 > SLACK_GROUPS_BUDGET ||
        emailBytes + blockBytes > EMAIL_GROUPS_BUDGET_BYTES)
    ) {
      parts.push(current);
      current = [];
      slackLength = 0;
      emailBytes = 0;
    }
    current.push(block);
    slackLength += block.slack.length + 2;
    emailBytes += blockBytes;
  }
  parts.push(current);

  const total = options.entries.length;
  return parts.map((part, index) => {
    const later = parts.slice(index + 1).flat();
    const laterAlerts = later.reduce((sum, block) => sum + block.group.count, 0);
    const number = parts.length === 1 ? '' : ` (part ${index + 1} of ${parts.length})`;
    const when = describePeriod(options.period);
    const short = parts.length === 1 ? '' : ` (${index + 1}/${parts.length})`;
    const iso = new Date(options.period.start).toISOString();
    const day =
      options.period.every === 'daily' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`;
    // At most 9 + 32 + 2 + 14 + 2 + 20 + 12 = 91 characters: within SNS's subject limit.
    const subject = `[DIGEST] ${options.route}: ${countOf(total, 'alert')}, ${options.period.every} ${day}${short}`;
    const more =
      later.length === 0
        ? undefined
        : `${capitalize(inWords(later.length))} more ${later.length === 1 ? 'group' : 'groups'} (${countOf(laterAlerts, 'alert')}) ${later.length === 1 ? 'is' : 'are'} in part ${index + 2}${parts.length > index + 2 ? ` to ${parts.length}` : ''} of this digest.`;
    const partAlerts = part.reduce((sum, block) => sum + block.group.count, 0);
    const intro = `${countOf(partAlerts, 'alert')} below the route's digest severity, in ${countOf(part.length, 'group')}${number}. Each alert was published once as it was raised; this route's email and Slack receive them here instead.`;
    const email = [
      `Digest of route ${options.route}: ${countOf(total, 'alert')}, ${when}${number}`,
      '',
      intro,
      '',
      ...part.map((block) => block.email),
      ...(more === undefined ? [] : [more, '']),
    ].join('\n');
    const notification: ChatbotNotification = {
      version: '1.0',
      source: 'custom',
      id: `digest-${options.route}-${options.period.id}-${index + 1}`,
      content: {
        textType: 'client-markdown',
        title: `:memo: Digest of route ${options.route}: ${countOf(total, 'alert')}, ${when}${number}`,
        description: [intro, ...part.map((block) => block.slack), ...(more === undefined ? [] : [more])].join(
          '\n\n',
        ),
        keywords: ['digest', options.route],
      },
      metadata: {
        threadId: `digest-${options.route}-${options.period.id}`,
        summary: `Digest of route ${options.route}: ${countOf(total, 'alert')}`,
      },
    };
    const entry: SnsEntry = {
      Id: `digest-${index + 1}`,
      Subject: subject,
      Message: JSON.stringify({ default: JSON.stringify(notification), email }),
      MessageStructure: 'json',
      MessageAttributes: { [DIGEST_ATTRIBUTE]: { DataType: 'String', StringValue: options.route } },
    };
    assertValidSnsEntry(entry);
    return entry;
  });
}

/** The bytes SNS counts for a digest part: for benchmarks and tests. */
export function digestEntryBytes(entry: SnsEntry): number {
  return snsEntryBytes(entry);
}

function emailBlock(group: DigestGroup): string {
  const value = (text: string): string => cut(cleanLine(text));
  const lines = [`${severityLabel(group.severity)} ${value(group.ruleName)} (${value(group.ruleId)})`];
  lines.push(`  Where: ${value(place(group))}`);
  lines.push(`  ${countOf(group.count, 'alert')}: ${span(group)}`);
  if (group.actors.length > 0) lines.push(`  Actors: ${value(actorsText(group.actors))}`);
  if (group.rollUp !== undefined) lines.push(`  Repeats: ${repeatsText(group.rollUp)}`);
  if (group.link !== undefined && SAFE_LINK.test(group.link)) lines.push(`  Activity feed: ${group.link}`);
  lines.push('');
  return lines.join('\n');
}

function slackBlock(group: DigestGroup): string {
  const value = (text: string): string => escapeSlackText(text, { maxLength: VALUE_LENGTH });
  const lines = [
    `*${severityLabel(group.severity)}* ${value(group.ruleName)} (${value(group.ruleId)}) in ${value(place(group))}`,
    `${countOf(group.count, 'alert')}: ${span(group)}`,
  ];
  if (group.actors.length > 0) lines.push(`Actors: ${value(actorsText(group.actors))}`);
  if (group.rollUp !== undefined) lines.push(`Repeats: ${repeatsText(group.rollUp)}`);
  // Links are built from ids checked to be 24 hexadecimal characters and the configured base; one read
  // back from the store that is not such a URL is left out rather than put into Slack's link syntax.
  if (group.link !== undefined && SAFE_LINK.test(group.link)) lines.push(`<${group.link}|Activity feed>`);
  return lines.join('\n');
}

/** The suppressed repeats a group's alerts told of, as the digest says them. */
function repeatsText(rollUp: NonNullable<DigestGroup['rollUp']>): string {
  if (rollUp.suppressed === 1) return `1 more like these at ${time(rollUp.first)} UTC was suppressed`;
  const span =
    rollUp.first === rollUp.last
      ? `at ${time(rollUp.first)}`
      : `between ${time(rollUp.first)} and ${time(rollUp.last)}`;
  return `${rollUp.suppressed} more like these ${span} UTC were suppressed`;
}

function place(group: DigestGroup): string {
  if (group.groupId !== undefined) {
    return group.projectName === undefined
      ? `project ${group.groupId}`
      : `project ${group.projectName} (${group.groupId})`;
  }
  return group.orgId === undefined ? 'no project' : `organization ${group.orgId}`;
}

function span(group: DigestGroup): string {
  if (group.first === group.last) return `at ${time(group.first)} UTC`;
  return `first ${time(group.first)}, last ${time(group.last)} UTC`;
}

function actorsText(actors: readonly string[]): string {
  const shown = actors.slice(0, DIGEST_ACTORS_SHOWN).join(', ');
  const hidden = actors.length - DIGEST_ACTORS_SHOWN;
  return hidden > 0 ? `${shown} and ${inWords(hidden)} more` : shown;
}

function describePeriod(period: DigestPeriod): string {
  const iso = new Date(period.start).toISOString();
  return period.every === 'daily'
    ? `daily ${iso.slice(0, 10)} UTC`
    : `hourly ${iso.slice(0, 10)} ${iso.slice(11, 13)}:00 UTC`;
}

function time(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

function cut(text: string): string {
  return text.length <= VALUE_LENGTH ? text : `${text.slice(0, VALUE_LENGTH - 1)}…`;
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/**
 * A count in English words below a million (`three`, `forty-two`, `one thousand two hundred`), in
 * digits from there.
 *
 * @example
 * ```ts
 * inWords(342); // 'three hundred forty-two'
 * ```
 */
export function inWords(count: number): string {
  if (!Number.isInteger(count) || count < 0 || count >= 1_000_000) return String(count);
  if (count < 20) return SMALL[count] as string;
  if (count < 100) {
    const ones = count % 10;
    return `${TENS[Math.floor(count / 10)]}${ones === 0 ? '' : `-${SMALL[ones]}`}`;
  }
  if (count < 1_000) {
    const rest = count % 100;
    return `${SMALL[Math.floor(count / 100)]} hundred${rest === 0 ? '' : ` ${inWords(rest)}`}`;
  }
  const rest = count % 1_000;
  return `${inWords(Math.floor(count / 1_000))} thousand${rest === 0 ? '' : ` ${inWords(rest)}`}`;
}
