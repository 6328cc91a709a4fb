import { createHash, type Hash } from 'node:crypto';
import { generateAlertMix } from '../../../bench/support/alert-mix.js';
import { createRandom } from '../../../bench/support/random.js';
import { cutToJsonStringBytes, jsonStringBytes } from '../../../shared/notify/byte-size.js';
import { formatChatbotNotification } from '../../../shared/notify/chatbot-formatter.js';
import { formatEmailText } from '../../../shared/notify/email-formatter.js';
import { snsEntryBytes } from '../../../shared/notify/entry-size.js';
import { buildMessageAttributes } from '../../../shared/notify/message-attributes.js';
import { escapeSlackText } from '../../../shared/notify/slack-escape.js';
import { buildSnsEntry, type SnsEntry } from '../../../shared/notify/sns-entry.js';
import { formatSubject } from '../../../shared/notify/subject.js';
import { validateSnsEntry } from '../../../shared/notify/validate-sns-entry.js';
import { cleanLine, cleanLineWithin, cleanMultiline } from '../../../shared/text-cleaning.js';
import { NOW } from './alerts.js';
import { hostileText, variedAlerts } from './varied-alerts.js';

/**
 * One SHA-256 over everything formatting writes for a few thousand varied alerts (see
 * `varied-alerts.ts`): every SNS entry (subject, Chatbot JSON, email text, attributes, cuts), the
 * validator's verdict on it and on broken copies of it, and the text helpers' output over hostile text
 * with every option. Any change to any byte of any of them changes the digest.
 */

export interface FormatDigest {
  /** Hex SHA-256 of all outputs, in order. */
  sha256: string;
  /** How many alerts were formatted. */
  alerts: number;
  /** How many entries the validator refused (hostile severities, over-long ids). */
  invalid: number;
}

/**
 * Formats the varied alerts and returns the digest of everything written.
 *
 * @example
 * ```ts
 * (await formatDigest()).sha256;
 * ```
 */
export async function formatDigest(): Promise<FormatDigest> {
  const hash = createHash('sha256');
  const base = await generateAlertMix({ count: 600, seed: 7 });
  const cases = variedAlerts(base, { seed: 3, variants: 4, hugeEvery: 500, now: NOW });
  let invalid = 0;
  cases.forEach(({ alert, context, maxBytes }, index) => {
    const entry = buildSnsEntry(alert, {
      id: `alert-${index}`,
      context,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });
    const validation = validateSnsEntry(entry, maxBytes === undefined ? {} : { maxBytes });
    if (!validation.valid) invalid += 1;
    write(hash, JSON.stringify(entry), JSON.stringify(validation), String(snsEntryBytes(entry)));
    if (index % 7 === 0) digestBrokenCopies(hash, entry);
    if (index % 5 === 0) {
      write(hash, JSON.stringify(formatChatbotNotification(alert, { context })));
      write(hash, formatEmailText(alert, { context, rawEventMaxBytes: 1 + (index % 3_000) }));
      write(
        hash,
        formatEmailText(alert, { context, rawEventMaxBytes: 'omit', summaryMaxBytes: index % 400 }),
      );
      write(hash, formatSubject(alert), JSON.stringify(buildMessageAttributes(alert)));
    }
  });
  digestTextHelpers(hash);
  return { sha256: hash.digest('hex'), alerts: cases.length, invalid };
}

/** The validator's verdict on copies of a good entry with one part broken. */
function digestBrokenCopies(hash: Hash, entry: SnsEntry): void {
  const message = JSON.parse(entry.Message) as { default: string; email: string };
  const notification = JSON.parse(message.default) as { content: Record<string, unknown> };
  const copies: unknown[] = [
    { ...entry, Subject: `${entry.Subject}\n` },
    { ...entry, Subject: entry.Subject.replace(/^\[\w+\]/, '[LOW]') },
    { ...entry, Message: entry.Message.slice(0, -1) },
    { ...entry, Message: JSON.stringify({ ...message, sms: 'x' }) },
    { ...entry, Message: JSON.stringify({ default: message.default, email: ' ' }) },
    { ...entry, Message: JSON.stringify({ ...message, default: '{"version":"1.0"}' }) },
    {
      ...entry,
      Message: JSON.stringify({
        ...message,
        default: JSON.stringify({ ...notification, content: { ...notification.content, description: '' } }),
      }),
    },
    {
      ...entry,
      MessageAttributes: { ...entry.MessageAttributes, 'AWS.x': { DataType: 'String', StringValue: 'a' } },
    },
    {
      ...entry,
      MessageAttributes: {
        ...entry.MessageAttributes,
        ruleId: { DataType: 'String', StringValue: 'a\u0001' },
      },
    },
    {
      ...entry,
      MessageAttributes: {
        ...entry.MessageAttributes,
        severityRank: { DataType: 'Number', StringValue: '9' },
      },
    },
    { ...entry, Id: 'bad id' },
  ];
  for (const copy of copies) write(hash, JSON.stringify(validateSnsEntry(copy as SnsEntry)));
  write(hash, JSON.stringify(validateSnsEntry(entry, { maxBytes: 500 })));
}

/** The text helpers on hostile text, with each option and many lengths. */
function digestTextHelpers(hash: Hash): void {
  const random = createRandom(11);
  const mentions = new Set(['<!channel>', '<@U12345678>', '<!subteam^S0123ABC>']);
  for (let index = 0; index < 3_000; index++) {
    const text = index % 2 === 0 ? hostileText(random) : `${hostileText(random)}${hostileText(random)}`;
    const maxLength = random.pick([0, 1, 2, 3, 5, 10, 60, 128, 200, 250, 256, 500, 8_000]);
    write(
      hash,
      escapeSlackText(text),
      escapeSlackText(text, { maxLength }),
      escapeSlackText(text, { multiline: true, allowedMentions: mentions }),
      escapeSlackText(text, { multiline: index % 3 === 0, allowedMentions: mentions, maxLength }),
      escapeSlackText(text, { allowedMentions: new Set(), maxLength: -maxLength }),
      cleanLine(text),
      cleanMultiline(text),
      cleanLineWithin(text, maxLength),
      cutToJsonStringBytes(text, maxLength, index % 2 === 0 ? '' : '\n[cut]'),
      String(jsonStringBytes(text)),
    );
  }
}

function write(hash: Hash, ...parts: string[]): void {
  for (const part of parts) {
    hash.update(String(part.length));
    hash.update('\u0000');
    hash.update(part);
  }
}
