import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleLoadError } from '../../shared/rules/errors.js';
import { loadRulePack } from '../../shared/rules/loader.js';
import { packOf, problemsOf, ruleFile } from './rule-files.js';

describe('parseRulePack', () => {
  it('accepts a valid file and keeps rules in order with their lines', () => {
    const text = `${ruleFile({ id: 'first' })}${ruleFile({ id: 'second' }).replace('rules:\n', '')}`;

    const pack = packOf(text);

    expect(pack.rules.map((rule) => rule.spec.id)).toEqual(['first', 'second']);
    expect(pack.rules.map((rule) => rule.origin.line)).toEqual([2, 8]);
  });

  it('reports YAML syntax errors with their position', () => {
    const text = 'rules:\n  - id: broken\n    match: {eventTypeName: [A, B}\n';

    const [problem] = problemsOf({ file: 'syntax.yaml', text });

    expect(problem).toMatchObject({ code: 'YAML_SYNTAX', file: 'syntax.yaml', line: 3 });
    expect(problem?.sourceLine).toBe('    match: {eventTypeName: [A, B}');
  });

  it('reports duplicate YAML keys as syntax errors', () => {
    const text = ruleFile({ extra: '    name: Twice' });

    const [problem] = problemsOf({ file: 'dup.yaml', text });

    expect(problem).toMatchObject({ code: 'YAML_SYNTAX', file: 'dup.yaml', line: 8, column: 5 });
    expect(problem?.message).toBe(
      'the key "name" appears twice in the same mapping: keep one, and merge what the two say',
    );
  });

  it.each([
    {
      mistake: 'a key indented less than its neighbours',
      text: 'rules:\n  - id: a\n    name: A\n   severity: low\n',
      line: 4,
      column: 4,
      message:
        'this line is indented 3 spaces, which lines it up with no key or list item above it: keys of one mapping start in the same column (4 spaces for the keys just above), and "- " items under their key',
    },
    {
      mistake: 'a key indented more than its neighbours',
      text: 'rules:\n  - id: a\n    name: A\n     severity: low\n    title: x\n',
      line: 4,
      column: 6,
      message:
        'this line is indented 5 spaces, deeper than the key above it, which has its value already, so nothing can nest under it: line it up with that key (4 spaces), or give it a key of its own to nest under',
    },
    {
      mistake: 'a key at the column of its list item dash',
      text: 'rules:\n  - id: a\n    name: A\n  severity: low\n',
      line: 4,
      column: 3,
      message:
        'this line is indented 2 spaces, which lines it up with no key or list item above it: keys of one mapping start in the same column (4 spaces for the keys just above), and "- " items under their key',
    },
    {
      mistake: 'a colon and a space inside a value',
      text: 'rules:\n  - id: a\n    name: Access: granted\n',
      line: 3,
      column: 17,
      message:
        'this value holds ": " (a colon and a space), which YAML reads as the start of another key: put the whole value in quotes',
    },
    {
      mistake: 'a key without a space after its colon',
      text: 'rules:\n  - id:a\n    name: A\n',
      line: 2,
      column: 7,
      message: 'a key needs a space after its colon: write "key: value"',
    },
    {
      mistake: 'a key without its colon',
      text: 'rules\n  - id: a\n',
      line: 1,
      column: 1,
      message:
        'this line is neither "key: value" nor a list item: add a colon after the key, or "- " before the item',
    },
    {
      mistake: 'a flow list never closed',
      text: 'lists:\n  admins: [root, admin\nrules: []\n',
      line: 2,
      column: 11,
      message:
        'this [ is never closed: end it with ] on the same line, or write the list as lines starting with "- "',
    },
    {
      mistake: 'a double quote never closed',
      text: 'rules:\n  - id: a\n    title: "Project {{groupId}}\n    severity: low\n',
      line: 3,
      column: 12,
      message:
        'this double quote is never closed: end the value with " on the same line, or write it without quotes',
    },
    {
      mistake: 'a merge key',
      text: 'defaults: &defaults\n  severity: low\nrules:\n  - <<: *defaults\n    id: a\n',
      line: 4,
      column: 5,
      message:
        'merge keys (<<) are not supported in a rule file: write the keys out; an anchor (&name) and an alias (*name) still repeat a whole value',
    },
  ])('explains $mistake, with the caret where it is to be fixed', ({ text, line, column, message }) => {
    const problems = problemsOf({ file: 'syntax.yaml', text });

    expect(problems).toEqual([
      expect.objectContaining({ code: 'YAML_SYNTAX', file: 'syntax.yaml', line, column, message }),
    ]);
  });

  it('reports an unknown key at the key, with a suggestion', () => {
    const text = ruleFile({ extra: '    severty: high' });

    const [problem] = problemsOf({ file: 'keys.yaml', text });

    expect(problem).toMatchObject({
      code: 'SCHEMA',
      file: 'keys.yaml',
      line: 8,
      column: 5,
      length: 7,
      message: 'unknown key "severty" (did you mean "severity"?)',
    });
  });

  it('reports an unknown operator inside a match', () => {
    const text = ruleFile({ match: '      opType: { equalz: deleteDocument }' });

    const [problem] = problemsOf({ file: 'ops.yaml', text });

    expect(problem).toMatchObject({ code: 'SCHEMA', file: 'ops.yaml', line: 6, column: 17 });
    expect(problem?.message).toBe('unknown key "equalz" (did you mean "equals"?)');
  });

  it('reports a value of the wrong type, naming what is accepted', () => {
    const text = ruleFile({ extra: '    threshold: { count: many, window: 10m }' });

    const [problem] = problemsOf({ file: 'types.yaml', text });

    expect(problem).toMatchObject({ code: 'SCHEMA', file: 'types.yaml', line: 8, column: 25 });
    expect(problem?.message).toBe('expected a number, found the string "many"');
  });

  it('reports a value outside an enumeration', () => {
    const text = ruleFile().replace('severity: medium', 'severity: urgent');

    const [problem] = problemsOf({ file: 'enum.yaml', text });

    expect(problem).toMatchObject({ code: 'SCHEMA', file: 'enum.yaml', line: 4, column: 15 });
    expect(problem?.message).toContain('"urgent" is not allowed here: use one of "info", "low"');
  });

  it('reports a missing required key at the rule', () => {
    const text = ruleFile().replace("    title: 'Project {{groupId}} deleted'\n", '');

    const [problem] = problemsOf({ file: 'missing.yaml', text });

    expect(problem).toMatchObject({
      code: 'SCHEMA',
      line: 2,
      column: 5,
      message: 'missing required key "title"',
    });
  });

  it('reports a missing enumerated key as missing, not as a wrong value', () => {
    const text = ruleFile().replace('    severity: medium\n', '');

    const [problem] = problemsOf({ file: 'missing-severity.yaml', text });

    expect(problem).toMatchObject({
      code: 'SCHEMA',
      file: 'missing-severity.yaml',
      line: 2,
      column: 5,
      message: 'missing required key "severity"',
    });
  });

  it('reports a field condition of no accepted shape', () => {
    const text = ruleFile({ match: '      opType: [[deleteDocument]]' });

    const [problem] = problemsOf({ file: 'shape.yaml', text });

    expect(problem).toMatchObject({ code: 'SCHEMA', file: 'shape.yaml', line: 6, column: 16 });
    expect(problem?.message).toBe('expected a string, a number, true or false or null, found a list');
  });

  it('reports several problems at once, across files and kinds, in file order', () => {
    const first = ruleFile({ extra: '    severty: high' });
    const second = ruleFile({ match: "      username: { regex: '(' }" }).replace('sample-rule', 'other-rule');

    const problems = problemsOf({ file: 'a.yaml', text: first }, { file: 'b.yaml', text: second });

    expect(problems.map((problem) => [problem.file, problem.code])).toEqual([
      ['a.yaml', 'SCHEMA'],
      ['b.yaml', 'INVALID_REGEX'],
    ]);
  });

  it('reports a rule id used twice across files, at the second one', () => {
    const problems = problemsOf({ file: 'a.yaml', text: ruleFile() }, { file: 'b.yaml', text: ruleFile() });

    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'DUPLICATE_ID', file: 'b.yaml', line: 2, column: 9 });
    expect(problems[0]?.message).toBe(
      'rule id "sample-rule" is already used in a.yaml:2: rule ids must be unique across all rule files',
    );
  });

  it('reports a list defined twice across files, at the second definition', () => {
    const lists = 'lists:\n  office_ranges: [10.0.0.0/8]\n';

    const problems = problemsOf({ file: 'a.yaml', text: lists }, { file: 'b.yaml', text: lists });

    expect(problems[0]).toMatchObject({ code: 'DUPLICATE_LIST', file: 'b.yaml', line: 2, column: 3 });
    expect(problems[0]?.message).toBe(
      'list "office_ranges" is already defined in a.yaml: list names are shared by all rule files, so rename one or merge them',
    );
  });

  it('reports an unknown list name at the name, listing the defined ones', () => {
    const text = `lists:\n  known: [a]\n${ruleFile({ match: '      opType: { in: { list: unknown_ops } }' })}`;

    const [problem] = problemsOf({ file: 'lists.yaml', text });

    expect(problem).toMatchObject({
      code: 'UNKNOWN_LIST',
      file: 'lists.yaml',
      line: 8,
      column: 29,
      length: 11,
    });
    expect(problem?.message).toBe('no list is named "unknown_ops"; lists defined: known');
  });

  it('does not report the use of a list whose own definition is broken', () => {
    const lists = 'lists:\n  bad_list: [{ nested: 1 }]\n';
    const rules = ruleFile({ match: '      opType: { in: { list: bad_list } }' });

    const problems = problemsOf({ file: 'a.yaml', text: lists }, { file: 'b.yaml', text: rules });

    expect(problems.map((problem) => problem.file)).toEqual(['a.yaml']);
  });

  it('reports an invalid regex with the engine reason', () => {
    const text = ruleFile({ match: "      username: { regex: '[a-' }" });

    const [problem] = problemsOf({ file: 'regex.yaml', text });

    expect(problem).toMatchObject({ code: 'INVALID_REGEX', file: 'regex.yaml', line: 6, column: 26 });
    expect(problem?.message).toBe('invalid regex /[a-/: missing closing ] `[a-`');
  });

  it('reports a regex RE2 cannot express at its place, saying why and what to write', () => {
    const text = ruleFile({ match: "      username: { regex: '^(?!svc-).*@acme\\.io$' }" });

    const [problem] = problemsOf({ file: 'lookahead.yaml', text });

    expect(problem).toMatchObject({ code: 'UNSUPPORTED_REGEX', file: 'lookahead.yaml', line: 6, column: 26 });
    expect(problem?.message).toMatch(
      /^regex \/\^\(\?!svc-\)\.\*@acme\\\.io\$\/ uses a lookahead \(\(\?!\.\.\.\), which rule regexes cannot: they run on a linear-time engine \(RE2 syntax/,
    );
    expect(problem?.message).toContain('not: { regex: ... }');
  });

  it('reports an invalid CIDR at the list item', () => {
    const text = ruleFile({ match: '      remoteAddress: { cidr_in: [10.0.0.0/8, 10.0.0.0/40] }' });

    const [problem] = problemsOf({ file: 'cidr.yaml', text });

    expect(problem).toMatchObject({
      code: 'INVALID_CIDR',
      file: 'cidr.yaml',
      line: 6,
      column: 46,
      length: 11,
    });
    expect(problem?.message).toBe(
      '"10.0.0.0/40" is not an IP address or CIDR block: write 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32',
    );
  });

  it('reports an invalid CIDR in a named list at the reference', () => {
    const text = `lists:\n  offices: [not-an-ip]\n${ruleFile({ match: '      remoteAddress: { cidr_in: { list: offices } }' })}`;

    const [problem] = problemsOf({ file: 'cidr-list.yaml', text });

    expect(problem).toMatchObject({ code: 'INVALID_CIDR', file: 'cidr-list.yaml', line: 8, column: 41 });
    expect(problem?.message).toContain('"not-an-ip" (in list "offices")');
  });

  it('reports an invalid duration', () => {
    const text = ruleFile({ extra: '    suppress: 10 minutes' });

    const [problem] = problemsOf({ file: 'duration.yaml', text });

    expect(problem).toMatchObject({
      code: 'INVALID_DURATION',
      file: 'duration.yaml',
      line: 8,
      column: 15,
      length: 10,
    });
    expect(problem?.message).toMatch(
      /^"10 minutes" is not a duration: write .* such as 30s, 10m, 1h30m or 7d/,
    );
  });

  it('reports an unknown time zone and a malformed time of day', () => {
    const match = [
      '      created:',
      '        outside_hours: { start: "8:00", end: "18:00", time_zone: Europe/Atlantis }',
    ].join('\n');

    const problems = problemsOf({ file: 'hours.yaml', text: ruleFile({ match }) });

    expect(problems.map((problem) => [problem.code, problem.file, problem.line, problem.column])).toEqual([
      ['INVALID_HOURS', 'hours.yaml', 7, 33],
      ['INVALID_TIME_ZONE', 'hours.yaml', 7, 66],
    ]);
    expect(problems[0]?.message).toBe(
      '"8:00" is not a time of day: write HH:MM from 00:00 to 24:00, such as 08:30',
    );
    expect(problems[1]?.message).toBe(
      '"Europe/Atlantis" is not an IANA time zone this runtime knows: write one such as Europe/Paris, America/New_York or UTC',
    );
  });

  it('reports a template placeholder that names no field path, at the placeholder', () => {
    const text = ruleFile().replace(
      "title: 'Project {{groupId}} deleted'",
      "title: 'Deleted by {{ user name }}'",
    );

    const [problem] = problemsOf({ file: 'template.yaml', text });

    expect(problem).toMatchObject({
      code: 'INVALID_TEMPLATE',
      file: 'template.yaml',
      line: 7,
      column: 24,
      length: 15,
    });
    expect(problem?.message).toContain('placeholder "{{ user name }}"');
  });

  it('reports an empty placeholder and an unclosed one', () => {
    const text = ruleFile({ extra: "    summary: 'By {{}} at {{created'" });

    const problems = problemsOf({ file: 'template.yaml', text });

    expect(problems.map((problem) => [problem.code, problem.file, problem.line, problem.column])).toEqual([
      ['INVALID_TEMPLATE', 'template.yaml', 8, 18],
      ['INVALID_TEMPLATE', 'template.yaml', 8, 26],
    ]);
    expect(problems[0]?.message).toContain('names no field path');
    expect(problems[1]?.message).toContain('never closed');
  });

  it('reports an invalid field path at the key', () => {
    const text = ruleFile({ match: '      diffs[]type: USERS' });

    const [problem] = problemsOf({ file: 'path.yaml', text });

    expect(problem).toMatchObject({
      code: 'INVALID_FIELD_PATH',
      file: 'path.yaml',
      line: 6,
      column: 7,
      length: 11,
    });
  });

  it('reports an empty match and a condition without operators', () => {
    const problems = problemsOf(
      { file: 'a.yaml', text: ruleFile({ match: '      not: {}' }) },
      { file: 'b.yaml', text: ruleFile({ id: 'b', match: '      opType: { ignore_case: true }' }) },
    );

    expect(problems.map((problem) => [problem.file, problem.code, problem.line])).toEqual([
      ['a.yaml', 'INVALID_CONDITION', 6],
      ['b.yaml', 'INVALID_CONDITION', 6],
    ]);
  });

  it('reports a test with both event and events', () => {
    const extra = [
      '    tests:',
      '      - name: both',
      '        event: { eventTypeName: GROUP_DELETED }',
      '        events: [{ eventTypeName: GROUP_DELETED }]',
      '        expect: { alert: true }',
    ].join('\n');

    const [problem] = problemsOf({ file: 'tests.yaml', text: ruleFile({ extra }) });

    expect(problem).toMatchObject({ code: 'INVALID_TEST', file: 'tests.yaml', line: 9, column: 15 });
  });

  it('formats problems like falco -V: file:line:column, the line, and a caret', () => {
    const text = ruleFile({ extra: '    severty: high' });

    let message = '';
    try {
      packOf(text, 'rules/format.yaml');
    } catch (error) {
      message = (error as Error).message;
    }

    expect(message.split('\n').slice(1)).toEqual([
      'rules/format.yaml:8:5: unknown key "severty" (did you mean "severity"?) [SCHEMA]',
      ' 8 |     severty: high',
      '   |     ^^^^^^^',
    ]);
  });

  it('refuses a YAML alias bomb', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'rules: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');

    const [problem] = problemsOf({ file: 'bomb.yaml', text: bomb });

    expect(problem?.code).toBe('YAML_SYNTAX');
  });
});

