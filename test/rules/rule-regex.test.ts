import { describe, expect, it } from 'vitest';
import { compileRuleRegex } from '../../shared/rules/rule-regex.js';

function compiled(pattern: string, ignoreCase = false): (text: string) => boolean {
  const result = compileRuleRegex(pattern, ignoreCase);
  if (!result.ok) throw new Error(`expected /${pattern}/ to compile: ${result.message}`);
  return result.test;
}

describe('compileRuleRegex', () => {
  it.each([
    '^svc-[a-z]+$',
    '(delete|drop)(Document|Collection)?',
    '^a{2,5}b*$',
    '(a+)+$',
    '^(\\w+\\s?)*$',
    '(.*,){3,9}',
    '(?<name>a)',
    '(?i)^admin$',
    '\\p{L}+',
  ])('compiles %j, nested quantifiers included', (pattern) => {
    expect(compileRuleRegex(pattern, false).ok).toBe(true);
  });

  it('loads a pattern with overlapping alternatives and still matches what it should', () => {
    const test = compiled('^(?:[a-z0-9]|[a-z0-9._-])+@acme\\.io$');

    expect(test('bob.smith@acme.io')).toBe(true);
    expect(test('bob.smith@acme.io.evil.example')).toBe(false);
  });

  it('answers on hostile 40-character user names that make a backtracking engine take exponential time', () => {
    const test = compiled('^(?:[a-z0-9]|[a-z0-9._-])+@acme\\.io$');
    const nested = compiled('^(a+)+$');

    // A backtracking engine takes exponential time on each of these: a minute to days at this length.
    expect(test(`${'a'.repeat(40)}!`)).toBe(false);
    expect(test(`${'a'.repeat(30)}@acme.io!`)).toBe(false);
    expect(nested(`${'a'.repeat(40)}b`)).toBe(false);
    expect(nested('a'.repeat(40))).toBe(true);
  });

  it('tests the whole text, however long, unanchored unless the pattern is anchored', () => {
    const test = compiled('_pii$');
    const long = `${'orders_archive_'.repeat(400)}customers_pii`;

    expect(long.length).toBeGreaterThan(4096);
    expect(test(long)).toBe(true);
    expect(compiled('customers')(long)).toBe(true);
    expect(test(`${long}_copy`)).toBe(false);
  });

  it('matches regardless of case when asked, Unicode letters included', () => {
    expect(compiled('^é+-admin$', true)('ÉÉ-ADMIN')).toBe(true);
    expect(compiled('^é+-admin$', false)('ÉÉ-ADMIN')).toBe(false);
    expect(compiled('^k$', true)('\u212a')).toBe(true);
  });

  it('reads code points, not UTF-16 halves', () => {
    expect(compiled('^.$')('😀')).toBe(true);
    expect(compiled('^\\x{1F600}$')('😀')).toBe(true);
  });

  it.each([
    ['^(?!admin)', 'a lookahead ((?!...)', 'not: condition'],
    ['(?=.*[0-9])^svc', 'a lookahead ((?=...)', 'under all:'],
    ['(?<!test-)db$', 'a lookbehind ((?<!...)', 'not: condition'],
    ['(?<=prod-)db$', 'a lookbehind ((?<=...)', 'under all:'],
    ['(a)\\1', 'a backreference (\\1)', 'spell the repeated text out'],
    ['(?<x>a)\\k<x>', 'a named backreference', 'spell the repeated text out'],
    ['^caf\\u00e9$', 'a \\u escape', '\\x{00E9}'],
    ['^\\cA', 'a \\c control escape', '\\x{01}'],
    ['^[^]*$', '[^] (any character)', '(?s:.)'],
  ])('reports %j as unsupported, says what it uses and what to write', (pattern, what, instead) => {
    const result = compileRuleRegex(pattern, false);

    expect(result).toMatchObject({ ok: false, code: 'UNSUPPORTED_REGEX' });
    const message = result.ok ? '' : result.message;
    expect(message).toContain(`regex /${pattern}/ uses ${what}`);
    expect(message).toContain('linear-time engine (RE2 syntax');
    expect(message).toContain(instead);
  });

  it('reports a repeat count over 1000 as unsupported, with a bound to write instead', () => {
    const result = compileRuleRegex('^a{1001}$', false);

    expect(result).toMatchObject({ ok: false, code: 'UNSUPPORTED_REGEX' });
    expect(result.ok ? '' : result.message).toContain(
      'uses a repeat count over 1000 (invalid repeat count `{1001}`)',
    );
    expect(result.ok ? '' : result.message).toContain('{1,1000}');
  });

  it('reports other JavaScript-only syntax as unsupported, with the RE2 reason', () => {
    const result = compileRuleRegex('^\\u{1F600}$', false);

    expect(result).toMatchObject({ ok: false, code: 'UNSUPPORTED_REGEX' });
  });

  it('reports a pattern that is no regex at all as invalid, with the engine reason', () => {
    const result = compileRuleRegex('(unclosed', false);

    expect(result).toEqual({
      ok: false,
      code: 'INVALID_REGEX',
      message: 'invalid regex /(unclosed/: missing closing ) `(unclosed`',
    });
  });
});
