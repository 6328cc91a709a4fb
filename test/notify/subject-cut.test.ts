import { describe, expect, it } from 'vitest';
import { formatSubject, MAX_SUBJECT_LENGTH } from '../../shared/notify/subject.js';
import { makeAlert, ORG_ID, PROJECT_ID } from './support/alerts.js';

/** Where and who, whole: what a subject ends with when it fits. */
const NOTE = ' (payments-prod, by j.doe@example.com)';
/** Where and who once the actor's e-mail domain gave way: 30 characters, so a head keeps 69. */
const SHORT_NOTE = ' (payments-prod, by j.doe@...)';

/** An alert of project payments-prod raised by j.doe@example.com, with `title`. */
function titled(title: string, severity: 'info' | 'high' = 'info'): ReturnType<typeof makeAlert> {
  return makeAlert({
    severity,
    title,
    context: { orgId: ORG_ID, projectId: PROJECT_ID, projectName: 'payments-prod' },
  });
}

describe('formatSubject cut', () => {
  it('keeps a subject of exactly 99 characters as it is', () => {
    // Prepare
    const title = 'a'.repeat(MAX_SUBJECT_LENGTH - '[INFO] '.length - NOTE.length);

    // Act
    const subject = formatSubject(titled(title));

    // Assess
    expect(subject).toBe(`[INFO] ${title}${NOTE}`);
    expect(subject).toHaveLength(99);
  });

  it('cuts at the last space when it lies 13 characters (a fifth of the room) before the cut', () => {
    // Prepare: the head keeps 66 characters and an ellipsis; the space is at index 53 of the subject.
    const title = `${'a'.repeat(46)} ${'b'.repeat(40)}`;

    // Act
    const subject = formatSubject(titled(title));

    // Assess
    expect(subject).toBe(`[INFO] ${'a'.repeat(46)}...${SHORT_NOTE}`);
  });

  it('cuts inside a word when the last space is further before the cut', () => {
    // Prepare: the space is at index 52 of the subject.
    const title = `${'a'.repeat(45)} ${'b'.repeat(40)}`;

    // Act
    const subject = formatSubject(titled(title));

    // Assess
    expect(subject).toBe(`[INFO] ${'a'.repeat(45)} ${'b'.repeat(13)}...${SHORT_NOTE}`);
    expect(subject).toHaveLength(99);
  });

  it('cuts a title of words at the space before the word the limit falls in', () => {
    // Prepare
    const title =
      'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa';

    // Act
    const subject = formatSubject(titled(title));

    // Assess
    expect(subject).toBe(`[INFO] alpha bravo charlie delta echo foxtrot golf hotel india...${SHORT_NOTE}`);
  });

  it('falls back to a fixed title when title, rule name and rule id have nothing printable', () => {
    // Prepare
    const alert = { ...titled('🔥', 'high'), ruleName: '\u200B', ruleId: '数据' };

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[HIGH] Atlas audit alert${NOTE}`);
  });
});
