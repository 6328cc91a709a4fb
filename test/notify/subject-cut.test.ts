import { describe, expect, it } from 'vitest';
import { formatSubject, MAX_SUBJECT_LENGTH } from '../../shared/notify/subject.js';
import { makeAlert } from './support/alerts.js';

describe('formatSubject cut', () => {
  it('keeps a subject of exactly 99 characters as it is', () => {
    // Prepare
    const title = 'a'.repeat(MAX_SUBJECT_LENGTH - '[INFO] '.length);

    // Act
    const subject = formatSubject(makeAlert({ severity: 'info', title }));

    // Assess
    expect(subject).toBe(`[INFO] ${title}`);
    expect(subject).toHaveLength(99);
  });

  it('cuts at the last space when it lies exactly 20 characters before the cut', () => {
    // Prepare: the space is at index 76 of the subject, the cut at 96.
    const title = `${'a'.repeat(69)} ${'b'.repeat(40)}`;

    // Act
    const subject = formatSubject(makeAlert({ severity: 'info', title }));

    // Assess
    expect(subject).toBe(`[INFO] ${'a'.repeat(69)}...`);
  });

  it('cuts inside a word when the last space is more than 20 characters before the cut', () => {
    // Prepare: the space is at index 75 of the subject.
    const title = `${'a'.repeat(68)} ${'b'.repeat(40)}`;

    // Act
    const subject = formatSubject(makeAlert({ severity: 'info', title }));

    // Assess
    expect(subject).toBe(`[INFO] ${'a'.repeat(68)} ${'b'.repeat(20)}...`);
  });

  it('cuts a title of words at the space before the word the limit falls in', () => {
    // Prepare
    const title =
      'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa';

    // Act
    const subject = formatSubject(makeAlert({ severity: 'info', title }));

    // Assess
    expect(subject).toBe(
      '[INFO] alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november...',
    );
  });

  it('falls back to a fixed title when title, rule name and rule id have nothing printable', () => {
    // Prepare
    const alert = makeAlert({ severity: 'high', title: '🔥', ruleName: '\u200B', ruleId: '数据' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[HIGH] Atlas audit alert');
  });
});
