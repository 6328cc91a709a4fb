import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../shared/notify/byte-size.js';
import { boundedPrettyJson, TRUNCATED_KEY } from '../../shared/notify/json-truncation.js';

/** A cost that refuses every array text, so only the summary object can fit. */
const ARRAYS_NEVER_FIT = (text: string): number => (text.startsWith('[') ? 5_000 : text.length);

function summaryOf(note: string): string {
  return JSON.stringify({ [TRUNCATED_KEY]: note }, null, 2);
}

describe('boundedPrettyJson summary', () => {
  it('says how many bytes the value took when it was serialised whole', () => {
    // Prepare
    const summary = summaryOf('the raw value (5000 bytes) does not fit this message');

    // Act
    const result = boundedPrettyJson([1, 2, 3], { maxBytes: summary.length, measure: ARRAYS_NEVER_FIT });

    // Assess
    expect(result).toEqual({ text: summary, truncated: true });
  });

  it('gives nothing when the summary is one byte over the budget', () => {
    // Prepare
    const summary = summaryOf('the raw value (5000 bytes) does not fit this message');

    // Act
    const result = boundedPrettyJson([1, 2, 3], { maxBytes: summary.length - 1, measure: ARRAYS_NEVER_FIT });

    // Assess
    expect(result).toEqual({ text: '', truncated: true });
  });

  it('says "far too large" when the strings alone are over the budget, without serialising it whole', () => {
    // Prepare
    const value = ['x'.repeat(2_000)];

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000, measure: ARRAYS_NEVER_FIT });

    // Assess
    expect(JSON.parse(result.text)).toEqual({
      [TRUNCATED_KEY]: 'the raw value (far too large) does not fit this message',
    });
  });

  it.each([
    ['a string in a nested array', [['x'.repeat(1_001)]]],
    ['a string in an object', [{ k: 'x'.repeat(1_001) }]],
    ['an object key', [{ ['k'.repeat(1_001)]: 1 }]],
    ['several strings together', ['x'.repeat(500), 'y'.repeat(501)]],
  ])('counts %s among the strings that are over the budget', (_, value) => {
    // Prepare
    const options = { maxBytes: 1_000, measure: ARRAYS_NEVER_FIT };

    // Act
    const result = boundedPrettyJson(value, options);

    // Assess
    expect(JSON.parse(result.text)[TRUNCATED_KEY]).toBe(
      'the raw value (far too large) does not fit this message',
    );
  });

  it('serialises the value whole when its strings exactly fill the budget', () => {
    // Prepare
    const value = ['x'.repeat(1_000)];

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000, measure: ARRAYS_NEVER_FIT });

    // Assess
    expect(JSON.parse(result.text)[TRUNCATED_KEY]).toBe(
      'the raw value (5000 bytes) does not fit this message',
    );
  });

  it('sizes up the strings of at most 100,000 values before serialising the value to measure it', () => {
    // Prepare: the long string is the last value the walk would reach.
    const value = ['x'.repeat(2_000), ...Array.from({ length: 99_999 }, () => 0)];

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000, measure: ARRAYS_NEVER_FIT });

    // Assess
    expect(JSON.parse(result.text)[TRUNCATED_KEY]).toMatch(/^the raw value \(5000 bytes\)/);
  });
});

