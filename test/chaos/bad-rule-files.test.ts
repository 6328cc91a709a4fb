import { describe, expect, it } from 'vitest';
import { RuleLoadError, type RuleProblem } from '../../shared/rules/errors.js';
import { parseRulePack } from '../../shared/rules/loader.js';
import { ruleFile } from '../rules/rule-files.js';

/**
 * Malformed rule files, one per row, each with the one problem it must give: its code, where it
 * points (line and column) and its message. test/rules/loader.test.ts covers the others (unknown keys
 * and operators, wrong types, enumerations, missing keys, duplicate ids across files, lists, regexes,
 * CIDRs, durations, time zones, templates, field paths, empty conditions, inline test shapes, alias
 * bombs); none is repeated here.
 */
interface BadRuleFile {
  name: string;
  text: string;
  code: RuleProblem['code'];
  line: number;
  column: number;
  message: string | RegExp;
}

const withTests = (expect: string): string =>
  [
    '    tests:',
    '      - name: a test',
    '        event: { eventTypeName: GROUP_DELETED }',
    `        expect: ${expect}`,
  ].join('\n');

const BAD_RULE_FILES: readonly BadRuleFile[] = [
  {
    name: 'a list at the top instead of a mapping',
    text: '- id: a\n',
    code: 'SCHEMA',
    line: 1,
    column: 1,
    message: 'expected a mapping (key: value), found a list',
  },
  {
    name: 'a bare word for a whole file',
    text: 'hello\n',
    code: 'SCHEMA',
    line: 1,
    column: 1,
    message: 'expected a mapping (key: value), found the string "hello"',
  },
  {
    name: 'rules given as a mapping',
    text: 'rules:\n  id: a\n',
    code: 'SCHEMA',
    line: 2,
    column: 3,
    message: 'expected a list, found a mapping',
  },
  {
    name: 'rules left empty',
    text: 'rules:\n',
    code: 'SCHEMA',
    line: 1,
    column: 7,
    message: 'expected a list, found null',
  },
  {
    name: 'a rule that is a string',
    text: 'rules:\n  - just-a-string\n',
    code: 'SCHEMA',
    line: 2,
    column: 5,
    message: 'expected a mapping (key: value), found the string "just-a-string"',
  },
  {
    name: 'a top-level key misspelt',
    text: ruleFile().replace('rules:', 'rule:'),
    code: 'SCHEMA',
    line: 1,
    column: 1,
    message: 'unknown key "rule" (did you mean "rules"?)',
  },
  {
    name: 'tabs for indentation',
    text: 'rules:\n\t- id: a\n',
    code: 'YAML_SYNTAX',
    line: 2,
    column: 1,
    message: 'a tab indents this line: YAML indents with spaces only; replace the tab with spaces',
  },
  {
    name: 'a quote never closed',
    text: "rules:\n  - id: 'a\n",
    code: 'YAML_SYNTAX',
    line: 2,
    column: 9,
    message:
      "this single quote is never closed: end the value with ' on the same line, or write it without quotes",
  },
  {
    name: 'two YAML documents in one file',
    text: `${ruleFile()}---\n${ruleFile({ id: 'second' })}`,
    code: 'YAML_SYNTAX',
    line: 8,
    column: 1,
    message:
      'a second YAML document starts here (a "---" line): a rule file holds one document; split it into two files',
  },
  {
    name: 'an alias to no anchor',
    text: 'rules:\n  - *nope\n',
    code: 'YAML_SYNTAX',
    line: 2,
    column: 5,
    message: 'Unresolved alias (the anchor must be set before the alias): nope',
  },
  {
    name: 'lists nested thousands of levels deep',
    text: `rules:\n  - ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`,
    code: 'YAML_SYNTAX',
    line: 2,
    column: 101,
    message:
      'lists and mappings nest more than 100 levels deep here: a rule file needs about ten; check that this is the file you meant',
  },
  {
    name: 'control characters in a key',
    text: '\u0000\u001b[31mrules:\n',
    code: 'SCHEMA',
    line: 1,
    column: 1,
    message: 'unknown key "\\u0000\\u001b[31mrules"',
  },
  {
    name: 'a rule id with spaces',
    text: ruleFile({ id: 'has spaces' }),
    code: 'SCHEMA',
    line: 2,
    column: 9,
    message: '"has spaces": rule ids are lower case letters, digits, ".", "_" and "-" (at most 128)',
  },
  {
    name: 'a rule id in capitals',
    text: ruleFile({ id: 'Open_To_Internet' }),
    code: 'SCHEMA',
    line: 2,
    column: 9,
    message: '"Open_To_Internet": rule ids are lower case letters, digits, ".", "_" and "-" (at most 128)',
  },
  {
    name: 'a rule id used twice in the same file',
    text: `${ruleFile()}${ruleFile().replace('rules:\n', '')}`,
    code: 'DUPLICATE_ID',
    line: 8,
    column: 9,
    message:
      'rule id "sample-rule" is already used in same-file.yaml:2: rule ids must be unique across all rule files',
  },
  {
    name: 'a severity in capitals',
    text: ruleFile().replace('severity: medium', 'severity: High'),
    code: 'SCHEMA',
    line: 4,
    column: 15,
    message: '"High" is not allowed here: use one of "info", "low", "medium", "high", "critical"',
  },
  {
    name: 'an empty title',
    text: ruleFile().replace("title: 'Project {{groupId}} deleted'", "title: ''"),
    code: 'SCHEMA',
    line: 7,
    column: 12,
    message: 'cannot be empty',
  },
  {
    name: 'a runbook given as a list',
    text: ruleFile({ extra: '    runbook: [check, revoke]' }),
    code: 'SCHEMA',
    line: 8,
    column: 14,
    message: 'expected a string, found a list',
  },
  {
    name: 'tags given as one string',
    text: ruleFile({ extra: '    tags: network' }),
    code: 'SCHEMA',
    line: 8,
    column: 11,
    message: 'expected a list, found the string "network"',
  },
  {
    name: 'group_by given as one string',
    text: ruleFile({ extra: '    group_by: username' }),
    code: 'SCHEMA',
    line: 8,
    column: 15,
    message: 'expected a list, found the string "username"',
  },
  {
    name: 'an empty group_by',
    text: ruleFile({ extra: '    group_by: []' }),
    code: 'SCHEMA',
    line: 8,
    column: 15,
    message: 'needs at least 1 item',
  },
  {
    name: 'a threshold of zero events',
    text: ruleFile({ extra: '    threshold: { count: 0, window: 10m }' }),
    code: 'SCHEMA',
    line: 8,
    column: 25,
    message: 'must be at least 1',
  },
  {
    name: 'a threshold without its window',
    text: ruleFile({ extra: '    threshold: { count: 5 }' }),
    code: 'SCHEMA',
    line: 8,
    column: 16,
    message: 'missing required key "window"',
  },
  {
    name: 'a threshold window of more than a year',
    text: ruleFile({ extra: '    threshold: { count: 5, window: 400d }' }),
    code: 'INVALID_DURATION',
    line: 8,
    column: 36,
    message:
      '"400d" is not a duration: write days, hours, minutes and seconds such as 30s, 10m, 1h30m or 7d (more than 0, at most 366d)',
  },
  {
    name: 'a suppression of zero seconds',
    text: ruleFile({ extra: '    suppress: 0s' }),
    code: 'INVALID_DURATION',
    line: 8,
    column: 15,
    message: /^"0s" is not a duration: .* \(more than 0, at most 366d\)$/,
  },
  {
    name: 'a match given as a list',
    text: ruleFile({ match: '      - eventTypeName: GROUP_DELETED' }),
    code: 'SCHEMA',
    line: 6,
    column: 7,
    message: 'expected a mapping (key: value), found a list',
  },
  {
    name: 'an empty any',
    text: ruleFile({ match: '      any: []' }),
    code: 'SCHEMA',
    line: 6,
    column: 12,
    message: 'needs at least 1 item',
  },
  {
    name: 'not given a list',
    text: ruleFile({ match: '      not: [GROUP_DELETED]' }),
    code: 'SCHEMA',
    line: 6,
    column: 12,
    message: 'expected a mapping (key: value), found a list',
  },
  {
    name: 'a Sigma modifier in a field name',
    text: ruleFile({ match: '      opType|contains: delete' }),
    code: 'INVALID_FIELD_PATH',
    line: 6,
    column: 7,
    message: /^"opType\|contains" is not a field path: segment "opType\|contains" must be letters, digits/,
  },
  {
    name: 'an IPv4 prefix length over 32',
    text: ruleFile({ match: '      whitelistEntry: { cidr_at_least_as_wide_as: { ipv4: 40 } }' }),
    code: 'SCHEMA',
    line: 6,
    column: 59,
    message: 'must be at most 32',
  },
  {
    name: 'an inline test expecting an unknown key',
    text: ruleFile({ extra: withTests('{ alert: true, sevrity: high }') }),
    code: 'SCHEMA',
    line: 11,
    column: 32,
    message: 'unknown key "sevrity" (did you mean "severity"?)',
  },
  {
    name: 'lists given as a list',
    text: `lists: [a, b]\n${ruleFile()}`,
    code: 'SCHEMA',
    line: 1,
    column: 8,
    message: 'expected a mapping (key: value), found a list',
  },
  {
    name: 'a list name with a space',
    text: `lists:\n  "office ranges": [10.0.0.0/8]\n${ruleFile()}`,
    code: 'SCHEMA',
    line: 2,
    column: 3,
    message:
      'invalid name "office ranges": list names are lower case letters, digits and "_", starting with a letter',
  },
  {
    // An empty inline list matches nothing (in) or everything (not_in): a rule that cannot mean it.
    name: 'an empty inline list of values',
    text: ruleFile({ match: '      eventTypeName:\n        in: []' }),
    code: 'SCHEMA',
    line: 7,
    column: 13,
    message: 'needs at least 1 item',
  },
];

