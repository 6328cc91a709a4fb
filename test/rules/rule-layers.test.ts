import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { RuleLoadError, type RuleProblem } from '../../shared/rules/errors.js';
import { parseRuleLayers } from '../../shared/rules/loader.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { deserializeRulePack, type RulePack, serializeRulePack } from '../../shared/rules/rule-pack.js';
import { runRuleTests } from '../../shared/rules/rule-tests.js';

const BASE = `lists:
  admins: [root, admin]
rules:
  - id: user-deleted
    name: User deleted
    severity: low
    tags: [users]
    match: { eventTypeName: MONGODB_USER_DELETED }
    group_by: [groupId]
    title: 'User {{dbUserUsername}} deleted'
    tests:
      - name: deleted
        event: { eventTypeName: MONGODB_USER_DELETED, dbUserUsername: app }
        expect: { alert: true, severity: low, title: User app deleted }
  - id: admin-login
    name: Admin login
    severity: medium
    tags: [access]
    match: { eventTypeName: USER_LOGIN, username: { in: { list: admins } } }
    title: '{{username}} logged in'
    tests:
      - name: root
        event: { eventTypeName: USER_LOGIN, username: root }
        expect: { alert: true }
      - name: ops is no admin
        event: { eventTypeName: USER_LOGIN, username: ops }
        expect: { alert: false }
`;

/** The built-in-like base layer and one user layer, `mine`, holding `text` in `mine/tuning.yaml`. */
function layered(text: string, ...more: string[]): RulePack {
  return parseRuleLayers({ layers: layersOf(text, ...more), version: '9.9.9' });
}

function layersOf(text: string, ...more: string[]) {
  return [
    { name: 'builtin', builtin: true, sources: [{ file: 'rules/base.yaml', text: BASE }] },
    { name: 'mine', sources: [{ file: 'mine/tuning.yaml', text }] },
    ...more.map((extra, index) => ({
      name: `more${index + 1}`,
      sources: [{ file: `more${index + 1}/tuning.yaml`, text: extra }],
    })),
  ];
}

function problemsOfLayers(text: string, ...more: string[]): readonly RuleProblem[] {
  try {
    parseRuleLayers({ layers: layersOf(text, ...more) });
  } catch (error) {
    expect(error).toBeInstanceOf(RuleLoadError);
    return (error as RuleLoadError).problems;
  }
  expect.fail('the layers were accepted');
}

function ruleOf(pack: RulePack, id: string) {
  const rule = pack.rules.find((candidate) => candidate.spec.id === id);
  if (rule === undefined) expect.fail(`no rule ${id}`);
  return rule;
}

async function alertsOf(pack: RulePack, events: AtlasEvent[]) {
  return createRuleEngine({ pack, counters: new MemoryCounterStore() }).evaluate(events);
}

const deleted = (id: string, extra: Record<string, unknown> = {}): AtlasEvent => ({
  id,
  eventTypeName: 'MONGODB_USER_DELETED',
  dbUserUsername: 'app',
  groupId: 'g1',
  created: '2024-03-18T14:00:00Z',
  ...extra,
});

