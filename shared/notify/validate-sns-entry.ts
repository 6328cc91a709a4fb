import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { SEVERITIES, type Severity, severityRank } from './alert.js';
import { chatbotNotificationSchema } from './chatbot-notification.js';
import { MAX_MESSAGE_BYTES, snsEntryBytes } from './entry-size.js';
import { InvalidSnsEntryError } from './errors.js';
import { MAX_ATTRIBUTE_VALUE_LENGTH, MAX_MESSAGE_ATTRIBUTES } from './message-attributes.js';
import type { SnsEntry } from './sns-entry.js';
import { MAX_SUBJECT_LENGTH } from './subject.js';

/**
 * The one check every entry passes before it is sent (SNS notifier) or written (console and outbox
 * notifiers), and that the tests run on every entry they build. It checks the rules of SNS (entry id,
 * subject, `MessageStructure=json`, attribute names and values, size in bytes), of AWS Chatbot (the
 * `default` text is a custom notification, see `chatbot-notification.ts`) and of this project's
 * format (subject starts with the severity, the attribute set, an `email` text).
 *
 * A route's digest (see `digest-message.ts`) is the one other kind of entry: its subject starts with
 * `[DIGEST] `, and it carries the one attribute `digest` (the route's name) and no severity, so that
 * only the subscriptions of that route's digest take it.
 */

export type SnsEntryValidation = { valid: true } | { valid: false; problems: string[] };

export interface ValidateSnsEntryOptions {
  /** Byte limit of the entry (see `snsEntryBytes`). Default: {@link MAX_MESSAGE_BYTES}. */
  maxBytes?: number;
}

const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
const SUBJECT_START = /^\[(INFO|LOW|MEDIUM|HIGH|CRITICAL|DIGEST)\] \S/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
/** The characters SNS (and SQS subscriptions) accept in attribute values: those XML 1.0 allows. */
const XML_TEXT = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
const NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;
const MESSAGE_KEYS = new Set(['default', 'email']);
const REQUIRED_ATTRIBUTES = ['severity', 'severityRank', 'ruleId'] as const;
const KNOWN_ATTRIBUTES = new Set([
  'severity',
  'severityRank',
  'ruleId',
  'eventTypeName',
  'orgId',
  'groupId',
  'orgName',
  'groupName',
  'tags',
  'connection',
  'digest',
]);
/** The one attribute sent as a `String.Array`: a JSON array of strings, as SNS filter policies read it. */
const ARRAY_ATTRIBUTES = new Set(['tags']);

/**
 * Checks an entry against every rule above and lists each one it breaks. Never throws.
 *
 * @example
 * ```ts
 * const result = validateSnsEntry(entry);
 * if (!result.valid) logger.warn('entry not sent', { problems: result.problems });
 * ```
 */
export function validateSnsEntry(
  entry: PublishBatchRequestEntry,
  options: ValidateSnsEntryOptions = {},
): SnsEntryValidation {
  const problems: string[] = [];
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
  if (typeof entry.Id !== 'string' || !ENTRY_ID.test(entry.Id)) {
    problems.push('Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"');
  }
  const subjectSeverity = checkSubject(entry.Subject, problems);
  if (entry.MessageStructure !== 'json') problems.push('MessageStructure must be "json"');
  checkMessage(entry.Message, problems);
  checkAttributes(entry.MessageAttributes, subjectSeverity, problems);
  if (problems.length === 0) {
    const bytes = snsEntryBytes(entry);
    if (bytes > maxBytes) problems.push(`the entry takes ${bytes} bytes; SNS takes at most ${maxBytes}`);
  }
  return problems.length === 0 ? { valid: true } : { valid: false, problems };
}

/**
 * Like {@link validateSnsEntry}, but throws when the entry breaks a rule.
 *
 * @throws {InvalidSnsEntryError} listing every rule the entry breaks.
 * @example
 * ```ts
 * assertValidSnsEntry(entry); // entry is now typed as SnsEntry
 * ```
 */
export function assertValidSnsEntry(
  entry: PublishBatchRequestEntry,
  options: ValidateSnsEntryOptions = {},
): asserts entry is SnsEntry {
  const result = validateSnsEntry(entry, options);
  if (!result.valid) {
    throw new InvalidSnsEntryError(
      `SNS entry ${JSON.stringify(String(entry.Id).slice(0, 80))} is invalid: ${result.problems.join('; ')}. Build entries with buildSnsEntry.`,
      { problems: result.problems },
    );
  }
}

/** Checks the subject and returns the severity it starts with. */
function checkSubject(subject: unknown, problems: string[]): string | undefined {
  if (typeof subject !== 'string' || subject === '') {
    problems.push('Subject is missing');
    return undefined;
  }
  if (subject.length > MAX_SUBJECT_LENGTH) {
    problems.push(`Subject is ${subject.length} characters long; SNS takes fewer than 100`);
  }
  if (!PRINTABLE_ASCII.test(subject)) {
    problems.push('Subject must be printable ASCII: no line breaks, control characters or other scripts');
  }
  const match = SUBJECT_START.exec(subject);
  if (match === null) problems.push('Subject must start with the severity, such as "[CRITICAL] "');
  return match?.[1]?.toLowerCase();
}

