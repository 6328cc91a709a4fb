import { describe, expect, it } from 'vitest';
import {
  cleanLine,
  cleanMultiline,
  cleanVisibleLine,
  REPLACEMENT_CHARACTER as FFFD,
  needsCleaning,
  wellFormed,
} from '../shared/text-cleaning.js';

/**
 * Text that needs no cleaning is returned without running the patterns: these cases sit on both sides
 * of every edge of the characters cleaning acts on, so a fast path that lets one through fails here.
 */
const EDGES: ReadonlyArray<readonly [input: string, line: string, multiline: string]> = [
  ['\u0000', FFFD, FFFD],
  ['\u0008', FFFD, FFFD],
  ['\t', ' ', '  '],
  ['\n', ' ', '\n'],
  ['\u000B', FFFD, FFFD],
  ['\r', ' ', '\n'],
  ['\u001F', FFFD, FFFD],
  [' ', ' ', ' '],
  ['~', '~', '~'],
  ['\u007F', FFFD, FFFD],
  ['\u0085', ' ', '\n'],
  ['\u009F', FFFD, FFFD],
  ['\u00A0', '\u00A0', '\u00A0'],
  ['\u061B', '\u061B', '\u061B'],
  ['\u061C', '', ''],
  ['\u061D', '\u061D', '\u061D'],
  ['\u200D', '\u200D', '\u200D'],
  ['\u200E', '', ''],
  ['\u200F', '', ''],
  ['\u2010', '\u2010', '\u2010'],
  ['\u2027', '\u2027', '\u2027'],
  ['\u2028', ' ', '\n'],
  ['\u2029', ' ', '\n'],
  ['\u202A', '', ''],
  ['\u202E', '', ''],
  ['\u202F', '\u202F', '\u202F'],
  ['\u2065', '\u2065', '\u2065'],
  ['\u2066', '', ''],
  ['\u2069', '', ''],
  ['\u206A', '\u206A', '\u206A'],
  ['\uD7FF', '\uD7FF', '\uD7FF'],
  ['\uD800', FFFD, FFFD],
  ['\uDBFF', FFFD, FFFD],
  ['\uDC00', FFFD, FFFD],
  ['\uDFFF', FFFD, FFFD],
  ['\uD83D\uDE00', '\uD83D\uDE00', '\uD83D\uDE00'],
  ['\uE000', '\uE000', '\uE000'],
];

describe('cleanLine and cleanMultiline', () => {
  it.each(EDGES)('clean %j at the edge of what they act on', (input, line, multiline) => {
    // Act
    const cleaned = [cleanLine(`a${input}b`), cleanMultiline(`a${input}b`)];

    // Assess
    expect(cleaned).toEqual([`a${line}b`, `a${multiline}b`]);
    expect(needsCleaning(`a${input}b`)).toBe(line !== input || multiline !== input || input.length > 1);
  });

  it('return text that needs no cleaning as the very same string', () => {
    // Prepare
    const text = 'j.doe@example.com from 203.0.113.22 für „Jürgen“';

    // Act
    const cleaned = [cleanLine(text), cleanMultiline(text), wellFormed(text)];

    // Assess
    expect(cleaned).toEqual([text, text, text]);
    expect(needsCleaning(text)).toBe(false);
  });

  it('replace lone surrogates but keep pairs when the text holds both', () => {
    // Prepare
    const text = '\uDE00\uD83D\uDE00\uD83D';

    // Act
    const cleaned = wellFormed(text);

    // Assess
    expect(cleaned).toBe(`${FFFD}\uD83D\uDE00${FFFD}`);
  });
});

describe('cleanVisibleLine', () => {
  it.each([
    ['pay\u200Bments', 'payments'],
    ['\uFEFFprod\u2060', 'prod'],
    ['a\u200C\u200Db\u00ADc\u180Ed', 'abcd'],
    ['\u3164\u115F\u1160\uFFA0x', 'x'],
    ['tag\u{E0041}\u{E007F}s', 'tags'],
    ['one\u2028two\u202Ethree', 'one twothree'],
    ['caf\u00E9 \u{1F600}', 'caf\u00E9 \u{1F600}'],
  ])('cleans %j to %j', (text, expected) => {
    expect(cleanVisibleLine(text)).toBe(expected);
  });
});