describe('overrides', () => {
  it('disables a rule with enabled: false, and keeps it in the pack', async () => {
    const pack = layered('overrides:\n  - rule: user-deleted\n    enabled: false\n');

    expect(ruleOf(pack, 'user-deleted').spec.enabled).toBe(false);
    expect(await alertsOf(pack, [deleted('e1')])).toEqual([]);
  });

  it('changes the severity, and the shipped test of the old severity still passes', async () => {
    const pack = layered('overrides:\n  - rule: user-deleted\n    severity: critical\n');

    const [alert] = await alertsOf(pack, [deleted('e1')]);
    const results = await runRuleTests(pack);

    expect(alert?.severity).toBe('critical');
    expect(results.every((result) => result.passed)).toBe(true);
    expect(results.map((result) => result.name)).toContain('deleted');
  });

  it('sets suppress: one alert per group per period', async () => {
    const pack = layered('overrides:\n  - rule: user-deleted\n    suppress: 1h\n');

    const alerts = await alertsOf(pack, [
      deleted('e1'),
      deleted('e2', { created: '2024-03-18T14:10:00Z' }),
      deleted('e3', { groupId: 'g2' }),
    ]);

    expect(alerts.map((alert) => alert.events[0]?.id)).toEqual(['e1', 'e3']);
  });

  it('sets a threshold and the group_by it counts by', async () => {
    const pack = layered(
      'overrides:\n  - rule: user-deleted\n    threshold: { count: 2, window: 1h }\n    group_by: [username]\n',
    );

    const alerts = await alertsOf(pack, [
      deleted('e1', { username: 'a', groupId: 'g1' }),
      deleted('e2', { username: 'b', groupId: 'g1' }),
      deleted('e3', { username: 'a', groupId: 'g2' }),
    ]);

    expect(ruleOf(pack, 'user-deleted').spec.group_by).toEqual(['username']);
    expect(alerts.map((alert) => [alert.groupKey, alert.events.map((event) => event.id)])).toEqual([
      ['a', ['e1', 'e3']],
    ]);
  });

  it('replaces title, summary, runbook and tags', async () => {
    const pack = layered(
      [
        'overrides:',
        '  - rule: user-deleted',
        "    title: 'Gone: {{dbUserUsername}}'",
        "    summary: 'In {{groupId}}'",
        '    runbook: Call the DBA.',
        '    tags: [dba]',
        '',
      ].join('\n'),
    );

    const [alert] = await alertsOf(pack, [deleted('e1')]);

    expect(alert).toMatchObject({
      title: 'Gone: app',
      summary: 'In g1',
      runbook: 'Call the DBA.',
      tags: ['dba'],
    });
  });

  it('adds exceptions: no alert for an event any of them matches', async () => {
    const pack = layered(
      [
        'overrides:',
        '  - rule: user-deleted',
        '    exceptions:',
        '      - { dbUserUsername: { starts_with: tmp- } }',
        '      - { groupId: sandbox }',
        '',
      ].join('\n'),
    );

    const alerts = await alertsOf(pack, [
      deleted('e1', { dbUserUsername: 'tmp-42' }),
      deleted('e2', { groupId: 'sandbox' }),
      deleted('e3'),
    ]);

    expect(alerts.map((alert) => alert.events[0]?.id)).toEqual(['e3']);
  });

  it('runs its tests against the rule as the layer leaves it, and says which layer they come from', async () => {
    const pack = layered(
      [
        'overrides:',
        '  - rule: user-deleted',
        '    severity: high',
        '    tests:',
        '      - name: now high',
        '        event: { eventTypeName: MONGODB_USER_DELETED, dbUserUsername: app }',
        '        expect: { alert: true, severity: high }',
        '      - name: wrong on purpose',
        '        event: { eventTypeName: MONGODB_USER_DELETED, dbUserUsername: app }',
        '        expect: { alert: true, severity: low }',
        '',
      ].join('\n'),
    );

    const results = await runRuleTests(pack);

    expect(pack.tests.map((test) => [test.layer, test.file, test.line, test.name])).toEqual([
      ['builtin', 'rules/base.yaml', 12, 'deleted'],
      ['builtin', 'rules/base.yaml', 22, 'root'],
      ['builtin', 'rules/base.yaml', 25, 'ops is no admin'],
      ['mine', 'mine/tuning.yaml', 5, 'now high'],
      ['mine', 'mine/tuning.yaml', 8, 'wrong on purpose'],
    ]);
    expect(results.map((result) => [result.name, result.passed, result.failures])).toEqual([
      ['deleted', true, []],
      ['root', true, []],
      ['ops is no admin', true, []],
      ['now high', true, []],
      ['wrong on purpose', false, ['expected severity low, got high']],
    ]);
  });

  it('lets a later layer override the same rule again, on top', async () => {
    const pack = layered(
      'overrides:\n  - rule: user-deleted\n    severity: high\n    runbook: First.\n',
      'overrides:\n  - rule: user-deleted\n    severity: info\n',
    );

    expect(ruleOf(pack, 'user-deleted')).toMatchObject({
      spec: { severity: 'info', runbook: 'First.' },
      layers: ['builtin', 'mine', 'more1'],
    });
  });

  it('names the layers that changed each rule, and the pack version, in its alerts', async () => {
    const pack = layered('overrides:\n  - rule: user-deleted\n    severity: high\n');

    const alerts = await alertsOf(pack, [
      deleted('e1'),
      { id: 'e2', eventTypeName: 'USER_LOGIN', username: 'root' },
    ]);

    expect(alerts.map((alert) => [alert.ruleId, alert.rulePack])).toEqual([
      ['user-deleted', { version: '9.9.9', layers: ['builtin', 'mine'] }],
      ['admin-login', { version: '9.9.9', layers: ['builtin'] }],
    ]);
  });

  it('reports an unknown rule id at its place, with a did you mean', () => {
    const problems = problemsOfLayers('overrides:\n  - rule: user-deletd\n    severity: high\n');

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'UNKNOWN_RULE',
        file: 'mine/tuning.yaml',
        line: 2,
        column: 11,
        message:
          'no earlier layer defines a rule "user-deletd" (did you mean "user-deleted"?): overrides change rules of earlier layers; to add a rule, write it under rules:',
      }),
    ]);
  });

  it('says to give builtin first when no layer before the override is the built-in pack', () => {
    const problems = (() => {
      try {
        parseRuleLayers({
          layers: [
            {
              name: 'mine',
              sources: [
                {
                  file: 'mine/tuning.yaml',
                  text: 'overrides:\n  - rule: user-deleted\n    severity: high\n',
                },
              ],
            },
          ],
        });
      } catch (error) {
        return (error as RuleLoadError).problems;
      }
      return expect.fail('the layer was accepted');
    })();

    expect(problems.map((problem) => problem.message)).toEqual([
      'no earlier layer defines a rule "user-deleted": overrides change rules of earlier layers; no layer comes before it: to tune the built-in pack, give builtin first (--rules builtin mine, or rules.directories: [builtin, mine]); to add a rule, write it under rules:',
    ]);
  });

  it('refuses an override of a rule of the same layer', () => {
    const text = [
      'rules:',
      '  - id: mine-rule',
      '    name: Mine',
      '    severity: low',
      '    match: { eventTypeName: X }',
      '    title: x',
      'overrides:',
      '  - rule: mine-rule',
      '    severity: high',
      '',
    ].join('\n');

    const problems = problemsOfLayers(text);

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'INVALID_OVERRIDE',
        file: 'mine/tuning.yaml',
        line: 8,
        column: 11,
        message:
          'rule "mine-rule" is defined in this layer (mine/tuning.yaml:2): change it there; overrides change rules of earlier layers',
      }),
    ]);
  });

  it('reports a bad value of an override where the override writes it', () => {
    const problems = problemsOfLayers('overrides:\n  - rule: user-deleted\n    suppress: soon\n');

    expect(problems).toEqual([
      expect.objectContaining({ code: 'INVALID_DURATION', file: 'mine/tuning.yaml', line: 3, column: 15 }),
    ]);
    expect(problems[0]?.message).toMatch(/^"soon" is not a duration/);
  });

  it('reports a broken exception of an override where the override writes it', () => {
    const problems = problemsOfLayers(
      'overrides:\n  - rule: user-deleted\n    exceptions:\n      - { remoteAddress: { cidr_in: [not-a-cidr] } }\n',
    );

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'INVALID_CIDR',
        file: 'mine/tuning.yaml',
        line: 4,
        column: 38,
        message:
          '"not-a-cidr" is not an IP address or CIDR block: write 10.0.0.0/8, 203.0.113.7 or 2001:db8::/32',
      }),
    ]);
  });

  it('refuses an unknown key in an override, naming the known one', () => {
    const problems = problemsOfLayers(
      'overrides:\n  - rule: user-deleted\n    match: { eventTypeName: X }\n',
    );

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'SCHEMA',
        file: 'mine/tuning.yaml',
        line: 3,
        column: 5,
        message: 'unknown key "match"',
      }),
    ]);
  });
});

