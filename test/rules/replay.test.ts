import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { replayRules } from '../../shared/rules/replay.js';
import { compareReplays } from '../../shared/rules/replay-comparison.js';
import { packOf } from './rule-files.js';

const BASE = `
rules:
  - id: project-deleted
    name: Project deleted
    severity: high
    match: { eventTypeName: GROUP_DELETED }
    title: 'Project {{groupId}} deleted by {{username}}'
  - id: many-reads
    name: Many Data Explorer reads by one user
    severity: medium
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [username]
    threshold: { count: 2, window: 10m }
    title: '{{username}} read a lot'
  - id: metric-once
    name: Metric outside threshold
    severity: low
    match: { eventTypeName: OUTSIDE_METRIC_THRESHOLD }
    group_by: [metricName]
    suppress: 1h
    title: '{{metricName}} outside threshold'
  - id: user-joined
    name: User joined
    severity: info
    match: { eventTypeName: JOINED_ORG }
    title: '{{username}} joined'
  - id: never-on
    name: Disabled
    severity: critical
    enabled: false
    match: { eventTypeName: GROUP_DELETED }
    title: never
`;

/** BASE tuned: one severity raised, one rule disabled, one title changed, one rule gone, one new. */
const TUNED = `
rules:
  - id: project-deleted
    name: Project deleted
    severity: critical
    match: { eventTypeName: GROUP_DELETED }
    title: 'Project {{groupId}} deleted by {{username}}'
  - id: many-reads
    name: Many Data Explorer reads by one user
    severity: medium
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [username]
    threshold: { count: 2, window: 10m }
    title: 'Data Explorer burst by {{username}}'
  - id: metric-once
    name: Metric outside threshold
    severity: low
    enabled: false
    match: { eventTypeName: OUTSIDE_METRIC_THRESHOLD }
    group_by: [metricName]
    suppress: 1h
    title: '{{metricName}} outside threshold'
  - id: api-key-created
    name: API key created
    severity: medium
    match: { eventTypeName: API_KEY_CREATED }
    title: 'API key {{targetPublicKey}} created'
`;

function event(id: string, minute: number, fields: Record<string, unknown>): AtlasEvent {
  const created = new Date(Date.UTC(2024, 4, 1, 12, minute)).toISOString().replace('.000', '');
  return { id, created, ...fields } as AtlasEvent;
}

