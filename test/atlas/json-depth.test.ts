import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../shared/atlas/json-depth.js';

const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('jsonNestsDeeperThan', () => {
  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('counts objects and arrays alike', () => {
    expect(jsonNestsDeeperThan('{"a":{"b":[{"c":[]}]}}', 4)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[{"c":[]}]}}', 5)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: `${'['.repeat(500)}"\\`, b: `\\"${'{'.repeat(500)}` });

    expect(jsonNestsDeeperThan(text, 1)).toBe(false);
  });

  it('measures depth, not the number of brackets, in a text with more brackets than the limit', () => {
    const siblings = `[${'{"a":[]},'.repeat(400)}{}]`;

    expect(jsonNestsDeeperThan(siblings, 3)).toBe(false);
    expect(jsonNestsDeeperThan(siblings, 2)).toBe(true);
  });

  it('leaves a string never closed to JSON.parse', () => {
    expect(jsonNestsDeeperThan(`["${'['.repeat(500)}`, 2)).toBe(false);
  });
});