function checkMessage(message: unknown, problems: string[]): void {
  if (typeof message !== 'string') {
    problems.push('Message is missing');
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    problems.push('Message is not valid JSON, which MessageStructure "json" requires');
    return;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    problems.push('Message must be a JSON object');
    return;
  }
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!MESSAGE_KEYS.has(key))
      problems.push(`Message has key "${key.slice(0, 40)}"; only "default" and "email" are sent`);
  }
  if (typeof record.email !== 'string' || record.email.trim() === '') {
    problems.push('Message must have a non-empty "email" text');
  }
  if (typeof record.default !== 'string') {
    problems.push('Message must have a "default" string, which SNS requires');
    return;
  }
  let notification: unknown;
  try {
    notification = JSON.parse(record.default);
  } catch {
    problems.push('Message "default" must be the JSON of an AWS Chatbot custom notification');
    return;
  }
  const parsed = chatbotNotificationSchema.safeParse(notification);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 10)) {
      const path = issue.path.map(String).join('.') || '(root)';
      problems.push(`Chatbot notification ${path}: ${issue.message}`);
    }
  }
}

function checkAttributes(attributes: unknown, subjectSeverity: string | undefined, problems: string[]): void {
  if (typeof attributes !== 'object' || attributes === null) {
    problems.push('MessageAttributes are missing');
    return;
  }
  const entries = Object.entries(attributes as Record<string, unknown>);
  if (entries.length > MAX_MESSAGE_ATTRIBUTES) {
    problems.push(
      `there are ${entries.length} message attributes; SNS takes at most ${MAX_MESSAGE_ATTRIBUTES}`,
    );
  }
  const values = new Map<string, string>();
  for (const [name, attribute] of entries) {
    const shownName = JSON.stringify(name.slice(0, 60));
    if (!isValidAttributeName(name)) {
      problems.push(`attribute name ${shownName} breaks the SNS naming rules`);
      continue;
    }
    if (!KNOWN_ATTRIBUTES.has(name)) problems.push(`attribute ${shownName} is not one this project sends`);
    const { DataType, StringValue } = (attribute ?? {}) as { DataType?: unknown; StringValue?: unknown };
    if (
      ARRAY_ATTRIBUTES.has(name)
        ? DataType !== 'String.Array'
        : DataType !== 'String' && DataType !== 'Number'
    ) {
      problems.push(
        `attribute ${shownName} must have DataType ${ARRAY_ATTRIBUTES.has(name) ? '"String.Array"' : '"String" or "Number"'}`,
      );
      continue;
    }
    if (typeof StringValue !== 'string' || StringValue === '') {
      problems.push(`attribute ${shownName} must have a non-empty value`);
      continue;
    }
    if (StringValue.length > MAX_ATTRIBUTE_VALUE_LENGTH) {
      problems.push(`attribute ${shownName} is longer than ${MAX_ATTRIBUTE_VALUE_LENGTH} characters`);
    }
    if (!XML_TEXT.test(StringValue) || CONTROL.test(StringValue)) {
      problems.push(`attribute ${shownName} holds characters SNS or its subscribers reject`);
    }
    if (DataType === 'String.Array' && !isStringArray(StringValue)) {
      problems.push(`attribute ${shownName} must be a JSON array of non-empty strings`);
    }
    if (DataType === 'Number' && !NUMBER.test(StringValue)) {
      problems.push(`attribute ${shownName} has DataType "Number" but its value is not a number`);
    }
    values.set(name, StringValue);
  }
  if (values.has('digest') || subjectSeverity === 'digest') {
    if (subjectSeverity !== 'digest') problems.push('Subject of a digest must start with "[DIGEST] "');
    if (!values.has('digest')) problems.push('attribute "digest" is missing from a digest');
    if (values.size > 1) {
      problems.push('a digest carries the one attribute "digest": no alert route may take it by severity');
    }
    return;
  }
  for (const name of REQUIRED_ATTRIBUTES) {
    if (!values.has(name)) problems.push(`attribute "${name}" is missing`);
  }
  const severity = values.get('severity');
  if (severity !== undefined) {
    if (!(SEVERITIES as readonly string[]).includes(severity)) {
      problems.push(`attribute "severity" must be one of ${SEVERITIES.join(', ')}`);
    } else {
      const rank = values.get('severityRank');
      if (rank !== undefined && rank !== String(severityRank(severity as Severity))) {
        problems.push(
          `attribute "severityRank" must be ${severityRank(severity as Severity)} for severity ${severity}`,
        );
      }
      if (subjectSeverity !== undefined && subjectSeverity !== severity) {
        problems.push(
          `Subject says ${subjectSeverity.toUpperCase()} but attribute "severity" says ${severity}`,
        );
      }
    }
  }
}

/** SNS: letters, digits, `_`, `-`, `.`; no leading, trailing or doubled `.`; no `AWS.` or `Amazon.` prefix. */
function isStringArray(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((item) => typeof item === 'string' && item !== '')
    );
  } catch {
    return false;
  }
}

function isValidAttributeName(name: string): boolean {
  return (
    ATTRIBUTE_NAME.test(name) &&
    !name.startsWith('.') &&
    !name.endsWith('.') &&
    !name.includes('..') &&
    !/^(aws|amazon)\./i.test(name)
  );
}
