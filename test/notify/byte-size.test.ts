import { describe, expect, it } from 'vitest';
import { cutToJsonStringBytes, jsonStringBytes } from '../../shared/notify/byte-size.js';

/** Every kind of code unit JSON.stringify treats differently, lone surrogates included. */
const ALPHABET = [
  'a',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '\u2028',
  '\u{1F525}',
  '\uD800',
  '\uDC00',
];

/** A deterministic pseudo-random string over {@link ALPHABET}. */
function sample(seed: number, length: number): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += ALPHABET[state % ALPHABET.length];
  }
  return text;
}

describe('cutToJsonStringBytes', () => {
  it('returns the text whole exactly when it fits, for every kind of character', () => {
    // Prepare
    const texts = Array.from({ length: 50 }, (_, seed) => sample(seed + 1, 40));

    // Act
    const outcomes = texts.map((text) => {
      const bytes = jsonStringBytes(text);
      return { text, whole: cutToJsonStringBytes(text, bytes), short: cutToJsonStringBytes(text, bytes - 1) };
    });

    // Assess
    for (const { text, whole, short } of outcomes) {
      expect(whole).toBe(text);
      expect(short).not.toBe(text);
      expect(jsonStringBytes(short)).toBeLessThanOrEqual(jsonStringBytes(text) - 1);
    }
  });

  it('keeps the longest prefix that fits with the suffix, never splitting a surrogate pair', () => {
    // Prepare
    const text = 'ab\u{1F525}cdef';

    // Act
    const cuts = [4, 5, 6, 7, 8].map((maxBytes) => cutToJsonStringBytes(text, maxBytes, '..'));

    // Assess
    expect(cuts).toEqual(['ab..', 'ab..', 'ab..', 'ab..', 'ab\u{1F525}..']);
  });

  it('returns nothing when not even the suffix fits', () => {
    // Prepare
    const text = 'abcdef';

    // Act
    const cut = cutToJsonStringBytes(text, 2, '...');

    // Assess
    expect(cut).toBe('');
  });
});
