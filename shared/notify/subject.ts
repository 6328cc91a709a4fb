import type { Alert, Severity } from './alert.js';
import { type AlertFacts, describeAlert } from './alert-facts.js';
import { toPrintableAscii } from './ascii-transliteration.js';
import { headlineParts } from './headline.js';

/** SNS takes subjects shorter than 100 characters. */
export const MAX_SUBJECT_LENGTH = 99;

/** What a cut subject ends with: ASCII, as the subject must be. */
export const SUBJECT_ELLIPSIS = '...';

/**
 * The most characters the place and the actor may each take in a subject; both give way to the first
 * {@link SUBJECT_TITLE_MIN_LENGTH} characters of the title, down to {@link SUBJECT_PART_MIN_LENGTH}.
 */
export const SUBJECT_PART_LENGTH = { place: 32, who: 36 } as const;
/** The characters of the title the place and the actor give way to. */
export const SUBJECT_TITLE_MIN_LENGTH = 40;
/** The fewest characters the place or the actor is cut to. */
export const SUBJECT_PART_MIN_LENGTH = 12;

/**
 * The label every subject starts with: `[CRITICAL]`.
 *
 * @example
 * ```ts
 * severityLabel('high'); // '[HIGH]'
 * ```
 */
export function severityLabel(severity: Severity): string {
  return `[${severity.toUpperCase()}]`;
}

/**
 * The email subject of an alert, most important first: its severity, its title, then where and who in
 * brackets (see `headlineParts`): `[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-prod,
 * by bob@example.com)`; a project or organization whose name is unknown by its short id (`project
 * 64b5...d11`). Printable ASCII on one line, at most {@link MAX_SUBJECT_LENGTH} characters.
 * Where and who always stay, each within {@link SUBJECT_PART_LENGTH}. When the whole does not fit, an
 * actor's e-mail domain goes first (`by bob@...`); then the actor, and then the place, are cut further
 * when the first {@link SUBJECT_TITLE_MIN_LENGTH} characters of the title would not fit otherwise; last
 * the title is cut, with `...` at a word boundary when one is near. A title with nothing printable falls
 * back to the rule's name, then to its id. Never throws.
 *
 * @example
 * ```ts
 * formatSubject(alert); // '[CRITICAL] Project IP access list open to 0.0.0.0/0 (payments-prod, by bob@example.com)'
 * ```
 */
export function formatSubject(alert: Alert, facts: AlertFacts = describeAlert(alert)): string {
  const label = severityLabel(alert.severity);
  const head = `${label} ${subjectTitle(alert)}`;
  const parts = headlineParts(alert, facts);
  let place =
    parts.place === undefined ? undefined : cut(ascii(parts.place.short), SUBJECT_PART_LENGTH.place);
  let who = parts.who === undefined ? undefined : cut(ascii(parts.who), SUBJECT_PART_LENGTH.who);
  const fits = (): boolean => head.length + bracketed(place, who).length <= MAX_SUBJECT_LENGTH;
  if (!fits() && who !== undefined) who = withoutMailDomain(who);
  // What the place and the actor leave of the subject, at the least, for the title.
  const reserved = Math.min(head.length, label.length + 1 + SUBJECT_TITLE_MIN_LENGTH);
  const over = (): number => reserved + bracketed(place, who).length - MAX_SUBJECT_LENGTH;
  if (over() > 0 && who !== undefined) who = cut(who, Math.max(SUBJECT_PART_MIN_LENGTH, who.length - over()));
  if (over() > 0 && place !== undefined)
    place = cut(place, Math.max(SUBJECT_PART_MIN_LENGTH, place.length - over()));
  const note = bracketed(place, who);
  return `${cut(head, MAX_SUBJECT_LENGTH - note.length)}${note}`;
}

/** The title in printable ASCII, else the rule's name, else its id, else a fixed text. */
function subjectTitle(alert: Alert): string {
  for (const candidate of [alert.title, alert.ruleName, alert.ruleId]) {
    const text = ascii(candidate);
    if (text !== '') return text;
  }
  return 'Atlas audit alert';
}

function ascii(text: string): string {
  return toPrintableAscii(text, MAX_SUBJECT_LENGTH);
}

/** ` (payments-prod, by bob@example.com)`, or nothing when there is neither part. */
function bracketed(place: string | undefined, who: string | undefined): string {
  const parts = [place, who].filter((part) => part !== undefined && part !== '');
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** `by bob@example.com` as `by bob@...`: the person stays, their company's domain goes. */
function withoutMailDomain(who: string): string {
  return who.replace(/@[^\s@]+(?=$|\s)/g, `@${SUBJECT_ELLIPSIS}`);
}

/**
 * `text` within `max` characters, cut with `...` at a space when that keeps at least four fifths of
 * what fits (and drops at most 20 characters).
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - SUBJECT_ELLIPSIS.length;
  const hard = text.slice(0, room);
  // A cut at a space reads better, unless that throws away a large part of what fits.
  const space = hard.lastIndexOf(' ');
  const kept = space >= room - Math.min(20, Math.floor(room / 5)) ? hard.slice(0, space) : hard;
  return `${kept.trimEnd()}${SUBJECT_ELLIPSIS}`;
}
