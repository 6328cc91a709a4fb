import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { RuleLoadError, type RuleProblem } from '../../shared/rules/errors.js';
import { lintRulePack, loadEventCatalog, RuleSources } from '../../shared/rules/lint/index.js';
import { parseRuleLayers } from '../../shared/rules/loader.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { formatRuleProblems } from '../../shared/rules/problem-format.js';
import { replayRules } from '../../shared/rules/replay.js';
import { deserializeRulePack, serializeRulePack } from '../../shared/rules/rule-pack.js';
import { runRuleTests } from '../../shared/rules/rule-tests.js';
import { packOf, problemsOf } from './rule-files.js';

/** A distinct-count rule with the given `distinct_count` and extra lines. */
function ruleText(distinct = '{ field: username, count: 3, window: 10m }', extra = ''): string {
  return `rules:
  - id: spray
    name: Many user names from one address
    severity: high
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [remoteAddress]
    distinct_count: ${distinct}
    title: '{{remoteAddress}} used {{username}}'
${extra}`;
}

function attempt(id: string, minute: number, username: string, remoteAddress = '203.0.113.9'): AtlasEvent {
  const created = new Date(Date.UTC(2024, 2, 18, 10, minute)).toISOString().replace('.000', '');
  return { id, created, eventTypeName: 'DATA_EXPLORER', username, remoteAddress };
}

const where = (problems: readonly RuleProblem[]) =>
  problems.map(({ code, file, line, column }) => ({ code, file, line, column }));

describe('distinct_count in rule files', () => {
  it('loads a rule with a distinct count and evaluates it', async () => {
    const pack = packOf(ruleText());
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([
      attempt('e1', 0, 'a'),
      attempt('e2', 1, 'b'),
      attempt('e3', 2, 'c'),
    ]);

    expect(pack.rules[0]?.spec.distinct_count).toEqual({ field: 'username', count: 3, window: '10m' });
    expect(alerts.map((alert) => alert.title)).toEqual(['203.0.113.9 used c']);
  });

  it('reports a bad window and a bad field at their line and column, with the source line', () => {
    const problems = problemsOf({
      file: 'spray.yaml',
      text: ruleText('{ field: user name, count: 3, window: 10 min }'),
    });

    expect(formatRuleProblems(problems)).toBe(
      [
        'spray.yaml:7:30: "user name" is not a field path: segment "user name" must be letters, digits, "_", "$", "@" or "-", optionally followed by "[]" (write paths like "diffs[].type") [INVALID_FIELD_PATH]',
        ' 7 |     distinct_count: { field: user name, count: 3, window: 10 min }',
        '   |                              ^^^^^^^^^',
        'spray.yaml:7:59: "10 min" is not a duration: write days, hours, minutes and seconds such as 30s, 10m, 1h or 1d (more than 0, at most 366d) [INVALID_DURATION]',
        ' 7 |     distinct_count: { field: user name, count: 3, window: 10 min }',
        '   |                                                           ^^^^^^',
      ].join('\n'),
    );
  });

  it('reports a count out of bounds, a missing field and a misspelt key as schema problems', () => {
    const tooMany = problemsOf({
      file: 'a.yaml',
      text: ruleText('{ field: username, count: 5001, window: 10m }'),
    });
    const none = problemsOf({ file: 'b.yaml', text: ruleText('{ field: username, count: 0, window: 10m }') });
    const missing = problemsOf({ file: 'c.yaml', text: ruleText('{ count: 3, window: 10m }') });
    const misspelt = problemsOf({
      file: 'd.yaml',
      text: ruleText('{ field: username, count: 3, windw: 10m }'),
    });

    expect(where(tooMany)).toEqual([{ code: 'SCHEMA', file: 'a.yaml', line: 7, column: 47 }]);
    expect(tooMany[0]?.message).toContain('at most 5000');
    expect(where(none)).toEqual([{ code: 'SCHEMA', file: 'b.yaml', line: 7, column: 47 }]);
    expect(missing.map((problem) => [problem.code, problem.line])).toContainEqual(['SCHEMA', 7]);
    expect(missing.map((problem) => problem.message).join('\n')).toContain('field');
    expect(where(misspelt)).toEqual([
      { code: 'SCHEMA', file: 'd.yaml', line: 7, column: 21 },
      { code: 'SCHEMA', file: 'd.yaml', line: 7, column: 50 },
    ]);
    expect(formatRuleProblems(misspelt)).toContain('did you mean "window"?');
  });

  it('refuses a distinct count with a threshold or a first_seen, at the distinct_count key', () => {
    const withThreshold = problemsOf({
      file: 't.yaml',
      text: ruleText(undefined, '    threshold: { count: 2, window: 1h }'),
    });
    const withFirstSeen = problemsOf({
      file: 'f.yaml',
      text: ruleText(undefined, '    first_seen: { field: username, within: 30d }'),
    });

    expect(where(withThreshold)).toEqual([{ code: 'INVALID_CONDITION', file: 't.yaml', line: 7, column: 5 }]);
    expect(withThreshold[0]?.message).toBe(
      'a distinct_count rule counts values in windows of its own, so it cannot also have threshold: remove it, or make a second rule',
    );
    expect(withFirstSeen.find((problem) => problem.path.includes('distinct_count'))?.message).toContain(
      'cannot also have first_seen',
    );
  });

  it('allows suppress with a distinct count', () => {
    const pack = packOf(ruleText(undefined, '    suppress: 1h'));

    expect(pack.rules[0]?.spec.suppress).toBe('1h');
  });

  it('still refuses seen events in a test of a rule that neither counts distinct values nor first-seen ones', () => {
    const problems = problemsOf({
      file: 'seen.yaml',
      text: `rules:
  - id: joined
    name: Joined
    severity: low
    match: { eventTypeName: JOINED_ORG }
    title: joined
    tests:
      - name: seen makes no sense here
        seen: [{ eventTypeName: JOINED_ORG }]
        event: { eventTypeName: JOINED_ORG }
        expect: { alert: true }
`,
    });

    expect(problems[0]).toMatchObject({ code: 'INVALID_TEST', line: 9 });
    expect(problems[0]?.message).toContain('only first_seen, distinct_count and sequence rules use');
  });
});

