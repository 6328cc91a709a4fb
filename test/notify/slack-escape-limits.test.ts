import { describe, expect, it } from 'vitest';
import { escapeSlackText } from '../../shared/notify/slack-escape.js';

describe('escapeSlackText length budget', () => {
  it('keeps text that exactly fills the budget whole', () => {
    // Prepare
    const text = 'abc';

    // Act
    const escaped = escapeSlackText(text, { maxLength: 3 });

    // Assess
    expect(escaped).toBe('abc');
  });

  it('keeps plain text up to the budget when the budget is far above four characters', () => {
    // Prepare
    const text = 'a'.repeat(50);

    // Act
    const escaped = escapeSlackText(text, { maxLength: 50 });

    // Assess
    expect(escaped).toBe(text);
  });

  it('counts escaped characters at their escaped length: && within 7 keeps one &amp;', () => {
    // Prepare
    const text = '&&';

    // Act
    const escaped = escapeSlackText(text, { maxLength: 7 });

    // Assess
    expect(escaped).toBe('&amp;\u2026');
    expect(escaped.length).toBeLessThanOrEqual(7);
  });

  it('drops as many characters as the ellipsis needs, and no more', () => {
    // Prepare
    const text = 'abcdef';

    // Act
    const escaped = escapeSlackText(text, { maxLength: 3 });

    // Assess
    expect(escaped).toBe('ab\u2026');
  });

  it('gives the empty string for a budget of zero', () => {
    // Prepare
    const text = 'abc';

    // Act
    const escaped = escapeSlackText(text, { maxLength: 0 });

    // Assess
    expect(escaped).toBe('');
  });

  it('reads no more than four times the budget of raw text, and marks what it did not read as cut', () => {
    // Prepare: controls that cleaning drops fill the part read; the visible text lies beyond it.
    const text = `${'\u202E'.repeat(40)}abc`;

    // Act
    const escaped = escapeSlackText(text, { maxLength: 5 });

    // Assess
    expect(escaped).toBe('\u2026');
  });
});

describe('escapeSlackText formatting characters between letters and digits', () => {
  it('keeps _ between the first and last ASCII letters and digits', () => {
    // Prepare
    const text = '0_0 9_9 A_A Z_Z a_a z_z';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe(text);
  });

  it('replaces _ next to the characters just outside those ranges', () => {
    // Prepare: '/' and ':' border the digits, '@' and '[' the capitals, '`' and '{' the small letters.
    const text = '/_/ :_: [_[ {_{';

    // Act
    const escaped = escapeSlackText(text);

    // Assess
    expect(escaped).toBe('/\u02CD/ :\u02CD: [\u02CD[ {\u02CD{');
  });
});

describe('escapeSlackText on text with nothing to escape', () => {
  it('returns text of exactly the budget whole and cuts text one character longer', () => {
    // Prepare
    const text = 'payments-prod 203.0.113.22';

    // Act
    const results = [
      escapeSlackText(text, { maxLength: text.length }),
      escapeSlackText(text, { maxLength: text.length - 1 }),
    ];

    // Assess
    expect(results).toEqual([text, `${text.slice(0, -2)}\u2026`]);
  });

  it.each([
    ['&', '&amp;'],
    ['<', '&lt;'],
    ['>', '&gt;'],
    ['*', '\u2217'],
    ['_', '\u02CD'],
    ['~', '\u223C'],
    ['`', '\u02CB'],
    ['@', '@\u2060'],
    ['\u202E', ''],
    ['\u0007', '\uFFFD'],
    ['\uD800', '\uFFFD'],
  ])('still escapes %j when it is the only character that needs it, last in the text', (char, escaped) => {
    // Act
    const result = escapeSlackText(`plain text ${char}`);

    // Assess
    expect(result).toBe(`plain text ${escaped}`);
  });

  it.each(['%', "'", ';', '=', '?', '^', '{', '|', '}', '$', '\u00A0'])('leaves %j as it is', (char) => {
    // Act
    const result = escapeSlackText(`a ${char} b`);

    // Assess
    expect(result).toBe(`a ${char} b`);
  });

  it('never cuts a surrogate pair when the budget ends inside it', () => {
    // Prepare
    const text = 'ab\uD83D\uDE00cd';

    // Act
    const results = [3, 4, 5].map((maxLength) => escapeSlackText(text, { maxLength }));

    // Assess
    expect(results).toEqual(['ab\u2026', 'ab\u2026', 'ab\uD83D\uDE00\u2026']);
  });

  it('drops a whole allowed mention to make room for the ellipsis', () => {
    // Prepare
    const allowedMentions = new Set(['<!here>']);

    // Act
    const result = escapeSlackText('hi <!here> there', { allowedMentions, maxLength: 10 });

    // Assess
    expect(result).toBe('hi \u2026');
  });
});

describe('escapeSlackText on plain runs between escaped characters', () => {
  it.each([
    [6, '@\u2060abc\u2026'],
    [7, '@\u2060abcd\u2026'],
    [9, '@\u2060abcdef\u2026'],
    [10, '@\u2060abcdef@\u2060'],
    [2, '\u2026'],
    [1, '\u2026'],
    [0, ''],
  ])('cuts the run at the budget of %i code units', (maxLength, expected) => {
    // Act
    const escaped = escapeSlackText('@abcdef@', { maxLength });

    // Assess
    expect(escaped).toBe(expected);
  });
});