describe('boundedPrettyJson passes', () => {
  it('accepts a text of exactly the budget', () => {
    // Prepare
    const value = { a: 1 };
    const text = JSON.stringify(value, null, 2);

    // Act
    const result = boundedPrettyJson(value, { maxBytes: utf8Bytes(text), measure: utf8Bytes });

    // Assess
    expect(result).toEqual({ text, truncated: false });
  });

  it('writes undefined as null', () => {
    // Act
    const result = boundedPrettyJson(undefined, { maxBytes: 100 });

    // Assess
    expect(result).toEqual({ text: 'null', truncated: false });
  });

  it('writes characters that reorder text as \\u escapes', () => {
    // Prepare
    const value = { name: 'evil\u202Etxt\u0085' };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000 });

    // Assess
    expect(result.text).toBe('{\n  "name": "evil\\u202etxt\\u0085"\n}');
    expect(JSON.parse(result.text)).toEqual(value);
  });

  it('keeps a string over the budget at 4,096 characters when the budget is under 16,384 bytes', () => {
    // Prepare
    const value = { s: 'x'.repeat(20_000) };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 10_000 });

    // Assess
    expect(JSON.parse(result.text).s).toBe(`${'x'.repeat(4_096)}... [20000 characters in all]`);
  });

  it("keeps a string of exactly a pass's length whole", () => {
    // Prepare: the cost is the longest run of y, so only the pass that cuts strings to 16 fits.
    const value = { s: 'x'.repeat(16), t: 'y'.repeat(2_000) };
    const measure = (text: string): number => text.match(/y+/)?.[0].length ?? 0;

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 16, measure });

    // Assess
    expect(JSON.parse(result.text)).toEqual({
      s: 'x'.repeat(16),
      t: `${'y'.repeat(16)}... [2000 characters in all]`,
    });
  });

  it('thins an array past 500 items, keeps one of exactly 500, and says how many were left out', () => {
    // Prepare: the cost is the number of lines.
    const value = {
      exact: Array.from({ length: 500 }, () => 0),
      long: Array.from({ length: 1_000 }, () => 1),
    };
    const lines = (text: string): number => text.split('\n').length;

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_100, measure: lines });

    // Assess
    const parsed = JSON.parse(result.text);
    expect(result.truncated).toBe(true);
    expect(parsed.exact).toEqual(value.exact);
    expect(parsed.long).toHaveLength(501);
    expect(parsed.long.at(-1)).toBe('[500 more items]');
  });

  it('keeps 500 fields of a wide object and says how many were left out', () => {
    // Prepare
    const value = { wide: Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`k${index}`, 0])) };
    const lines = (text: string): number => text.split('\n').length;

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 600, measure: lines });

    // Assess
    const parsed = JSON.parse(result.text);
    expect(result.truncated).toBe(true);
    expect(Object.keys(parsed.wide)).toHaveLength(501);
    expect(parsed.wide[TRUNCATED_KEY]).toBe('500 more fields');
  });

  it('leaves inherited fields out', () => {
    // Prepare
    const value = Object.assign(Object.create({ inherited: 1 }), { own: 2 });

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000 });

    // Assess
    expect(JSON.parse(result.text)).toEqual({ own: 2 });
  });

  it('summarises objects nested deeper than 32 levels, and keeps 32', () => {
    // Prepare
    const nest = (levels: number): unknown => {
      let value: unknown = 'bottom';
      for (let level = 0; level < levels; level++) value = { a: value };
      return value;
    };

    // Act
    const deep = boundedPrettyJson(nest(33), { maxBytes: 100_000 });
    const fits = boundedPrettyJson(nest(32), { maxBytes: 100_000 });

    // Assess
    expect(deep.truncated).toBe(true);
    expect(deep.text).toContain('"[object nested deeper than 32 levels]"');
    expect(fits).toEqual({ text: JSON.stringify(nest(32), null, 2), truncated: false });
  });

  it('writes an object that appears twice, not in a cycle, both times', () => {
    // Prepare
    const shared = { id: 1 };

    // Act
    const result = boundedPrettyJson({ a: shared, b: shared }, { maxBytes: 1_000 });

    // Assess
    expect(result).toEqual({ text: JSON.stringify({ a: shared, b: shared }, null, 2), truncated: false });
  });

  it('marks a cycle as a cut', () => {
    // Prepare
    const value: Record<string, unknown> = {};
    value.self = value;

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000 });

    // Assess
    expect(result.truncated).toBe(true);
  });

  it('writes dates as ISO text and invalid dates as null', () => {
    // Prepare
    const value = { at: new Date('2026-01-02T03:04:05Z'), bad: new Date(Number.NaN) };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 1_000 });

    // Assess
    expect(JSON.parse(result.text)).toEqual({ at: '2026-01-02T03:04:05.000Z', bad: null });
  });
});
