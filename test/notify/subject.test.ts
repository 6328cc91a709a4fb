import { describe, expect, it } from 'vitest';
import { SEVERITIES } from '../../shared/notify/alert.js';
import { toPrintableAscii } from '../../shared/notify/ascii-transliteration.js';
import { formatSubject, MAX_SUBJECT_LENGTH } from '../../shared/notify/subject.js';
import { HOSTILE_VALUES, makeAlert } from './support/alerts.js';

const PRINTABLE_ASCII_LINE = /^[\x21-\x7E][\x20-\x7E]*$/;

describe('formatSubject', () => {
  it('starts with the severity and keeps a plain title as it is', () => {
    // Prepare
    const alert = makeAlert({ severity: 'critical', title: 'Project IP access list open to 0.0.0.0/0' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[CRITICAL] Project IP access list open to 0.0.0.0/0');
  });

  it('labels every severity in capitals', () => {
    // Prepare
    const alerts = SEVERITIES.map((severity) => makeAlert({ severity, title: 'Key created' }));

    // Act
    const subjects = alerts.map(formatSubject);

    // Assess
    expect(subjects).toEqual([
      '[INFO] Key created',
      '[LOW] Key created',
      '[MEDIUM] Key created',
      '[HIGH] Key created',
      '[CRITICAL] Key created',
    ]);
  });

  it('transliterates accented letters and typographic punctuation to ASCII', () => {
    // Prepare
    const alert = makeAlert({ severity: 'high', title: 'Zugriff für „Jürgen“ – Straße ‘Ødegård’…' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[HIGH] Zugriff fur "Jurgen" - Strasse \'Odegard\'...');
  });

  it('drops what has no ASCII spelling and keeps the rest', () => {
    // Prepare
    const alert = makeAlert({ severity: 'low', title: 'Cluster 数据库 deleted 🔥 by 山田' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[LOW] Cluster deleted by');
  });

  it('turns line breaks, tabs and control characters into single spaces on one line', () => {
    // Prepare
    const alert = makeAlert({ title: 'API key\r\ncreated\tby \u001b[31mroot\u0007\u2028now' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[CRITICAL] API key created by [31mroot now');
  });

  it('falls back to the rule name when the title has nothing printable', () => {
    // Prepare
    const alert = makeAlert({ title: '🔥🔥 \u200B', ruleName: 'Cluster deleted' });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe('[CRITICAL] Cluster deleted');
  });

  it('cuts a 500-character title to 99 characters ending with an ASCII ellipsis', () => {
    // Prepare
    const alert = makeAlert({
      title: `API key created ${'with a very long description '.repeat(20)}`.slice(0, 500),
    });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(subject.endsWith('...')).toBe(true);
    expect(subject).toMatch(PRINTABLE_ASCII_LINE);
    expect(subject.startsWith('[CRITICAL] API key created with a very long')).toBe(true);
  });

  it('cuts at a word boundary when one is near the limit', () => {
    // Prepare
    const alert = makeAlert({ severity: 'info', title: `${'word '.repeat(40)}` });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toMatch(/ word\.\.\.$/);
  });

  it('cuts a title without spaces in the middle of the word rather than losing it', () => {
    // Prepare
    const alert = makeAlert({ title: 'x'.repeat(500) });

    // Act
    const subject = formatSubject(alert);

    // Assess
    expect(subject).toBe(`[CRITICAL] ${'x'.repeat(MAX_SUBJECT_LENGTH - 14)}...`);
  });

  it('gives a printable ASCII line of at most 99 characters for every hostile title', () => {
    // Prepare
    const titles = [
      ...HOSTILE_VALUES,
      '\u0000'.repeat(1_000),
      'é'.repeat(500),
      '\uD83D'.repeat(300),
      ' '.repeat(200),
    ];

    // Act
    const subjects = titles.map((title) => formatSubject(makeAlert({ title })));

    // Assess
    for (const subject of subjects) {
      expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
      expect(subject).toMatch(PRINTABLE_ASCII_LINE);
    }
  });
});

describe('toPrintableAscii', () => {
  it('spells full-width letters and ligatures in ASCII', () => {
    // Prepare
    const text = 'Ａｔｌａｓ ﬁle';

    // Act
    const ascii = toPrintableAscii(text);

    // Assess
    expect(ascii).toBe('Atlas file');
  });

  it('collapses runs of white space and trims both ends', () => {
    // Prepare
    const text = '  a \n\n\t b  ';

    // Act
    const ascii = toPrintableAscii(text);

    // Assess
    expect(ascii).toBe('a b');
  });

  it.each([
    ['plain words within the limit', 'Key created by ops', 99, 'Key created by ops'],
    ['text of exactly the limit', 'x'.repeat(99), 99, 'x'.repeat(99)],
    ['text one past the limit', 'x'.repeat(101), 99, 'x'.repeat(100)],
    ['a leading space', ' a b', 99, 'a b'],
    ['a trailing space', 'a b ', 99, 'a b'],
    ['a double space', 'a  b', 99, 'a b'],
    ['a tab', 'a\tb', 99, 'a b'],
    ['DEL', 'a\u007Fb', 99, 'ab'],
    ['a non-ASCII letter', 'caf\u00e9', 99, 'cafe'],
    ['words past the limit', 'ab cd ef', 3, 'ab c'],
  ])('gives the same text for %s', (_, text, maxLength, expected) => {
    // Act
    const ascii = toPrintableAscii(text, maxLength);

    // Assess
    expect(ascii).toBe(expected);
  });
});
