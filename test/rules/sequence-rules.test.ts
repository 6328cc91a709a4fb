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

/** A sequence rule with the given `sequence` lines and extra lines. */
function ruleText(
  sequence = '      after: { eventTypeName: API_KEY_CREATED }\n      within: 10m',
  extra = '',
  groupBy = 'apiKeyId',
): string {
  return `rules:
  - id: key-opened
    name: API key created, then opened to the internet
    severity: high
    match: { eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, whitelistEntry: 0.0.0.0/0 }
    group_by: [${groupBy}]
    sequence:
${sequence}
    title: 'API key {{apiKeyId}} opened to the internet'
${extra}`;
}

function created(id: string, minute: number, apiKeyId = 'key-a'): AtlasEvent {
  return {
    id,
    eventTypeName: 'API_KEY_CREATED',
    apiKeyId,
    created: `2026-11-27T09:${String(minute).padStart(2, '0')}:00Z`,
  };
}

function opened(id: string, minute: number, apiKeyId = 'key-a'): AtlasEvent {
  return {
    id,
    eventTypeName: 'API_KEY_ACCESS_LIST_ENTRY_ADDED',
    apiKeyId,
    whitelistEntry: '0.0.0.0/0',
    created: `2026-11-27T09:${String(minute).padStart(2, '0')}:00Z`,
  };
}

const where = (problems: readonly RuleProblem[]) =>
  problems.map(({ code, file, line, column }) => ({ code, file, line, column }));

describe('sequence in rule files', () => {
  it('loads a rule with a sequence and evaluates it', async () => {
    const pack = packOf(ruleText());
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([created('c1', 0), opened('o1', 4)]);

    expect(pack.rules[0]?.spec.sequence).toEqual({
      after: { eventTypeName: 'API_KEY_CREATED' },
      within: '10m',
    });
    expect(alerts.map((alert) => alert.title)).toEqual(['API key key-a opened to the internet']);
  });

  it('reports a bad window and a bad earlier step at their line and column, with the source line', () => {
    const problems = problemsOf({
      file: 'keys.yaml',
      text: ruleText("      after: { eventTypeName: { regex: '(' } }\n      within: 10 min"),
    });

    expect(where(problems)).toEqual([
      { code: 'INVALID_REGEX', file: 'keys.yaml', line: 8, column: 40 },
      { code: 'INVALID_DURATION', file: 'keys.yaml', line: 9, column: 15 },
    ]);
    expect(formatRuleProblems(problems)).toContain(' 9 |       within: 10 min');
    expect(problems[1]?.message).toContain('"10 min" is not a duration');
  });

  it('reports an unknown key of a sequence and a missing window where they are', () => {
    const problems = problemsOf({
      file: 'keys.yaml',
      text: ruleText('      after: { eventTypeName: API_KEY_CREATED }\n      rule: api-key-created'),
    });

    expect(where(problems)).toEqual([
      { code: 'SCHEMA', file: 'keys.yaml', line: 8, column: 7 },
      { code: 'SCHEMA', file: 'keys.yaml', line: 9, column: 7 },
    ]);
    expect(problems[0]?.message).toContain('within');
    expect(problems[1]?.message).toContain('rule');
  });

  it('loads a count of earlier events, and refuses one under 1 or over the events a group keeps, at the count', () => {
    const pack = packOf(
      ruleText('      after: { eventTypeName: API_KEY_CREATED }\n      within: 10m\n      count: 3'),
    );
    const [zero, eleven] = ['0', '11'].map((count) =>
      problemsOf({
        file: 'keys.yaml',
        text: ruleText(
          `      after: { eventTypeName: API_KEY_CREATED }\n      within: 10m\n      count: ${count}`,
        ),
      }),
    );

    expect(pack.rules[0]?.spec.sequence?.count).toBe(3);
    for (const problems of [zero, eleven]) {
      expect(where(problems ?? [])).toEqual([{ code: 'SCHEMA', file: 'keys.yaml', line: 10, column: 14 }]);
    }
    expect(eleven?.[0]?.message).toContain('must be at most 10');
  });

  it('refuses a sequence with a threshold, suppress, first_seen or distinct_count, at the sequence key', () => {
    for (const [extra, named] of [
      ['    threshold: { count: 2, window: 10m }', 'threshold'],
      ['    suppress: 1h', 'suppress'],
      ['    first_seen: { field: whitelistEntry, within: 30d }', 'first_seen'],
      ['    distinct_count: { field: whitelistEntry, count: 2, window: 10m }', 'distinct_count'],
    ] as const) {
      const problems = problemsOf({ file: 'keys.yaml', text: `${ruleText()}${extra}\n` });

      const problem = problems.find((found) => found.message.includes('a sequence rule'));
      expect(problem?.message).toBe(
        `a sequence rule alerts once for each event that follows an earlier step, so it cannot also have ${named}: remove it, or make a second rule`,
      );
      expect(where(problem === undefined ? [] : [problem])).toEqual([
        { code: 'INVALID_CONDITION', file: 'keys.yaml', line: 7, column: 5 },
      ]);
    }
  });
});