describe('distinct_count inline tests', () => {
  const tests = `    tests:
      - name: a third user name after two, stated as seen
        seen:
          - { created: '2024-03-18T10:00:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
          - { created: '2024-03-18T10:01:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: bob }
        event: { created: '2024-03-18T10:02:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: carol }
        expect: { alert: true, count: 1, title: 203.0.113.9 used carol }
      - name: a user name tried again does not count twice
        seen:
          - { created: '2024-03-18T10:00:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
          - { created: '2024-03-18T10:01:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: bob }
        event: { created: '2024-03-18T10:02:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
        expect: { alert: false }
      - name: the earlier events in order, one alert for the window
        events:
          - { created: '2024-03-18T10:00:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
          - { created: '2024-03-18T10:01:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: bob }
          - { created: '2024-03-18T10:02:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: carol }
          - { created: '2024-03-18T10:03:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: dave }
        expect: { alert: true, count: 1 }
      - name: a seen window that alerted already leaves nothing for the event
        seen:
          - { created: '2024-03-18T10:00:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
          - { created: '2024-03-18T10:01:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: bob }
          - { created: '2024-03-18T10:02:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: carol }
        event: { created: '2024-03-18T10:03:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: dave }
        expect: { alert: false }
      - name: wrongly expects the second user name to alert
        seen:
          - { created: '2024-03-18T10:00:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: alice }
        event: { created: '2024-03-18T10:01:00Z', eventTypeName: DATA_EXPLORER, remoteAddress: 203.0.113.9, username: bob }
        expect: { alert: true }
`;

  it('counts the seen events toward the window, drops their alerts, and judges the event', async () => {
    const results = await runRuleTests(packOf(ruleText(undefined, tests)));

    expect(results.map((result) => [result.name, result.passed, result.failures])).toEqual([
      ['a third user name after two, stated as seen', true, []],
      ['a user name tried again does not count twice', true, []],
      ['the earlier events in order, one alert for the window', true, []],
      ['a seen window that alerted already leaves nothing for the event', true, []],
      ['wrongly expects the second user name to alert', false, ['expected an alert, got none']],
    ]);
  });
});

