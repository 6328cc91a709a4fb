import { describe, expect, it } from 'vitest';
import { collectRuleTests, runRuleTests } from '../../shared/rules/rule-tests.js';
import { packOf, ruleFile } from './rule-files.js';

const tests = [
  '    tests:',
  '      - name: alerts with the right title',
  '        event: { eventTypeName: GROUP_DELETED, groupId: g1 }',
  "        expect: { alert: true, count: 1, title: 'Project g1 deleted', severity: medium }",
  '      - name: wrong expectations',
  '        event: { eventTypeName: GROUP_DELETED, groupId: g2 }',
  "        expect: { alert: true, count: 2, title: 'Project g1 deleted', severity: high }",
  '      - name: expects silence but alerts',
  '        events: [{ eventTypeName: GROUP_DELETED }]',
  '        expect: { alert: false }',
].join('\n');

describe('runRuleTests', () => {
  it('passes a test whose expectations hold and explains every one that does not', async () => {
    const pack = packOf(ruleFile({ extra: tests }));

    const results = await runRuleTests(pack);

    expect(results.map((result) => [result.name, result.passed, result.failures])).toEqual([
      ['alerts with the right title', true, []],
      [
        'wrong expectations',
        false,
        [
          'expected 2 alerts, got 1',
          'expected title "Project g1 deleted", got "Project g2 deleted"',
          'expected severity high, got medium',
        ],
      ],
      ['expects silence but alerts', false, ['expected no alert, got 1: "Project deleted"']],
    ]);
  });

  it('runs the tests of disabled rules too', async () => {
    const pack = packOf(ruleFile({ extra: `    enabled: false\n${tests}` }));

    const results = await runRuleTests(pack);

    expect(results[0]?.passed).toBe(true);
  });
});

describe('collectRuleTests', () => {
  it('names each test with its rule, file and line', () => {
    const pack = packOf(ruleFile({ extra: tests }), 'rules/sample.yaml');

    const cases = collectRuleTests(pack);

    expect(cases.map((test) => [test.ruleId, test.file, test.line])).toEqual([
      ['sample-rule', 'rules/sample.yaml', 9],
      ['sample-rule', 'rules/sample.yaml', 12],
      ['sample-rule', 'rules/sample.yaml', 15],
    ]);
  });
});
