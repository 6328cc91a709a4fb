import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../shared/rules/template.js';

function render(source: string, event: Record<string, unknown>): string {
  const compiled = compileTemplate(source);
  if (!compiled.ok) throw new Error(compiled.problems[0]?.message);
  return compiled.template.render(event);
}

describe('compileTemplate', () => {
  it('renders fields, nested fields and plain text', () => {
    const event = { username: 'ana', currentValue: { number: 6 }, isGlobalAdmin: false };

    const text = render('{{username}} saw {{ currentValue.number }} ({{isGlobalAdmin}})', event);

    expect(text).toBe('ana saw 6 (false)');
  });

  it('falls through missing, null and empty values to the next choice, then the default', () => {
    const event = { username: '', publicKey: 'abcdefgh', nothing: null };

    expect(render('{{username | publicKey | "someone"}}', event)).toBe('abcdefgh');
    expect(render('{{nothing | missing | "someone"}}', event)).toBe('someone');
    expect(render('[{{missing}}]', event)).toBe('[]');
  });

  it('joins values across arrays and renders objects as JSON', () => {
    const event = { diffs: [{ name: 'app' }, { name: 'etl' }], raw: { a: 1 } };

    expect(render('{{diffs[].name}} / {{raw}}', event)).toBe('app, etl / {"a":1}');
  });

  it('keeps quoted defaults literally, escapes included', () => {
    expect(render('{{x | "say \\"hi\\" | bye"}}', {})).toBe('say "hi" | bye');
  });

  it('never runs code: a placeholder is only a field path', () => {
    const compiled = compileTemplate('{{constructor.constructor("return 1")()}}');

    expect(compiled.ok).toBe(false);
  });

  it('reports every bad placeholder with its offset', () => {
    const compiled = compileTemplate('a {{}} b {{x | "d" | y}} c {{ok}} d {{open');

    expect(!compiled.ok && compiled.problems.map((problem) => [problem.offset, problem.placeholder])).toEqual(
      [
        [2, '{{}}'],
        [9, '{{x | "d" | y}}'],
        [36, '{{open'],
      ],
    );
  });
});