describe('a rule id repeated in a later layer', () => {
  it('is an error naming the first definition and the overrides form', () => {
    const text = [
      'rules:',
      '  - id: user-deleted',
      '    name: Copy',
      '    severity: high',
      '    match: { eventTypeName: MONGODB_USER_DELETED }',
      '    title: copy',
      '',
    ].join('\n');

    const problems = problemsOfLayers(text);

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'DUPLICATE_ID',
        file: 'mine/tuning.yaml',
        line: 2,
        column: 9,
        message:
          'rule "user-deleted" is already defined in rules/base.yaml:4 (layer builtin): to change it from this layer, write "overrides: [{ rule: user-deleted, severity: high }]" with only the fields that change, instead of a copy of the rule',
      }),
    ]);
  });
});

describe('exceptions', () => {
  const events = (): AtlasEvent[] => [
    deleted('d1', { username: 'ci-bot' }),
    deleted('d2', { username: 'ana' }),
    { id: 'l1', eventTypeName: 'USER_LOGIN', username: 'root', remoteAddress: '203.0.113.5' },
    { id: 'l2', eventTypeName: 'USER_LOGIN', username: 'root', remoteAddress: '198.51.100.5' },
  ];
  const idsOf = async (pack: RulePack) =>
    (await alertsOf(pack, events())).map((alert) => alert.events[0]?.id);

  it('applies to every rule when it names neither rules nor tags', async () => {
    const pack = layered(
      'exceptions:\n  - name: ci\n    match: { username: ci-bot }\n  - name: office\n    match: { remoteAddress: { cidr_in: [203.0.113.0/24] } }\n',
    );

    expect(await idsOf(pack)).toEqual(['d2', 'l2']);
    expect(pack.warnings).toEqual([]);
  });

  it('applies only to the rules it names', async () => {
    const pack = layered(
      'exceptions:\n  - name: office\n    rules: [admin-login]\n    match: { username: { exists: true } }\n',
    );

    expect(await idsOf(pack)).toEqual(['d1', 'd2']);
    expect(ruleOf(pack, 'user-deleted').layers).toEqual(['builtin']);
    expect(ruleOf(pack, 'admin-login').layers).toEqual(['builtin', 'mine']);
  });

  it('applies only to the rules with a tag it names', async () => {
    const pack = layered(
      'exceptions:\n  - name: ci\n    tags: [users]\n    match: { username: { exists: true } }\n',
    );

    expect(await idsOf(pack)).toEqual(['l1', 'l2']);
  });

  it('applies to the rules of its own layer', async () => {
    const text = [
      'rules:',
      '  - id: mine-rule',
      '    name: Mine',
      '    severity: low',
      '    match: { eventTypeName: MONGODB_USER_DELETED }',
      '    title: mine',
      '    tests:',
      '      - name: ana',
      '        event: { eventTypeName: MONGODB_USER_DELETED, username: ana }',
      '        expect: { alert: true }',
      'exceptions:',
      '  - name: ci',
      '    match: { username: ci-bot }',
      '',
    ].join('\n');

    const pack = layered(text);
    const alerts = await alertsOf(pack, [deleted('d1', { username: 'ci-bot' })]);

    expect(alerts).toEqual([]);
  });

  it('warns about a rule id that no layer defines, with a did you mean', () => {
    const pack = layered(
      'exceptions:\n  - name: office\n    rules: [admin-logn]\n    match: { username: x }\n',
    );

    expect(pack.warnings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'EXCEPTION_NEVER_MATCHES',
        file: 'mine/tuning.yaml',
        line: 3,
        column: 13,
        message:
          'exception "office" names rule "admin-logn", which no layer so far defines (did you mean "admin-login"?): it applies to no rule of that id',
      }),
    ]);
  });

  it('warns about a tag that no rule carries', () => {
    const pack = layered('exceptions:\n  - name: office\n    tags: [user]\n    match: { username: x }\n');

    expect(pack.warnings).toEqual([
      expect.objectContaining({
        code: 'EXCEPTION_NEVER_MATCHES',
        file: 'mine/tuning.yaml',
        line: 3,
        column: 12,
        message:
          'exception "office" names tag "user", which no rule so far carries (did you mean "users"?): it applies to no rule through it',
      }),
    ]);
  });

  it('warns about an exception on event types that none of the rules it scopes match', () => {
    const pack = layered(
      'exceptions:\n  - name: logins\n    rules: [user-deleted]\n    match: { eventTypeName: USER_LOGIN }\n',
    );

    expect(pack.warnings).toEqual([
      expect.objectContaining({
        code: 'EXCEPTION_NEVER_MATCHES',
        file: 'mine/tuning.yaml',
        line: 4,
        column: 29,
        message:
          'exception "logins" matches only event types that none of the rules it applies to match, so it never applies: check its eventTypeName',
      }),
    ]);
  });

  it('warns about an override exception on event types the rule never matches', () => {
    const pack = layered(
      'overrides:\n  - rule: user-deleted\n    exceptions:\n      - { eventTypeName: USER_LOGIN }\n',
    );

    expect(pack.warnings).toEqual([
      expect.objectContaining({
        code: 'EXCEPTION_NEVER_MATCHES',
        file: 'mine/tuning.yaml',
        line: 4,
        column: 26,
        message:
          'this exception matches only event types that rule "user-deleted" never matches, so it never applies: check its eventTypeName',
      }),
    ]);
  });

  it('reports a broken match at the exception', () => {
    const problems = problemsOfLayers('exceptions:\n  - name: bad\n    match: { "a..b": x }\n');

    expect(problems).toEqual([
      expect.objectContaining({ code: 'INVALID_FIELD_PATH', file: 'mine/tuning.yaml', line: 3, column: 14 }),
    ]);
  });
});