describe('distinct_count warnings', () => {
  it('warns about a counted field that no event of the rule types carries, as for group_by', () => {
    const text = ruleText('{ field: usernmae, count: 3, window: 10m }');
    const sources = [{ file: 'mine.yaml', text }];

    const warnings = lintRulePack(packOf(text, 'mine.yaml'), {
      catalog: loadEventCatalog(),
      sources: new RuleSources(sources),
    });

    expect(
      warnings.map(({ code, file, line, column, message, hint }) => ({
        code,
        file,
        line,
        column,
        message,
        hint,
      })),
    ).toEqual([
      {
        code: 'UNKNOWN_FIELD',
        file: 'mine.yaml',
        line: 7,
        column: 30,
        message:
          'no known event of type DATA_EXPLORER carries the field "usernmae": no event counts toward the distinct count',
        hint: 'did you mean "username"?',
      },
    ]);
  });

  it('says nothing of a field the rule types carry', () => {
    const text = ruleText();

    const warnings = lintRulePack(packOf(text, 'mine.yaml'), {
      catalog: loadEventCatalog(),
      sources: new RuleSources([{ file: 'mine.yaml', text }]),
    });

    expect(warnings).toEqual([]);
  });
});

describe('distinct_count in layers and packs', () => {
  const base = `rules:
  - id: reads
    name: Reads
    severity: low
    match: { eventTypeName: DATA_EXPLORER }
    title: '{{username}} read'
`;

  it('is set by an override of a later layer, with the group_by it counts by', async () => {
    const pack = parseRuleLayers({
      layers: [
        { name: 'builtin', builtin: true, sources: [{ file: 'rules/base.yaml', text: base }] },
        {
          name: 'mine',
          sources: [
            {
              file: 'mine/tuning.yaml',
              text: `overrides:
  - rule: reads
    group_by: [remoteAddress]
    distinct_count: { field: username, count: 2, window: 1h }
`,
            },
          ],
        },
      ],
    });
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([
      attempt('e1', 0, 'a'),
      attempt('e2', 1, 'a'),
      attempt('e3', 2, 'b'),
    ]);

    expect(alerts.map((alert) => alert.events.map((event) => event.id))).toEqual([['e1', 'e3']]);
  });

  it('reports an override that makes a threshold rule count distinct values at the override', () => {
    let problems: readonly RuleProblem[] = [];
    try {
      parseRuleLayers({
        layers: [
          {
            name: 'builtin',
            builtin: true,
            sources: [{ file: 'rules/base.yaml', text: `${base}    threshold: { count: 2, window: 1h }\n` }],
          },
          {
            name: 'mine',
            sources: [
              {
                file: 'mine/tuning.yaml',
                text: 'overrides:\n  - rule: reads\n    distinct_count: { field: username, count: 2, window: 2 h }\n',
              },
            ],
          },
        ],
      });
    } catch (error) {
      expect(error).toBeInstanceOf(RuleLoadError);
      problems = (error as RuleLoadError).problems;
    }

    expect(where(problems)).toEqual([
      { code: 'INVALID_CONDITION', file: 'mine/tuning.yaml', line: 3, column: 5 },
      { code: 'INVALID_DURATION', file: 'mine/tuning.yaml', line: 3, column: 58 },
    ]);
  });

  it('keeps the distinct count through the serialized pack the function carries', async () => {
    const pack = deserializeRulePack(serializeRulePack(packOf(ruleText())));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([
      attempt('e1', 0, 'a'),
      attempt('e2', 1, 'b'),
      attempt('e3', 2, 'c'),
    ]);

    expect(pack.rules[0]?.spec.distinct_count).toEqual({ field: 'username', count: 3, window: '10m' });
    expect(alerts).toHaveLength(1);
  });
});

describe('replayRules with distinct-count rules', () => {
  it('counts the matches, and the alerts once distinct values reach the count, each on the event that reached it', async () => {
    // Prepare: two addresses, one spraying over two windows; in (created, id) order, as replayed.
    const events = [
      attempt('e01', 0, 'alice'),
      attempt('e02', 1, 'alice', '198.51.100.7'),
      attempt('e03', 2, 'bob'),
      attempt('e04', 3, 'bob'),
      attempt('e05', 4, 'carol'),
      attempt('e06', 5, 'dave'),
      attempt('e07', 6, 'bob', '198.51.100.7'),
      attempt('e08', 12, 'erin'),
      attempt('e09', 13, 'frank'),
      attempt('e10', 14, 'grace'),
    ];

    // Act
    const replay = await replayRules({ pack: packOf(ruleText()), events });

    // Assess
    expect(replay.rules).toEqual([
      { ruleId: 'spray', severity: 'high', enabled: true, matched: 10, alerts: 2 },
    ]);
    expect([...replay.alertsByEvent.keys()].map((index) => events[index]?.id)).toEqual(['e05', 'e10']);
    expect(replay.failures).toEqual([]);
  });
});
