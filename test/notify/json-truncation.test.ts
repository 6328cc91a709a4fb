import { describe, expect, it } from 'vitest';
import { jsonStringBytes, utf8Bytes } from '../../shared/notify/byte-size.js';
import { boundedPrettyJson, TRUNCATED_KEY } from '../../shared/notify/json-truncation.js';

describe('boundedPrettyJson', () => {
  it('pretty-prints a value that fits, unchanged', () => {
    // Prepare
    const value = { a: 1, b: ['x', null, true], c: { d: 'é' } };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 10_000 });

    // Assess
    expect(result).toEqual({ text: JSON.stringify(value, null, 2), truncated: false });
  });

  it('shortens a 300 KB string to fit and says how long it was', () => {
    // Prepare
    const value = { username: 'u'.repeat(300_000), kept: 'short' };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 50_000 });

    // Assess
    expect(jsonStringBytes(result.text)).toBeLessThanOrEqual(50_000);
    expect(result.truncated).toBe(true);
    const parsed = JSON.parse(result.text);
    expect(parsed.kept).toBe('short');
    expect(parsed.username).toMatch(/^u{45000}\.\.\. \[300000 characters in all\]$/);
  });

  it('counts bytes, not characters, for multi-byte text', () => {
    // Prepare
    const value = { text: '\u{1F525}'.repeat(50_000) };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 30_000, measure: utf8Bytes });

    // Assess
    expect(utf8Bytes(result.text)).toBeLessThanOrEqual(30_000);
    expect(() => JSON.parse(result.text)).not.toThrow();
    expect(result.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('thins long arrays and wide objects', () => {
    // Prepare
    const value = {
      list: Array.from({ length: 10_000 }, (_, index) => index),
      wide: Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, index])),
    };

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 20_000 });

    // Assess
    const parsed = JSON.parse(result.text);
    expect(parsed.list.at(-1)).toMatch(/^\[\d+ more items\]$/);
    expect(parsed.wide[TRUNCATED_KEY]).toMatch(/^\d+ more fields$/);
    expect(jsonStringBytes(result.text)).toBeLessThanOrEqual(20_000);
  });

  it('summarises hostile nesting without overflowing the stack', () => {
    // Prepare
    let value: unknown = 'bottom';
    for (let depth = 0; depth < 100_000; depth++) value = [value];

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 10_000 });

    // Assess
    expect(result.truncated).toBe(true);
    expect(result.text).toContain('[array nested deeper than 32 levels]');
    expect(() => JSON.parse(result.text)).not.toThrow();
  });

  it('summarises cycles and BigInts instead of throwing', () => {
    // Prepare
    const value: Record<string, unknown> = { big: 12345678901234567890n };
    value.self = value;

    // Act
    const result = boundedPrettyJson(value, { maxBytes: 10_000 });

    // Assess
    expect(JSON.parse(result.text)).toEqual({ big: '12345678901234567890', self: '[circular reference]' });
  });

  it('falls back to a note, then to nothing, as the budget shrinks', () => {
    // Prepare
    const value = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`field${index}`, 'v'.repeat(100)]),
    );

    // Act
    const note = boundedPrettyJson(value, { maxBytes: 120 });
    const nothing = boundedPrettyJson(value, { maxBytes: 10 });

    // Assess
    expect(Object.keys(JSON.parse(note.text))).toEqual([TRUNCATED_KEY]);
    expect(nothing).toEqual({ text: '', truncated: true });
  });
});
