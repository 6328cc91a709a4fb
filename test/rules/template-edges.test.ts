import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { compileTemplate, type TemplateProblem } from '../../shared/rules/template.js';

/** `source` rendered for `event`; throws when it does not compile. */
function render(source: string, event: Record<string, unknown>): string {
  const result = compileTemplate(source);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.template.render(event as AtlasEvent);
}

/** The problems of a template that must not compile. */
function problems(source: string): TemplateProblem[] {
  const result = compileTemplate(source);
  if (result.ok) throw new Error(`${source} compiled`);
  return result.problems;
}

describe('compileTemplate problems', () => {
  it('reports a placeholder never closed, from where it opens to the end', () => {
    // Act
    const found = problems('by {{username | "x"');

    // Assess
    expect(found).toStrictEqual([
      {
        message: 'a placeholder opened with "{{" is never closed with "}}"',
        offset: 3,
        placeholder: '{{username | "x"',
      },
    ]);
  });

  it('says what is wrong with each bad placeholder, at its offset', () => {
    // Act
    const found = problems('{{a | "x}} {{ }} {{"x" y}} {{"x" | a}} {{user name}} {{a |}}');

    // Assess
    expect(found).toStrictEqual([
      {
        message: 'placeholder "{{a | "x}}" has an unterminated "quoted default"',
        offset: 0,
        placeholder: '{{a | "x}}',
      },
      {
        message: 'placeholder "{{ }}" names no field path (write "{{username}}")',
        offset: 11,
        placeholder: '{{ }}',
      },
      {
        message: 'placeholder "{{"x" y}}" has text after a quoted default',
        offset: 17,
        placeholder: '{{"x" y}}',
      },
      {
        message: 'placeholder "{{"x" | a}}": a quoted default must be the last choice',
        offset: 27,
        placeholder: '{{"x" | a}}',
      },
      {
        message:
          'placeholder "{{user name}}": "user name" is not a field path: segment "user name" must be letters, digits, "_", "$", "@" or "-", optionally followed by "[]" (write paths like "diffs[].type")',
        offset: 39,
        placeholder: '{{user name}}',
      },
      {
        message: 'placeholder "{{a |}}" names no field path (write "{{username}}")',
        offset: 53,
        placeholder: '{{a |}}',
      },
    ]);
  });
});

describe('compileTemplate rendering', () => {
  it('keeps closing braces that come before a placeholder as text', () => {
    // Act
    const text = render('}} then {{username}}', { username: 'alice' });

    // Assess
    expect(text).toBe('}} then alice');
  });

  it('looks for the closing braces after the opening ones, even right behind other closing braces', () => {
    // Act
    const text = render('x}}{{username}}', { username: 'alice' });

    // Assess
    expect(text).toBe('x}}alice');
  });

  it('reads choices and a quoted default with spaces around them', () => {
    // Act
    const text = render('[{{  username  |  publicKey  }}] [{{ missing | "n/a" }}]', { publicKey: 'abc' });

    // Assess
    expect(text).toBe('[abc] [n/a]');
  });

  it('reads escaped quotes and backslashes inside a quoted default', () => {
    // Act
    const text = render('{{missing | "say \\"hi\\" \\\\ bye"}}', {});

    // Assess
    expect(text).toBe('say "hi" \\ bye');
  });

  it('joins the non-empty values across an array, and falls through when all are empty', () => {
    // Act
    const joined = render('{{diffs[].name}}', { diffs: [{ name: 'a' }, { name: '' }, { name: 'b' }] });
    const fallen = render('{{diffs[].name | "none"}}', { diffs: [{ name: '' }, { name: null }] });

    // Assess
    expect(joined).toBe('a, b');
    expect(fallen).toBe('none');
  });

  it('renders numbers, booleans and big integers as written, and a value JSON cannot hold as missing', () => {
    // Act
    const text = render('{{n}} {{f}} {{b}} {{nan}} {{s | "none"}}', {
      n: 7,
      f: false,
      b: 12345678901234567890n,
      nan: Number.NaN,
      s: Symbol('x'),
    });

    // Assess
    expect(text).toBe('7 false 12345678901234567890 NaN none');
  });
});
