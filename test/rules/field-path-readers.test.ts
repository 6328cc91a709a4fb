import { describe, expect, it } from 'vitest';
import { compileFieldPath, type PathReader, parseFieldPath } from '../../shared/rules/field-path.js';

/** The reader of a path that parses. */
function reader(text: string): PathReader {
  const parsed = parseFieldPath(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return compileFieldPath(parsed.path);
}

const isMissing = (value: unknown): boolean => value === undefined;

describe('parseFieldPath messages', () => {
  it('refuses an empty or blank path', () => {
    // Act
    const empty = parseFieldPath('');
    const blank = parseFieldPath('   ');

    // Assess
    expect(empty).toStrictEqual({ ok: false, message: 'a field path cannot be empty' });
    expect(blank).toStrictEqual({ ok: false, message: 'a field path cannot be empty' });
  });

  it('names the segment that is not one, and a name of the object machinery', () => {
    // Act
    const spaced = parseFieldPath('raw.user name');
    const proto = parseFieldPath('raw.__proto__.x');

    // Assess
    expect(spaced).toStrictEqual({
      ok: false,
      message:
        '"raw.user name" is not a field path: segment "user name" must be letters, digits, "_", "$", "@" or "-", optionally followed by "[]" (write paths like "diffs[].type")',
    });
    expect(proto).toStrictEqual({
      ok: false,
      message: '"raw.__proto__.x" is not a field path: "__proto__" cannot be used as a field name',
    });
  });
});

describe('compileFieldPath readers', () => {
  it('reads paths of one to four segments, and says whether they cross an array', () => {
    // Prepare
    const event = { a: { b: { c: { d: 'deep' } } }, top: 'top' };

    // Act
    const read = ['top', 'a.b', 'a.b.c', 'a.b.c.d'].map((text) => reader(text).first(event));

    // Assess
    expect(read).toStrictEqual(['top', { c: { d: 'deep' } }, { d: 'deep' }, 'deep']);
    expect(reader('a.b').spread).toBe(false);
    expect(reader('a[].b').spread).toBe(true);
  });

  it('reads nothing through a null or a text on the way, without failing', () => {
    // Prepare
    const event = { a: null, t: 'text' };

    // Act
    const read = ['a.b', 'a.b.c', 't.length', 'a[].b'].map((text) => reader(text).first(event));

    // Assess
    expect(read).toStrictEqual([undefined, undefined, undefined, undefined]);
  });

  it('gives as first value across an array the first one that is neither missing nor null', () => {
    // Prepare
    const event = { diffs: [{ name: null }, {}, { name: 'b' }, { name: 'c' }] };

    // Act
    const first = reader('diffs[].name').first(event);
    const none = reader('diffs[].name').first({ diffs: [{ name: null }] });

    // Assess
    expect(first).toBe('b');
    expect(none).toBeNull();
  });

  it('lists the values across an array in order, leaving out missing and null ones', () => {
    // Prepare
    const event = { diffs: [{ name: 'a' }, { name: null }, {}, { name: 0 }, { name: false }] };

    // Act
    const values = reader('diffs[].name').values(event);
    const single = reader('name').values({ name: null });

    // Assess
    expect(values).toStrictEqual(['a', 0, false]);
    expect(single).toStrictEqual([]);
  });

  it('tests each element across an array, with nothing for an element that lacks the field', () => {
    // Prepare
    const event = { diffs: [{ name: { first: 'a' } }, { other: 1 }] };

    // Act
    const missingInOne = reader('diffs[].name.first').some(event, isMissing);
    const missingNowhere = reader('diffs[].name').some({ diffs: [{ name: 'a' }] }, isMissing);

    // Assess
    expect(missingInOne).toBe(true);
    expect(missingNowhere).toBe(false);
  });

  it('tests nothing when the array is missing or null, and one object as a one-element array', () => {
    // Prepare
    const path = reader('diffs[].name');

    // Act
    const missing = path.some({}, isMissing);
    const nulled = path.some({ diffs: null }, isMissing);
    const single = path.some({ diffs: { name: 'a' } }, (value) => value === 'a');

    // Assess
    expect(missing).toBe(false);
    expect(nulled).toBe(false);
    expect(single).toBe(true);
  });
});