/** In (created, id) order, as a replay gives them. */
const EVENTS: AtlasEvent[] = [
  event('e01', 0, { eventTypeName: 'GROUP_DELETED', groupId: 'g1', username: 'alice' }),
  event('e02', 1, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
  event('e03', 2, { eventTypeName: 'OUTSIDE_METRIC_THRESHOLD', metricName: 'CONNECTIONS' }),
  event('e04', 3, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
  event('e05', 4, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
  event('e06', 5, { eventTypeName: 'OUTSIDE_METRIC_THRESHOLD', metricName: 'CONNECTIONS' }),
  event('e07', 6, { eventTypeName: 'JOINED_ORG', username: 'carol' }),
  event('e08', 7, { eventTypeName: 'API_KEY_CREATED', targetPublicKey: 'abcdefgh' }),
  event('e09', 8, { eventTypeName: 'HOST_UP' }),
];

describe('replayRules', () => {
  it('counts per rule the events matched and the alerts raised after threshold and suppression', async () => {
    const replay = await replayRules({ pack: packOf(BASE), events: EVENTS });

    expect(replay.events).toBe(9);
    expect(replay.rules).toEqual([
      { ruleId: 'project-deleted', severity: 'high', enabled: true, matched: 1, alerts: 1 },
      { ruleId: 'many-reads', severity: 'medium', enabled: true, matched: 3, alerts: 1 },
      { ruleId: 'metric-once', severity: 'low', enabled: true, matched: 2, alerts: 1 },
      { ruleId: 'user-joined', severity: 'info', enabled: true, matched: 1, alerts: 1 },
      { ruleId: 'never-on', severity: 'critical', enabled: false, matched: 0, alerts: 0 },
    ]);
    expect(replay.alerts).toBe(4);
    expect(replay.bySeverity).toEqual({ info: 1, low: 1, medium: 1, high: 1, critical: 0 });
    expect(replay.failures).toEqual([]);
  });

  it('gives each alert to the event that raised it: a threshold alert to the event that reached the count', async () => {
    const replay = await replayRules({ pack: packOf(BASE), events: EVENTS });

    const raised = [...replay.alertsByEvent].map(([index, alerts]) => [
      EVENTS[index]?.id,
      alerts.map((alert) => alert.ruleId),
    ]);
    expect(raised).toEqual([
      ['e01', ['project-deleted']],
      ['e03', ['metric-once']],
      ['e04', ['many-reads']],
      ['e07', ['user-joined']],
    ]);
    expect(replay.alertsByEvent.get(0)?.[0]).toMatchObject({
      severity: 'high',
      title: 'Project g1 deleted by alice',
      fingerprint: 'project-deleted:e01',
    });
  });

  it('uses event time as the clock: reads more than the window apart never reach the threshold', async () => {
    const spread = [
      event('s1', 0, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
      event('s2', 15, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
      event('s3', 30, { eventTypeName: 'DATA_EXPLORER', username: 'bob' }),
    ];

    const replay = await replayRules({ pack: packOf(BASE), events: spread });

    expect(replay.rules.find((rule) => rule.ruleId === 'many-reads')).toMatchObject({
      matched: 3,
      alerts: 0,
    });
  });

  it('records an event that cannot be evaluated and goes on with the next', async () => {
    const unreadable = event('bad', 0, { eventTypeName: 'GROUP_DELETED', groupId: 'g2' });
    Object.defineProperty(unreadable, 'username', {
      enumerable: true,
      get: () => {
        throw new Error('field cannot be read');
      },
    });
    const events = [unreadable, event('ok', 1, { eventTypeName: 'JOINED_ORG', username: 'dan' })];

    const replay = await replayRules({ pack: packOf(BASE), events });

    expect(replay.failures).toEqual([{ index: 0, message: 'field cannot be read' }]);
    expect(replay.alertsByEvent.has(0)).toBe(false);
    expect(replay.alertsByEvent.get(1)?.map((alert) => alert.title)).toEqual(['dan joined']);
  });

  it('evaluates a page of events at a time: a first-seen rule reads and writes its state once a page', async () => {
    const pack = packOf(`
rules:
  - id: new-address
    name: New address
    severity: low
    match: { publicKey: { exists: true } }
    group_by: [publicKey]
    first_seen: { field: remoteAddress, within: 30d, learning: 0s }
    title: '{{publicKey}} from {{remoteAddress}}'
`);
    const events = Array.from({ length: 1_200 }, (_, index) =>
      event(`f${String(index).padStart(4, '0')}`, index, {
        eventTypeName: 'CLUSTER_UPDATED',
        publicKey: 'qkzvbgyt',
        remoteAddress: `198.51.100.${index % 50}`,
      }),
    );
    const store = new MemoryFirstSeenStore();

    const replay = await replayRules({ pack, events, firstSeen: store });

    expect(replay.alerts).toBe(50);
    // A read a page, and one more on the first: the groups it does not find are looked for where an
    // older version kept them.
    expect(store.calls).toEqual({ reads: 4, writes: 1 });
  });

  it('gives a failure to its own event, on any page', async () => {
    const events = Array.from({ length: 800 }, (_, index) =>
      event(`p${String(index).padStart(3, '0')}`, index, { eventTypeName: 'JOINED_ORG', username: 'dan' }),
    );
    Object.defineProperty(events[700], 'username', {
      enumerable: true,
      get: () => {
        throw new Error('field cannot be read');
      },
    });

    const replay = await replayRules({ pack: packOf(BASE), events });

    expect(replay.failures).toEqual([{ index: 700, message: 'field cannot be read' }]);
    expect(replay.alertsByEvent.size).toBe(799);
    expect(replay.alertsByEvent.has(700)).toBe(false);
  });

  it('replays no events into zero counts', async () => {
    const replay = await replayRules({ pack: packOf(BASE), events: [] });

    expect(replay.alerts).toBe(0);
    expect(replay.rules.every((rule) => rule.matched === 0 && rule.alerts === 0)).toBe(true);
    expect(replay.alertsByEvent.size).toBe(0);
  });
});

describe('compareReplays', () => {
  it('puts each rule side by side: the first set in its order, then rules only the second has', async () => {
    const before = await replayRules({ pack: packOf(BASE), events: EVENTS });
    const after = await replayRules({ pack: packOf(TUNED), events: EVENTS });

    const comparison = compareReplays(before, after);

    expect(
      comparison.rules.map((row) => [
        row.ruleId,
        row.before === undefined ? 'absent' : `${row.before.severity}/${row.before.alerts}`,
        row.after === undefined
          ? 'absent'
          : `${row.after.enabled ? row.after.severity : 'off'}/${row.after.alerts}`,
      ]),
    ).toEqual([
      ['project-deleted', 'high/1', 'critical/1'],
      ['many-reads', 'medium/1', 'medium/1'],
      ['metric-once', 'low/1', 'off/0'],
      ['user-joined', 'info/1', 'absent'],
      ['never-on', 'critical/0', 'absent'],
      ['api-key-created', 'absent', 'medium/1'],
    ]);
  });

  it('lists each event whose alerts changed: added, removed, changed severity or title', async () => {
    const before = await replayRules({ pack: packOf(BASE), events: EVENTS });
    const after = await replayRules({ pack: packOf(TUNED), events: EVENTS });

    const comparison = compareReplays(before, after);

    expect(
      comparison.changes.map((change) => ({
        event: EVENTS[change.index]?.id,
        rule: change.ruleId,
        kind: change.kind,
        before: change.before && `${change.before.severity}: ${change.before.title}`,
        after: change.after && `${change.after.severity}: ${change.after.title}`,
      })),
    ).toEqual([
      {
        event: 'e01',
        rule: 'project-deleted',
        kind: 'changed',
        before: 'high: Project g1 deleted by alice',
        after: 'critical: Project g1 deleted by alice',
      },
      {
        event: 'e03',
        rule: 'metric-once',
        kind: 'removed',
        before: 'low: CONNECTIONS outside threshold',
        after: undefined,
      },
      {
        event: 'e04',
        rule: 'many-reads',
        kind: 'changed',
        before: 'medium: bob read a lot',
        after: 'medium: Data Explorer burst by bob',
      },
      { event: 'e07', rule: 'user-joined', kind: 'removed', before: 'info: carol joined', after: undefined },
      {
        event: 'e08',
        rule: 'api-key-created',
        kind: 'added',
        before: undefined,
        after: 'medium: API key abcdefgh created',
      },
    ]);
    expect(comparison.eventsChanged).toBe(5);
  });

  it('finds no change between a rule set and itself', async () => {
    const before = await replayRules({ pack: packOf(BASE), events: EVENTS });
    const again = await replayRules({ pack: packOf(BASE), events: EVENTS });

    const comparison = compareReplays(before, again);

    expect(comparison.changes).toEqual([]);
    expect(comparison.eventsChanged).toBe(0);
  });
});