describe('sequence inline tests', () => {
  const tests = `    tests:
      - name: the key stated as created, then opened
        seen:
          - { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
        event: { created: '2026-11-27T09:04:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: true, count: 1, title: API key key-a opened to the internet }
      - name: another key created does not count
        seen:
          - { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-b }
        event: { created: '2026-11-27T09:04:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: false }
      - name: a key created longer ago than the window does not count
        seen:
          - { created: '2026-11-27T08:50:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
        event: { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: false }
      - name: both steps under events, twice opened
        events:
          - { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
          - { created: '2026-11-27T09:01:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
          - { created: '2026-11-27T09:02:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: true, count: 2 }
      - name: wrongly expects an alert without the earlier step
        event: { created: '2026-11-27T09:04:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: true }
`;

  it('takes the seen events as earlier steps, drops their alerts, and judges the event', async () => {
    const results = await runRuleTests(packOf(ruleText(undefined, tests)));

    expect(results.map((result) => [result.name, result.passed, result.failures])).toEqual([
      ['the key stated as created, then opened', true, []],
      ['another key created does not count', true, []],
      ['a key created longer ago than the window does not count', true, []],
      ['both steps under events, twice opened', true, []],
      ['wrongly expects an alert without the earlier step', false, ['expected an alert, got none']],
    ]);
  });
});

describe('sequence inline tests with a count', () => {
  const counted = `    tests:
      - name: three creations stated, then opened
        seen:
          - { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
          - { created: '2026-11-27T09:01:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
          - { created: '2026-11-27T09:02:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
        event: { created: '2026-11-27T09:04:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: true, title: API key key-a opened to the internet }
      - name: two creations are not enough
        seen:
          - { created: '2026-11-27T09:00:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
          - { created: '2026-11-27T09:01:00Z', eventTypeName: API_KEY_CREATED, apiKeyId: key-a }
        event: { created: '2026-11-27T09:04:00Z', eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, apiKeyId: key-a, whitelistEntry: 0.0.0.0/0 }
        expect: { alert: false }
`;

  it('counts the seen events toward the count', async () => {
    const results = await runRuleTests(
      packOf(
        ruleText(
          '      after: { eventTypeName: API_KEY_CREATED }\n      within: 10m\n      count: 3',
          counted,
        ),
      ),
    );

    expect(results.map((result) => [result.name, result.passed, result.failures])).toEqual([
      ['three creations stated, then opened', true, []],
      ['two creations are not enough', true, []],
    ]);
  });
});

