import { describe, expect, it } from 'vitest';
import { compileSafeRegex } from '../../shared/rules/regex-safety.js';

describe('compileSafeRegex', () => {
  it.each([
    '^svc-[a-z]+$',
    '(delete|drop)(Document|Collection)?',
    '^a{2,5}b*$',
    '(ab)+',
    '[(+*)]+',
    '\\(a+\\)+',
    '(?:x)?y+',
  ])('accepts %j', (pattern) => {
    const result = compileSafeRegex(pattern, false);

    expect(result.ok).toBe(true);
  });

  it.each([
    ['(a+)+$', 'nested quantifiers'],
    ['^(\\w+\\s?)*$', 'nested quantifiers'],
    ['(a*b?){2,}', 'nested quantifiers'],
    ['((ab)*c)+', 'nested quantifiers'],
    ['(.*,){3,9}', 'nested quantifiers'],
    ['(a+?)+?', 'nested quantifiers'],
    ['(a)\\1', 'backreference'],
    ['(?<x>a)\\k<x>', 'backreference'],
  ])('rejects %j as unsafe', (pattern, reason) => {
    const result = compileSafeRegex(pattern, false);

    expect(result).toMatchObject({ ok: false, unsafe: true });
    expect(!result.ok && result.message).toContain(reason);
  });

  it('reports invalid syntax as invalid, not unsafe', () => {
    const result = compileSafeRegex('(unclosed', false);

    expect(result).toMatchObject({ ok: false, unsafe: false });
  });

  it('compiles with the u flag, and i when asked', () => {
    const result = compileSafeRegex('^é+$', true);

    expect(result.ok && result.regex.flags).toBe('iu');
    expect(result.ok && result.regex.test('ÉÉ')).toBe(true);
  });
});
