import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { learningKey, seenSetKey } from '../../shared/rules/first-seen-tracker.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { replayRules } from '../../shared/rules/replay.js';
import { runRuleTests } from '../../shared/rules/rule-tests.js';
import { packOf, problemsOf } from './rule-files.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-03-01T00:00:00Z');

function ruleText(firstSeen: string, extra = ''): string {
  return `
rules:
  - id: user-new-network
    name: User from a new network
    severity: low
    match: { username: { exists: true } }
    group_by: [username, groupId]
    first_seen: ${firstSeen}
    title: '{{username}} from {{remoteAddress}}'
${extra}`;
}

let counter = 0;
function use(at: number, username: string, remoteAddress: unknown, groupId = 'p1'): AtlasEvent {
  counter += 1;
  return {
    id: `e${counter}`,
    eventTypeName: 'CLUSTER_UPDATED',
    created: new Date(at).toISOString(),
    username,
    groupId,
    remoteAddress,
  } as AtlasEvent;
}

describe('first-seen rules in the engine', () => {
  it('reads a batch in one call (and one more for groups it has no record of), writes what changed in one, and alerts in event order', async () => {
    // Prepare
    const store = new MemoryFirstSeenStore();
    const pack = packOf(
      ruleText('{ field: remoteAddress, network: { ipv4: 24, ipv6: 48 }, within: 30d, learning: 0s }'),
    );
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });
    const events = [
      use(T0, 'ana', '198.51.100.1'),
      use(T0 + 1, 'ana', '198.51.100.200'),
      use(T0 + 2, 'ana', '2001:db8:1:1::1'),
      use(T0 + 3, 'ana', '2001:db8:1:2::1'),
      use(T0 + 4, 'ana', '198.51.100.1', 'p2'),
      use(T0 + 5, 'bob', '198.51.100.1'),
    ];

    // Act
    const alerts = await engine.evaluate(events);
    const again = await engine.evaluate([use(T0 + DAY / 2, 'ana', '198.51.100.9')]);

    // Assess
    expect(alerts.map((alert) => alert.events[0]?.id)).toEqual(
      [0, 2, 4, 5].map((index) => events[index]?.id),
    );
    expect(again).toEqual([]);
    // The first batch also looks where its new groups were kept before every group key was hashed.
    expect(store.calls).toEqual({ reads: 3, writes: 1 });
  });

  it('never matches a missing value, a missing group field, or a value that is not an address when comparing networks', async () => {
    // Prepare
    const pack = packOf(
      ruleText('{ field: remoteAddress, network: { ipv4: 24 }, within: 30d, learning: 0s }'),
    );
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
    const noGroup = use(T0, 'ana', '198.51.100.1');
    delete noGroup.groupId;

    // Act
    const alerts = await engine.evaluate([
      use(T0, 'ana', undefined),
      use(T0, 'ana', ''),
      noGroup,
      use(T0, 'ana', 'not-an-address'),
      use(T0, 'ana', { toString: 'x' }),
    ]);

    // Assess
    expect(alerts).toEqual([]);
  });

  it('compares an address in its one spelling: case, zeros, brackets, a port and IPv4 mapping aside', async () => {
    // Prepare
    const pack = packOf(ruleText('{ field: remoteAddress, within: 30d, learning: 0s }'));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
    const first = [use(T0, 'ana', '2001:DB8::1'), use(T0, 'ana', '203.0.113.5')];
    const again = [
      use(T0 + 1, 'ana', '2001:db8::1'),
      use(T0 + 2, 'ana', '2001:0db8:0:0::0001'),
      use(T0 + 3, 'ana', '[2001:db8::1]'),
      use(T0 + 4, 'ana', '[2001:db8::1]:443'),
      use(T0 + 5, 'ana', '::ffff:203.0.113.5'),
      use(T0 + 6, 'ana', '::FFFF:cb00:7105'),
    ];

    // Act
    const firstAlerts = await engine.evaluate(first);
    const againAlerts = await engine.evaluate(again);

    // Assess
    expect(firstAlerts).toHaveLength(2);
    expect(againAlerts).toEqual([]);
  });

  it('reads a bracketed IPv6 address, with or without a port, when comparing networks', async () => {
    // Prepare
    const pack = packOf(
      ruleText('{ field: remoteAddress, network: { ipv4: 24, ipv6: 48 }, within: 30d, learning: 0s }'),
    );
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });

    // Act
    const alerts = await engine.evaluate([
      use(T0, 'ana', '[2001:db8:1:1::5]'),
      use(T0 + 1, 'ana', '[2001:db8:1:ff::9]:8443'),
      use(T0 + 2, 'ana', '[2001:db8:2::1]'),
    ]);

    // Assess
    expect(alerts.map((alert) => alert.events[0]?.remoteAddress)).toEqual([
      '[2001:db8:1:1::5]',
      '[2001:db8:2::1]',
    ]);
  });

  it('keeps a hostile long value as a short hash, and a group at its bound', async () => {
    // Prepare
    const store = new MemoryFirstSeenStore();
    const pack = packOf(ruleText('{ field: remoteAddress, within: 30d, learning: 0s, max_values: 3 }'));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });
    const values = Array.from({ length: 50 }, (_, index) => `${'x'.repeat(100_000)}${index}`);

    // Act
    const alerts = await engine.evaluate(values.map((value, index) => use(T0 + index, 'ana', value)));
    const records = [...(await store.readFirstSeen([seenSetKey('user-new-network', 'ana|p1')])).values()];

    // Assess
    expect(alerts).toHaveLength(50);
    expect(records).toHaveLength(1);
    const kept = Object.keys(records[0]?.values ?? {});
    expect(kept).toHaveLength(3);
    for (const value of kept) expect(value.length).toBeLessThan(64);
  });

  it('records without alerting during the learning period, from the first event without a clock', async () => {
    // Prepare
    const store = new MemoryFirstSeenStore();
    const pack = packOf(ruleText('{ field: remoteAddress, within: 30d, learning: 7d }'));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });

    // Act
    const learning = await engine.evaluate([
      use(T0, 'ana', '198.51.100.1'),
      use(T0 + 6 * DAY, 'ana', '198.51.100.2'),
    ]);
    const after = await engine.evaluate([
      use(T0 + 8 * DAY, 'ana', '198.51.100.2'),
      use(T0 + 8 * DAY, 'ana', '198.51.100.3'),
    ]);

    // Assess
    expect(learning).toEqual([]);
    expect(after.map((alert) => alert.title)).toEqual(['ana from 198.51.100.3']);
    expect(
      (await store.readFirstSeen([learningKey('user-new-network')])).get(learningKey('user-new-network'))
        ?.startedAt,
    ).toBe(T0);
  });

  it('gives an event read again the same alert and fingerprint', async () => {
    // Prepare
    const pack = packOf(ruleText('{ field: remoteAddress, within: 30d, learning: 0s }'));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
    const event = use(T0, 'ana', '198.51.100.1');

    // Act
    const first = await engine.evaluate([event]);
    const again = await engine.evaluate([event]);

    // Assess
    expect(again.map((alert) => alert.fingerprint)).toEqual(first.map((alert) => alert.fingerprint));
    expect(first).toHaveLength(1);
  });
});

