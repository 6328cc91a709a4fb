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