function onlyProblem(file: string, text: string): RuleProblem {
  let problems: readonly RuleProblem[] = [];
  try {
    parseRulePack({ sources: [{ file, text }] });
  } catch (error) {
    expect(error).toBeInstanceOf(RuleLoadError);
    problems = (error as RuleLoadError).problems;
  }
  expect(problems, 'exactly one problem').toHaveLength(1);
  return problems[0] as RuleProblem;
}

describe('parseRulePack on malformed rule files', () => {
  it('covers at least 30 kinds of malformed file here', () => {
    expect(BAD_RULE_FILES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(BAD_RULE_FILES)('refuses $name with its position and a clear message', (bad) => {
    // Prepare
    const file = bad.name === 'a rule id used twice in the same file' ? 'same-file.yaml' : 'bad.yaml';

    // Act
    const problem = onlyProblem(file, bad.text);

    // Assess
    expect(problem).toMatchObject({ code: bad.code, file, line: bad.line, column: bad.column });
    if (typeof bad.message === 'string') expect(problem.message.startsWith(bad.message)).toBe(true);
    else expect(problem.message).toMatch(bad.message);
  });

  it('prints no control character of the file, and keeps the caret under the spot', () => {
    // Prepare
    const text = 'rules:\n  - id: a\n    \u001b[2Jname: x\n';

    // Act
    let message = '';
    try {
      parseRulePack({ sources: [{ file: 'escape.yaml', text }] });
    } catch (error) {
      message = (error as Error).message;
    }

    // Assess
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that there are none.
    expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(message).toContain(' 3 |     ?[2Jname: x\n   |     ^');
  });
});
