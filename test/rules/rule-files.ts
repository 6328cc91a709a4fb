import { expect } from 'vitest';
import { RuleLoadError, type RuleProblem } from '../../shared/rules/errors.js';
import { parseRulePack } from '../../shared/rules/loader.js';
import type { RulePack } from '../../shared/rules/rule-pack.js';

/** A rule file of one rule, with the given `match` block lines (indented for a rule's keys). */
export function ruleFile(options: { id?: string; extra?: string; match?: string } = {}): string {
  return [
    'rules:',
    `  - id: ${options.id ?? 'sample-rule'}`,
    '    name: Sample rule',
    '    severity: medium',
    '    match:',
    options.match ?? '      eventTypeName: GROUP_DELETED',
    "    title: 'Project {{groupId}} deleted'",
    ...(options.extra === undefined ? [] : [options.extra]),
    '',
  ].join('\n');
}

/** The pack of one rule file given as text. */
export function packOf(text: string, file = 'rules.yaml'): RulePack {
  return parseRulePack({ sources: [{ file, text }] });
}

/** The problems `parseRulePack` reports for these files; fails the test if it reports none. */
export function problemsOf(...sources: { file: string; text: string }[]): readonly RuleProblem[] {
  try {
    parseRulePack({ sources });
  } catch (error) {
    expect(error).toBeInstanceOf(RuleLoadError);
    return (error as RuleLoadError).problems;
  }
  expect.fail('the rule files were accepted');
}