describe('lists across layers', () => {
  const login = (username: string): AtlasEvent => ({ id: username, eventTypeName: 'USER_LOGIN', username });

  it('appends to a list of an earlier layer, which its rules then use', async () => {
    const pack = layered('lists:\n  admins: { append: [dba] }\n');

    const alerts = await alertsOf(pack, [login('root'), login('dba'), login('ops')]);

    expect(pack.lists.get('admins')).toEqual(['root', 'admin', 'dba']);
    expect(alerts.map((alert) => alert.events[0]?.id)).toEqual(['root', 'dba']);
    expect(ruleOf(pack, 'admin-login').layers).toEqual(['builtin', 'mine']);
  });

  it('replaces a list of an earlier layer, and the shipped tests still test the shipped list', async () => {
    const pack = layered('lists:\n  admins: { replace: [dba] }\n');

    const alerts = await alertsOf(pack, [login('root'), login('dba')]);
    const results = await runRuleTests(pack);

    expect(alerts.map((alert) => alert.events[0]?.id)).toEqual(['dba']);
    expect(results.every((result) => result.passed)).toBe(true);
  });

  it('defines a new list with a plain list', () => {
    const pack = layered('lists:\n  offices: [203.0.113.0/24]\n');

    expect(pack.lists.get('offices')).toEqual(['203.0.113.0/24']);
  });

  it('refuses to redefine a list of an earlier layer, naming append and replace', () => {
    const problems = problemsOfLayers('lists:\n  admins: [dba]\n');

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'DUPLICATE_LIST',
        file: 'mine/tuning.yaml',
        line: 2,
        column: 3,
        message:
          'list "admins" is already defined in rules/base.yaml (layer builtin): to add values write admins: { append: [...] }, to change them all admins: { replace: [...] }',
      }),
    ]);
  });

  it('refuses to append to a list no earlier layer defines, with a did you mean', () => {
    const problems = problemsOfLayers('lists:\n  admin: { append: [dba] }\n');

    expect(problems).toEqual([
      expect.objectContaining({
        code: 'UNKNOWN_LIST',
        file: 'mine/tuning.yaml',
        line: 2,
        column: 3,
        message:
          'no earlier layer defines a list "admin" to append to (did you mean "admins"?): to define a new list, write admin: [...]',
      }),
    ]);
  });

  it('says to give builtin first when a list change has no builtin layer before it', () => {
    const layers = [
      { name: 'mine', sources: [{ file: 'mine/a.yaml', text: 'lists:\n  owners: [root]\n' }] },
      { name: 'more', sources: [{ file: 'more/b.yaml', text: 'lists:\n  admins: { append: [ops] }\n' }] },
    ];

    expect(() => parseRuleLayers({ layers })).toThrow(
      'no earlier layer defines a list "admins" to append to; no layer before it is builtin: to tune the built-in pack, give builtin first (--rules builtin mine more, or rules.directories: [builtin, mine, more]); to define a new list, write admins: [...]',
    );
  });

  it('refuses to replace a list of the same layer, saying to change it there', () => {
    const layers = [
      {
        name: 'mine',
        sources: [
          { file: 'mine/a.yaml', text: 'lists:\n  ranges: [a]\n' },
          { file: 'mine/b.yaml', text: 'lists:\n  ranges: { replace: [b] }\n' },
        ],
      },
    ];

    const error = (() => {
      try {
        parseRuleLayers({ layers });
      } catch (caught) {
        return caught as RuleLoadError;
      }
      return expect.fail('the layer was accepted');
    })();

    expect(error.problems).toEqual([
      expect.objectContaining({
        code: 'INVALID_LIST_CHANGE',
        file: 'mine/b.yaml',
        line: 2,
        column: 3,
        message:
          'list "ranges" is defined in this layer (mine/a.yaml): change it there; append and replace change lists of earlier layers',
      }),
    ]);
  });

  it('reports a value appended to a list that its rule cannot use', () => {
    const base = 'lists:\n  ranges: [203.0.113.0/24]\n';
    const problems = problemsOfLayers(
      `${base}exceptions:\n  - name: office\n    match: { remoteAddress: { cidr_in: { list: ranges } } }\n`,
      'lists:\n  ranges: { append: [not-a-cidr] }\n',
    );

    expect(problems.map((problem) => problem.code)).toContain('INVALID_CIDR');
  });
});

