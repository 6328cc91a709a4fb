import { describe, expect, it } from 'vitest';
import { collectRuleTests, runRuleTests } from '../../shared/rules/rule-tests.js';
import { packOf, problemsOf, ruleFile } from './rule-files.js';

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

describe('runRuleTests with lists of the test', () => {
  const invitations = (testLines: string[]): string =>
    [
      'lists:',
      '  trusted_domains: []',
      '  office_ranges: [198.51.100.0/24]',
      ruleFile({
        match: [
          '      eventTypeName: INVITED_TO_ORG',
          '      targetUsername: { not: { email_domain_in: { list: trusted_domains } } }',
          '      not: { list_empty: trusted_domains }',
        ].join('\n'),
        extra: ['    tests:', ...testLines].join('\n'),
      }),
    ].join('\n');

  it("runs a test with its own values of a list, and the pack's elsewhere", async () => {
    const pack = packOf(
      invitations([
        '      - name: with the domain trusted',
        '        lists: { trusted_domains: [acme.example] }',
        '        event: { eventTypeName: INVITED_TO_ORG, groupId: g1, targetUsername: eve@other.example }',
        '        expect: { alert: true }',
        '      - name: with no domain trusted',
        '        event: { eventTypeName: INVITED_TO_ORG, groupId: g1, targetUsername: eve@other.example }',
        '        expect: { alert: false }',
      ]),
    );

    const results = await runRuleTests(pack);

    expect(results.map((result) => [result.name, result.passed])).toEqual([
      ['with the domain trusted', true],
      ['with no domain trusted', true],
    ]);
    expect(pack.lists.get('trusted_domains')).toEqual([]);
  });

  it('refuses a test that replaces a list no file defines, at its name', () => {
    const problems = problemsOf({
      file: 'rules.yaml',
      text: invitations([
        '      - name: misspelt',
        '        lists: { trusted_domain: [acme.example] }',
        '        event: { eventTypeName: INVITED_TO_ORG }',
        '        expect: { alert: false }',
      ]),
    });

    expect(problems.map((problem) => [problem.code, problem.line, problem.column, problem.message])).toEqual([
      [
        'UNKNOWN_LIST',
        15,
        18,
        'the test replaces a list no rule file defines, "trusted_domain"; lists defined: office_ranges, trusted_domains',
      ],
    ]);
  });

  it('refuses a test whose lists the rule cannot compile with', () => {
    const problems = problemsOf({
      file: 'rules.yaml',
      text: [
        'lists:',
        '  office_ranges: [198.51.100.0/24]',
        ruleFile({
          match: '      remoteAddress: { cidr_in: { list: office_ranges } }',
          extra: [
            '    tests:',
            '      - name: not a range',
            '        lists: { office_ranges: [the office] }',
            '        event: { remoteAddress: 198.51.100.7 }',
            '        expect: { alert: true }',
          ].join('\n'),
        }),
      ].join('\n'),
    });

    expect(problems.map((problem) => [problem.code, problem.message])).toEqual([
      [
        'INVALID_CIDR',
        `with the test's lists, the rule does not compile: "the office" (in list "office_ranges") is not an IP address or CIDR block: write 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32`,
      ],
    ]);
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