describe('first-seen rules in the rule format', () => {
  it('rejects first_seen with threshold, unknown keys and bad durations, at their lines', () => {
    const problems = problemsOf({
      file: 'fs.yaml',
      text: ruleText('{ field: remoteAddress, within: 30d, learning: soon }', '    suppress: 1h'),
    });
    const unknown = problemsOf({
      file: 'fs.yaml',
      text: ruleText('{ field: remoteAddress, within: 30d, windw: 1d }'),
    });

    expect(problems.map((problem) => problem.code).sort()).toEqual(['INVALID_CONDITION', 'INVALID_DURATION']);
    expect(problems.every((problem) => problem.file === 'fs.yaml' && problem.line === 8)).toBe(true);
    expect(unknown[0]).toMatchObject({ code: 'SCHEMA', file: 'fs.yaml', line: 8 });
    expect(unknown[0]?.message).toContain('"windw"');
  });

  it('rejects seen events in a test of a rule without first_seen', () => {
    const problems = problemsOf({
      file: 'seen.yaml',
      text: `
rules:
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

    expect(problems[0]).toMatchObject({ code: 'INVALID_TEST', line: 10 });
  });

  it('runs inline tests with their seen events and no learning period', async () => {
    const pack = packOf(
      ruleText(
        '{ field: remoteAddress, within: 30d }',
        `    tests:
      - name: known
        seen: [{ created: '2026-03-01T00:00:00Z', username: ana, groupId: p1, remoteAddress: 198.51.100.1 }]
        event: { created: '2026-03-02T00:00:00Z', username: ana, groupId: p1, remoteAddress: 198.51.100.1 }
        expect: { alert: true }
      - name: new
        event: { created: '2026-03-02T00:00:00Z', username: ana, groupId: p1, remoteAddress: 198.51.100.1 }
        expect: { alert: true }
`,
      ),
    );

    const results = await runRuleTests(pack);

    expect(results.map((result) => [result.name, result.passed])).toEqual([
      ['known', false],
      ['new', true],
    ]);
  });

  it('replays with first-seen state over the replayed period, learning from its first event', async () => {
    const pack = packOf(ruleText('{ field: remoteAddress, within: 30d, learning: 1d }'));
    const events = [
      use(T0, 'ana', '198.51.100.1'),
      use(T0 + 2 * DAY, 'ana', '198.51.100.1'),
      use(T0 + 3 * DAY, 'ana', '198.51.100.2'),
      use(T0 + 4 * DAY, 'ana', '198.51.100.2'),
    ];

    const replay = await replayRules({ pack, events });

    expect(replay.rules[0]).toMatchObject({ ruleId: 'user-new-network', matched: 4, alerts: 1 });
    expect([...replay.alertsByEvent.keys()]).toEqual([2]);
  });
});