describe('warnings about user layers', () => {
  it('warns about a rule of a user layer with no tests, and not about the built-in ones', () => {
    const text = [
      'rules:',
      '  - id: mine-rule',
      '    name: Mine',
      '    severity: low',
      '    match: { eventTypeName: X }',
      '    title: x',
      '',
    ].join('\n');

    const pack = layered(text);

    expect(pack.warnings).toEqual([
      {
        severity: 'warning',
        code: 'UNTESTED_RULE',
        file: 'mine/tuning.yaml',
        path: ['rules', 0, 'id'],
        line: 2,
        column: 9,
        length: 9,
        sourceLine: '  - id: mine-rule',
        message:
          'rule "mine-rule" has no tests: add tests: with an event it alerts on and one it does not, so that `rules test` shows when a change stops it firing',
      },
    ]);
  });
});

describe('shared exceptions', () => {
  /** A layer of `rules` rules and `exceptions` exceptions that name no scope (so apply to every rule). */
  const wideLayer = (rules: number, exceptions: number): string =>
    [
      'rules:',
      ...Array.from({ length: rules }, (_, index) => [
        `  - id: mine-${index}`,
        `    name: Mine ${index}`,
        '    severity: low',
        '    match: { eventTypeName: MONGODB_USER_DELETED }',
        `    title: mine ${index}`,
        '    tests:',
        '      - name: any',
        '        event: { eventTypeName: MONGODB_USER_DELETED, username: ana }',
        '        expect: { alert: true }',
      ]).flat(),
      'exceptions:',
      ...Array.from({ length: exceptions }, (_, index) => [
        `  - name: svc ${index}`,
        `    match: { username: { regex: '^svc-[a-z]+${index}-[0-9]+@' } }`,
      ]).flat(),
      '',
    ].join('\n');

  it('keeps each exception once, sharing its scope with the others written alike, not a copy per rule', () => {
    const pack = layered(wideLayer(50, 40));

    expect(pack.rules.every((rule) => rule.spec.exceptions === undefined)).toBe(true);
    expect(pack.exceptions).toHaveLength(40);
    expect(new Set(pack.exceptions.map((exception) => exception.scope)).size).toBe(1);
    expect(pack.exceptions[0]?.scope.size).toBe(52);
  });

  it('serializes each exception and each scope once', () => {
    const serialized = serializeRulePack(layered(wideLayer(50, 40)));

    expect(serialized.exceptions).toHaveLength(40);
    expect(serialized.exceptionScopes).toHaveLength(1);
    expect(serialized.rules.every((rule) => rule.exceptions === undefined)).toBe(true);
  });

  it('applies to every rule in its scope after a round trip through the serialized pack', async () => {
    const pack = layered(wideLayer(3, 2));
    const restored = deserializeRulePack(JSON.parse(JSON.stringify(serializeRulePack(pack))));
    const events: AtlasEvent[] = [
      deleted('svc', { username: 'svc-deploy1-7@example.com' }),
      deleted('ana', { username: 'ana' }),
    ];

    const alerts = await alertsOf(restored, events);

    expect(alerts.map((alert) => `${alert.ruleId}:${alert.events[0]?.id}`)).toEqual([
      'user-deleted:ana',
      'mine-0:ana',
      'mine-1:ana',
      'mine-2:ana',
    ]);
    expect(restored.exceptions.map((exception) => exception.scope.size)).toEqual([5, 5]);
  });

  it('leaves out the rules of later layers, which it never applied to', async () => {
    const pack = layered(
      'exceptions:\n  - name: ci\n    match: { username: ci-bot }\n',
      [
        'rules:',
        '  - id: later',
        '    name: Later',
        '    severity: low',
        '    match: { eventTypeName: MONGODB_USER_DELETED }',
        '    title: later',
        '',
      ].join('\n'),
    );

    const alerts = await alertsOf(pack, [deleted('d1', { username: 'ci-bot' })]);

    expect(alerts.map((alert) => alert.ruleId)).toEqual(['later']);
    expect([...(pack.exceptions[0]?.scope ?? [])]).toEqual(['user-deleted', 'admin-login']);
  });
});

describe('the serialized pack', () => {
  it('carries the effective rules, their exceptions, the layers that shaped them and the version', async () => {
    const pack = layered(
      'overrides:\n  - rule: user-deleted\n    severity: high\n    exceptions:\n      - { dbUserUsername: tmp }\n',
    );

    const restored = deserializeRulePack(JSON.parse(JSON.stringify(serializeRulePack(pack))));
    const alerts = await alertsOf(restored, [deleted('e1', { dbUserUsername: 'tmp' }), deleted('e2')]);

    expect(restored.version).toBe('9.9.9');
    expect(alerts.map((alert) => [alert.events[0]?.id, alert.severity, alert.rulePack])).toEqual([
      ['e2', 'high', { version: '9.9.9', layers: ['builtin', 'mine'] }],
    ]);
  });
});
