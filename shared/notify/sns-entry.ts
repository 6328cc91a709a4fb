import type { Alert } from './alert.js';
import { describeAlert } from './alert-facts.js';
import { jsonStringBytes, utf8Bytes } from './byte-size.js';
import { formatChatbotNotification } from './chatbot-formatter.js';
import { composeEmail, type EmailCutOptions, RAW_EVENT_OMITTED } from './email-formatter.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';
import type { FormatContext } from './format-context.js';
import { stringsExceed } from './json-truncation.js';
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
/** What the raw event section's note costs inside the message when the raw event is left out. */
const RAW_EVENT_OMITTED_BYTES = jsonStringBytes(RAW_EVENT_OMITTED);

/** An email text for one size budget: as it goes into the message (a JSON string), and the entry's bytes. */
interface EmailCandidate {
  json: string;
  entryBytes: number;
}

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
  const facts = describeAlert(alert);
  const subject = formatSubject(alert, facts);
  const attributes = buildMessageAttributes(alert);
  // The message is `{"default":<chatbot>,"email":<email>}` as JSON.stringify writes it: the Chatbot
  // part is escaped and counted once, and each budget tried only escapes and counts its email text.
  const chatbotJson = JSON.stringify(
    JSON.stringify(formatChatbotNotification(alert, { context: options.context, facts })),
  );
  const messagePrefix = `{"default":${chatbotJson},"email":`;
  const entryOf = (email: EmailCandidate): SnsEntry => ({
    Id: options.id,
    Subject: subject,
    Message: `${messagePrefix}${email.json}}`,
    MessageStructure: 'json',
    MessageAttributes: attributes,
  });
  // Everything but the email's JSON string: the message around it, the subject, id and attributes.
  const fixedBytes = snsEntryBytes(entryOf({ json: '', entryBytes: 0 }));
  const email = composeEmail(alert, { context: options.context, facts });
  const candidate = (text: string): EmailCandidate => {
    const json = JSON.stringify(text);
    return { json, entryBytes: fixedBytes + utf8Bytes(json) };
  };
  const render = (cut: EmailCutOptions): EmailCandidate => candidate(email.render(cut));

  // Most entries fit whole. When the whole email leaves the headroom free and its raw event needed no
  // cut, the search below ends on this very text: its first budget for the raw event is then at least
  // the raw event's size, and boundedPrettyJson tries the uncut pass first (every string of an uncut
  // value is in its text, so the strings alone cannot exceed that budget). Built once instead of twice.
  // Events whose strings alone cannot fit are not serialised whole just to learn that.
  if (!stringsExceed(alert.events, maxBytes)) {
    const whole = email.renderWhole();
    if (!whole.rawEventCut) {
      const wholeCandidate = candidate(whole.text);
      if (wholeCandidate.entryBytes <= maxBytes - HEADROOM_BYTES) return entryOf(wholeCandidate);
    }
  }

  const withoutRaw = render({ rawEventMaxBytes: 'omit' });
  if (withoutRaw.entryBytes <= maxBytes) {
    const room = maxBytes - withoutRaw.entryBytes + RAW_EVENT_OMITTED_BYTES;
    return entryOf(fitWithin(maxBytes, room, withoutRaw, (budget) => render({ rawEventMaxBytes: budget })));
  }

  const withoutSummary = render({ rawEventMaxBytes: 'omit', summaryMaxBytes: 0 });
  const room = maxBytes - withoutSummary.entryBytes;
  return entryOf(
    fitWithin(maxBytes, room, withoutSummary, (budget) =>
      render({ rawEventMaxBytes: 'omit', summaryMaxBytes: budget }),
    ),
  );
}

/**
 * Builds with a budget of `room` less headroom, and tightens it by what the result still overshoots
 * (escaping can cost more than measured once a cut note is added); falls back to `fallback`.
 */
function fitWithin(
  maxBytes: number,
  room: number,
  fallback: EmailCandidate,
  build: (budget: number) => EmailCandidate,
): EmailCandidate {
  let budget = room - HEADROOM_BYTES;
  for (let attempt = 0; attempt < 4 && budget > 0; attempt++) {
    const candidate = build(budget);
    const over = candidate.entryBytes - maxBytes;
    if (over <= 0) return candidate;
    budget -= over + HEADROOM_BYTES;
  }
  return fallback;
}