describe('sequence in replay', () => {
  it('counts the later events the match accepted, and the alerts of those that followed an earlier step', async () => {
    const pack = packOf(ruleText());

    const replay = await replayRules({
      pack,
      events: [created('c1', 0), opened('o0', 1, 'key-b'), opened('o1', 4), opened('o2', 30)],
    });

    const count = replay.rules.find((rule) => rule.ruleId === 'key-opened');
    expect(count?.matched).toBe(3);
    expect(count?.alerts).toBe(1);
    expect([...replay.alertsByEvent.keys()]).toEqual([2]);
  });
});

describe('sequence warnings', () => {
  const lint = (text: string) =>
    lintRulePack(packOf(text, 'mine.yaml'), {
      catalog: loadEventCatalog(),
      sources: new RuleSources([{ file: 'mine.yaml', text }]),
    }).map(({ code, line, column, message }) => ({ code, line, column, message }));

  it('warns about a group_by field the earlier step carries not', () => {
    const warnings = lint(
      ruleText('      after: { eventTypeName: GROUP_DELETED }\n      within: 10m', '', 'whitelistEntry'),
    );

    expect(warnings).toEqual([
      {
        code: 'UNKNOWN_FIELD',
        line: 6,
        column: 16,
        message:
          'no known event of type GROUP_DELETED carries the field "whitelistEntry" in the sequence\'s earlier step: no earlier event joins a group, and the rule never alerts',
      },
    ]);
  });

  it("warns about an unknown event type and field in the earlier step's match, where they are", () => {
    const warnings = lint(
      ruleText(
        '      after: { eventTypeName: API_KEY_CREATD, apiKeyId: { exists: true } }\n      within: 10m',
      ),
    );

    expect(warnings.map(({ code, line }) => ({ code, line }))).toContainEqual({
      code: 'UNKNOWN_EVENT_TYPE',
      line: 8,
    });
  });

  it('says nothing of a sequence whose steps carry the group', () => {
    expect(lint(ruleText())).toEqual([]);
  });
});

describe('sequence in layers and packs', () => {
  const base = `rules:
  - id: opened
    name: Access list opened
    severity: low
    match: { eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED }
    title: 'Access list of {{apiKeyId}} changed'
`;
  const layers = (override: string) =>
    parseRuleLayers({
      layers: [
        { name: 'builtin', builtin: true, sources: [{ file: 'rules/base.yaml', text: base }] },
        {
          name: 'mine',
          sources: [{ file: 'mine/tuning.yaml', text: `overrides:\n  - rule: opened\n${override}` }],
        },
      ],
    });

  it('is set by an override of a later layer, with the group_by it joins on', async () => {
    const pack = layers(
      '    group_by: [apiKeyId]\n    sequence: { after: { eventTypeName: API_KEY_CREATED }, within: 10m }\n',
    );
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([
      opened('o0', 0),
      created('c1', 1),
      opened('o1', 2),
      opened('o2', 3, 'key-b'),
    ]);

    expect(alerts.map((alert) => alert.events.map((event) => event.id))).toEqual([['c1', 'o1']]);
  });

  it('reports an override with a bad window at the override', () => {
    let problems: readonly RuleProblem[] = [];
    try {
      layers('    sequence: { after: { eventTypeName: API_KEY_CREATED }, within: 10 min }\n');
    } catch (error) {
      expect(error).toBeInstanceOf(RuleLoadError);
      problems = (error as RuleLoadError).problems;
    }

    expect(where(problems)).toEqual([
      { code: 'INVALID_DURATION', file: 'mine/tuning.yaml', line: 3, column: 68 },
    ]);
  });

  it('keeps the sequence through the serialized pack the function carries', async () => {
    const pack = deserializeRulePack(serializeRulePack(packOf(ruleText())));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([created('c1', 0), opened('o1', 4)]);

    expect(pack.rules[0]?.spec.sequence).toEqual({
      after: { eventTypeName: 'API_KEY_CREATED' },
      within: '10m',
    });
    expect(alerts).toHaveLength(1);
  });
});
