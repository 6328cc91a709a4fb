import { describe, expect, it } from 'vitest';
import { formatReplayTable, type ReplayReport, replayJsonLines } from '../../cli/replay-report.js';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import { compareReplays, replayRules } from '../../shared/rules/index.js';
import { packOf } from '../rules/rule-files.js';

const BEFORE = `
rules:
  - id: project-deleted
    name: Project deleted
    severity: high
    match: { eventTypeName: GROUP_DELETED }
    title: 'Project {{groupId}} deleted by {{username}}'
  - id: user-joined
    name: User joined
    severity: low
    enabled: false
    match: { eventTypeName: JOINED_ORG }
    title: '{{username}} joined'
`;

const AFTER = `
rules:
  - id: user-joined
    name: User joined
    severity: low
    match: { eventTypeName: JOINED_ORG }
    title: '{{username}} joined'
  - id: group-deleted-by-anyone
    name: Project deleted
    severity: medium
    match: { eventTypeName: GROUP_DELETED }
    title: 'Project {{groupId}} deleted'
`;

/** An event whose `username` cannot be read: evaluating a rule that reads it throws. */
function unreadableEvent(): AtlasEvent {
  const event: AtlasEvent = {
    id: 'e02',
    created: '2024-05-01T12:01:00Z',
    eventTypeName: 'GROUP_DELETED',
    groupId: 'g2',
  };
  Object.defineProperty(event, 'username', {
    enumerable: true,
    get: () => {
      throw new Error('username cannot be read');
    },
  });
  return event;
}

async function report(): Promise<ReplayReport> {
  const events: AtlasEvent[] = [
    { id: 'e01', created: '2024-05-01T12:00:00Z', eventTypeName: 'JOINED_ORG', username: 'carol' },
    unreadableEvent(),
  ];
  const before = await replayRules({ pack: packOf(BEFORE), events });
  const after = await replayRules({ pack: packOf(AFTER), events });
  return {
    input: { kind: 'atlas', sources: ['org:o1', 'project:p1', 'project:p2'], from: 0, to: 86_400_000 },
    events,
    rules: { label: 'before', replay: before },
    compare: { label: 'after', replay: after, comparison: compareReplays(before, after) },
  };
}

describe('formatReplayTable', () => {
  it('says what changed for each rule: enabled, new, removed', async () => {
    const table = formatReplayTable(await report());

    expect(table).toMatch(
      /^Replayed 2 events from 1 organization and 2 projects created 1970-01-01T00:00Z to 1970-01-02T00:00Z\n--rules: {3}before\n--compare: after\n/,
    );
    expect(table).toMatch(/^project-deleted +high +0 +0 +absent +- +- +rule removed$/m);
    expect(table).toMatch(/^user-joined +disabled +- +- +low +1 +1 +enabled$/m);
    expect(table).toMatch(/^group-deleted-by-anyone +absent +- +- +medium +1 +1 +new rule$/m);
  });

  it('lists the events that could not be evaluated, with each rule set', async () => {
    const table = formatReplayTable(await report());

    expect(table).toContain(
      '1 event could not be evaluated with --rules:\n  2024-05-01T12:01:00Z  GROUP_DELETED  e02: username cannot be read\n',
    );
    expect(table).not.toContain('with --compare:\n');
  });
});

describe('replayJsonLines', () => {
  it('gives a failure line per event that could not be evaluated, and counts them in the summary', async () => {
    const lines = replayJsonLines(await report());

    expect(lines.filter((line) => line.type === 'failure')).toEqual([
      {
        type: 'failure',
        ruleSet: 'rules',
        event: {
          id: 'e02',
          eventTypeName: 'GROUP_DELETED',
          created: '2024-05-01T12:01:00Z',
          orgId: null,
          groupId: 'g2',
        },
        message: 'username cannot be read',
      },
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: 'summary',
      input: { kind: 'atlas', from: '1970-01-01T00:00:00.000Z', to: '1970-01-02T00:00:00.000Z' },
      rules: { failures: 1, alerts: 0 },
      compare: { failures: 0, alerts: 2 },
      eventsChanged: 2,
    });
  });
});
