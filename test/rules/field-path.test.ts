import { describe, expect, it } from 'vitest';
import { compileFieldPath, type FieldPath, parseFieldPath } from '../../shared/rules/field-path.js';

function reader(text: string): ReturnType<typeof compileFieldPath> {
  const parsed = parseFieldPath(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return compileFieldPath(parsed.path as FieldPath);
}

const event = {
  username: 'ana@example.com',
  currentValue: { number: 6, units: 'RAW' },
  raw: { deep: { er: { value: 'x' } } },
  diffs: [
    { type: 'USERS', roles: [{ role: 'readWrite' }, { role: 'dbAdmin' }] },
    { type: 'ROLES', roles: [] },
  ],
  single: { type: 'ONE' },
  empty: null,
};

describe('parseFieldPath', () => {
  it('splits a path into segments and array markers', () => {
    const parsed = parseFieldPath('diffs[].roles[].role');

    expect(parsed).toEqual({
      ok: true,
      path: {
        text: 'diffs[].roles[].role',
        segments: [
          { key: 'diffs', spread: true },
          { key: 'roles', spread: true },
          { key: 'role', spread: false },
        ],
      },
    });
  });

  it.each(['', 'user name', 'a..b', 'a[0]', 'a.[]', '__proto__', 'a.constructor'])('rejects %j', (text) => {
    const parsed = parseFieldPath(text);

    expect(parsed.ok).toBe(false);
  });
});

describe('compileFieldPath', () => {
  it('reads top-level and nested fields', () => {
    expect(reader('username').values(event)).toEqual(['ana@example.com']);
    expect(reader('currentValue.number').values(event)).toEqual([6]);
    expect(reader('raw.deep.er.value').values(event)).toEqual(['x']);
  });

  it('visits each element across arrays', () => {
    expect(reader('diffs[].type').values(event)).toEqual(['USERS', 'ROLES']);
    expect(reader('diffs[].roles[].role').values(event)).toEqual(['readWrite', 'dbAdmin']);
  });

  it('holds when any element satisfies the test', () => {
    expect(reader('diffs[].type').some(event, (value) => value === 'ROLES')).toBe(true);
    expect(reader('diffs[].type').some(event, (value) => value === 'AGENT')).toBe(false);
  });

  it('visits a single object where an array was expected as one element', () => {
    expect(reader('single[].type').values(event)).toEqual(['ONE']);
  });

  it('passes undefined once for a missing plain path and never calls the test for a missing array', () => {
    const seen: unknown[] = [];

    reader('nope.deeper').some(event, (value) => seen.push(value) > 0 && false);
    reader('nope[].deeper').some(event, (value) => seen.push(value) > 0 && false);

    expect(seen).toEqual([undefined]);
  });

  it('does not take inherited methods or non-object values for fields', () => {
    expect(reader('toString').values(event)).toEqual([]);
    expect(reader('username.length').values(event)).toEqual([]);
    expect(reader('empty').values(event)).toEqual([]);
  });
});