describe('parseRulePack aliases', () => {
  it('refuses aliases that expand past the bound however few they are, at the alias', () => {
    const items = Array.from({ length: 2_000 }, (_, index) => `v${index}`).join(', ');
    const text = `lists:\n  big: &big [${items}]\n  copies: [${Array(99).fill('*big').join(', ')}]\nrules: []\n`;

    const [problem] = problemsOf({ file: 'bomb.yaml', text });

    // The fiftieth alias is the one past the bound: 50 copies of 2,001 nodes.
    expect(problem).toMatchObject({ code: 'YAML_SYNTAX', line: 3, column: 12 + 49 * 6 });
    expect(problem?.message).toBe(
      'the aliases of this file expand to more than 100,000 nodes (here *big, 2,001 nodes): name a list once and refer to it with {list: name}, or write the values out',
    );
  });

  it('accepts aliases that stay within it', () => {
    const text = `lists:\n  admins: &admins [root, admin]\n  also: *admins\n${ruleFile({ match: '      username: { in: *admins }' })}`;

    const pack = packOf(text);

    expect(pack.lists.get('also')).toEqual(['root', 'admin']);
  });
});

describe('loadRulePack', () => {
  let directory = '';

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rules-loader-'));
    await mkdir(join(directory, 'pack'));
    await mkdir(join(directory, 'empty'));
    await writeFile(join(directory, 'pack', 'b.yaml'), ruleFile({ id: 'from-b' }));
    await writeFile(join(directory, 'pack', 'a.yml'), ruleFile({ id: 'from-a' }));
    await writeFile(join(directory, 'pack', 'notes.txt'), 'not a rule file');
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads the YAML files of a directory in name order', async () => {
    const pack = await loadRulePack({ paths: [join(directory, 'pack')] });

    expect(pack.rules.map((rule) => rule.spec.id)).toEqual(['from-a', 'from-b']);
    expect(pack.rules[0]?.origin.file).toBe(join(directory, 'pack', 'a.yml'));
  });

  const readFailure = async (paths: string[]): Promise<string[]> => {
    const error = await loadRulePack({ paths }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RuleLoadError);
    return (error as RuleLoadError).problems.map((problem) => `${problem.file}: ${problem.message}`);
  };

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = join(directory, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);

    const problems = await readFailure([fifo]);

    expect(problems).toEqual([
      `${fifo}: this is a FIFO (named pipe), not a regular file: give rule files, or directories of them`,
    ]);
  });

  it('refuses a device and a file not named .yaml or .yml, reading neither', async () => {
    const notes = join(directory, 'pack', 'notes.txt');

    const problems = await readFailure(['/dev/urandom', notes]);

    expect(problems).toEqual([
      '/dev/urandom: this is not a .yaml or .yml file: give rule files, or directories of them',
      `${notes}: this is not a .yaml or .yml file: give rule files, or directories of them`,
    ]);
  });

  it('refuses a link in a layer directory without reading or quoting what it points at', async () => {
    const secret = join(directory, 'secret.txt');
    await writeFile(secret, 'aws_secret_access_key = fake-secret-for-a-test\n');
    const layer = join(directory, 'linked');
    await mkdir(layer);
    await writeFile(join(layer, 'a.yaml'), ruleFile({ id: 'from-a' }));
    await symlink(secret, join(layer, 'b.yaml'));
    await symlink(secret, join(directory, 'direct.yaml'));

    const problems = await readFailure([layer, join(directory, 'direct.yaml')]);

    expect(problems).toEqual([
      `${join(layer, 'b.yaml')}: this is a symbolic link to ${secret}: the rule files of a layer directory must be in it; copy the file there, or give it as a layer of its own`,
      `${join(directory, 'direct.yaml')}: this is a symbolic link to ${secret}, which is not a .yaml or .yml file: give rule files, or directories of them`,
    ]);
    expect(problems.join('\n')).not.toContain('fake-secret');
  });

  it('refuses a file over the size bound unread, and layers over the bound together', async () => {
    const huge = join(directory, 'huge.yaml');
    await writeFile(huge, '');
    await truncate(huge, 9 * 2 ** 20);
    const many = join(directory, 'many');
    await mkdir(many);
    const comment = `# ${'x'.repeat(7 * 2 ** 20)}\n`;
    for (const name of ['a', 'b', 'c', 'd', 'e']) await writeFile(join(many, `${name}.yaml`), comment);

    const problems = await readFailure([huge, many]);

    expect(problems).toEqual([
      `${huge}: this file is larger than the 8.0 MiB a rule file may hold (9.0 MiB): check that it is the file you meant, or split it`,
      `${join(many, 'e.yaml')}: with this file the layers hold more than the 32 MiB of rule text they may hold together: check that the layers are the ones you meant; no file after this one is read`,
    ]);
  });

  it('reports paths that cannot be read and directories without rule files, together', async () => {
    const missing = join(directory, 'missing.yaml');

    const error = await loadRulePack({ paths: [missing, join(directory, 'empty')] }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(RuleLoadError);
    expect((error as RuleLoadError).problems.map((problem) => [problem.code, problem.file])).toEqual([
      ['READ_FAILED', missing],
      ['NO_RULE_FILES', join(directory, 'empty')],
    ]);
    expect((error as RuleLoadError).problems[0]?.message).toBe('cannot read: no such file or directory');
  });
});
