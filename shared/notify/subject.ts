import type { Alert, Severity } from './alert.js';
import { toPrintableAscii } from './ascii-transliteration.js';

/** SNS takes subjects shorter than 100 characters. */
export const MAX_SUBJECT_LENGTH = 99;

/** What a cut subject ends with: ASCII, as the subject must be. */
export const SUBJECT_ELLIPSIS = '...';

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
 * The email subject of an alert: its severity, then its title in printable ASCII on one line, at most
 * {@link MAX_SUBJECT_LENGTH} characters, cut with `...` at a word boundary when one is near. A title with
 * nothing printable falls back to the rule's name, then to its id. Never throws.
 *
 * @example
 * ```ts
 * formatSubject(alert); // '[CRITICAL] Project IP access list open to 0.0.0.0/0'
 * ```
 */
export function formatSubject(alert: Pick<Alert, 'severity' | 'title' | 'ruleName' | 'ruleId'>): string {
  const label = severityLabel(alert.severity);
  let text = 'Atlas audit alert';
  for (const candidate of [alert.title, alert.ruleName, alert.ruleId]) {
    const ascii = toPrintableAscii(candidate, MAX_SUBJECT_LENGTH);
    if (ascii !== '') {
      text = ascii;
      break;
    }
  }
  return cutSubject(`${label} ${text}`);
}

function cutSubject(subject: string): string {
  if (subject.length <= MAX_SUBJECT_LENGTH) return subject;
  const room = MAX_SUBJECT_LENGTH - SUBJECT_ELLIPSIS.length;
  const hard = subject.slice(0, room);
  // A cut at a space reads better, unless that throws away a large part of what fits.
  const space = hard.lastIndexOf(' ');
  const cut = space >= room - 20 ? hard.slice(0, space) : hard;
  return `${cut.trimEnd()}${SUBJECT_ELLIPSIS}`;
}
