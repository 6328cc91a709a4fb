import type { Alert } from './alert.js';
import { jsonStringBytes } from './byte-size.js';
import { formatChatbotNotification } from './chatbot-formatter.js';
import { composeEmail, type EmailCutOptions, RAW_EVENT_OMITTED } from './email-formatter.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';
import type { FormatContext } from './format-context.js';
import { buildMessageAttributes, type MessageAttributes } from './message-attributes.js';
import { formatSubject } from './subject.js';

/** One alert as a `PublishBatch` entry, exactly as the SDK takes it. */
export interface SnsEntry {
  Id: string;
  Subject: string;
  /** `{"default": <Chatbot custom notification JSON>, "email": <plain text>}`. */
  Message: string;
  MessageStructure: 'json';
  MessageAttributes: MessageAttributes;
}

/** The keys of a message: `default` goes to Chatbot (and any other protocol), `email` to people. */
export interface SnsMessageBody {
  default: string;
  email: string;
}

export interface SnsEntryOptions {
  /** The entry's `Id`: up to 80 of `A-Z a-z 0-9 - _`, unique within a batch. */
  id: string;
  context: FormatContext;
  /** Byte limit of the whole entry (see `snsEntryBytes`). Default: {@link MAX_MESSAGE_BYTES}. */
  maxBytes?: number;
}

/** Room kept free for what a cut adds (the note that says it was cut) and for rounding. */
const HEADROOM_BYTES = 512;

/**
 * Builds the `PublishBatch` entry of an alert: subject, `MessageStructure=json` message with the Chatbot
 * notification as `default` and the email text as `email`, and message attributes. When the entry would
 * exceed `maxBytes`, the raw event JSON in the email is cut first (values shortened, never the JSON
 * text), then the summary. Never throws; `validateSnsEntry` says whether the result may be sent.
 *
 * @example
 * ```ts
 * const entry = buildSnsEntry(alert, { id: 'alert-0', context: { now: clock.now() } });
 * await sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: [entry] }));
 * ```
 */
export function buildSnsEntry(alert: Alert, options: SnsEntryOptions): SnsEntry {
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
  const subject = formatSubject(alert);
  const attributes = buildMessageAttributes(alert);
  const chatbot = JSON.stringify(formatChatbotNotification(alert, { context: options.context }));
  const email = composeEmail(alert, { context: options.context });
  const make = (cut: EmailCutOptions): SnsEntry => {
    const body: SnsMessageBody = { default: chatbot, email: email.render(cut) };
    return {
      Id: options.id,
      Subject: subject,
      Message: JSON.stringify(body),
      MessageStructure: 'json',
      MessageAttributes: attributes,
    };
  };

  const withoutRaw = make({ rawEventMaxBytes: 'omit' });
  const withoutRawBytes = snsEntryBytes(withoutRaw);
  if (withoutRawBytes <= maxBytes) {
    const room = maxBytes - withoutRawBytes + jsonStringBytes(RAW_EVENT_OMITTED);
    return fitWithin(maxBytes, room, withoutRaw, (budget) => make({ rawEventMaxBytes: budget }));
  }

  const withoutSummary = make({ rawEventMaxBytes: 'omit', summaryMaxBytes: 0 });
  const room = maxBytes - snsEntryBytes(withoutSummary);
  return fitWithin(maxBytes, room, withoutSummary, (budget) =>
    make({ rawEventMaxBytes: 'omit', summaryMaxBytes: budget }),
  );
}

/**
 * Builds with a budget of `room` less headroom, and tightens it by what the result still overshoots
 * (escaping can cost more than measured once a cut note is added); falls back to `fallback`.
 */
function fitWithin(
  maxBytes: number,
  room: number,
  fallback: SnsEntry,
  build: (budget: number) => SnsEntry,
): SnsEntry {
  let budget = room - HEADROOM_BYTES;
  for (let attempt = 0; attempt < 4 && budget > 0; attempt++) {
    const entry = build(budget);
    const over = snsEntryBytes(entry) - maxBytes;
    if (over <= 0) return entry;
    budget -= over + HEADROOM_BYTES;
  }
  return fallback;
}
