import { describe, expect, it } from 'vitest';
import {
  messageSource,
  parseSourceMessage,
  queuedSources,
  SourceMessageError,
} from '../../shared/fan-out/index.js';
import { clusterSource, orgSource, projectSource, type TickSource } from '../../shared/poll/index.js';
import { pushQueueEntry } from '../../shared/push/index.js';

const ORG = '5f4e3d2c1b0a998877665544';
const PROJECT = '5f4e3d2c1b0a998877665501';
const TICK_AT = Date.parse('2026-11-24T03:05:00.000Z');
const TICK = '2026-11-24T03:05:00.000Z';

describe('source messages of connections', () => {
  it('reads the connection a message names into the source it polls, and none for the connection default', () => {
    const named = parseSourceMessage(
      JSON.stringify({
        v: 1,
        kind: 'project',
        id: PROJECT,
        orgId: ORG,
        connection: 'data-centre',
        tick: TICK,
      }),
    );
    const unnamed = parseSourceMessage(JSON.stringify({ v: 1, kind: 'org', id: ORG, tick: TICK }));

    expect(named).toEqual({
      v: 1,
      kind: 'project',
      id: PROJECT,
      orgId: ORG,
      connection: 'data-centre',
      tick: TICK,
    });
    expect(messageSource(named)).toEqual({ ...projectSource(PROJECT), connection: 'data-centre' });
    expect(unnamed).toEqual({ v: 1, kind: 'org', id: ORG, tick: TICK });
    expect(messageSource(unnamed)).toEqual(orgSource(ORG));
  });

  it('refuses a connection name no configuration could hold, and the name default spelled out', () => {
    const read = (connection: string) => () =>
      parseSourceMessage(JSON.stringify({ v: 1, kind: 'org', id: ORG, connection, tick: TICK }));

    expect(read('Data Centre')).toThrow(SourceMessageError);
    expect(read('Data Centre')).toThrow(/^source message is not a version 1 source message \(connection: /);
    expect(read('x'.repeat(33))).toThrow(SourceMessageError);
    expect(read('default')).toThrow(/connection: the connection default is named by leaving it out/);
  });

  it("groups a connection's organizations apart from the same ids elsewhere, and names the connection in each message", () => {
    const sources: TickSource[] = [
      { ...orgSource(ORG), orgId: ORG },
      { ...projectSource(PROJECT), orgId: ORG, connection: 'subsidiary' },
      { ...projectSource('5f4e3d2c1b0a998877665502'), connection: 'subsidiary' },
    ];

    const [ours, theirs, unknownOrg] = queuedSources({ sources, tickAt: TICK_AT, maxConcurrencyPerOrg: 1 });

    expect(ours).toEqual({
      message: { v: 1, kind: 'org', id: ORG, orgId: ORG, tick: TICK },
      groupId: `${ORG}#0`,
      deduplicationId: `${TICK}#org:${ORG}`,
    });
    expect(theirs).toEqual({
      message: { v: 1, kind: 'project', id: PROJECT, orgId: ORG, connection: 'subsidiary', tick: TICK },
      groupId: `subsidiary:${ORG}#0`,
      deduplicationId: `${TICK}#subsidiary:project:${PROJECT}`,
    });
    expect(unknownOrg?.groupId).toBe('subsidiary:project:5f4e3d2c1b0a998877665502');
    for (const entry of [ours, theirs, unknownOrg]) {
      expect(parseSourceMessage(JSON.stringify(entry?.message))).toEqual(entry?.message);
      // SQS's limits on both ids: 128 characters of letters, digits and punctuation.
      expect(entry?.groupId).toMatch(/^[\x21-\x7e]{1,128}$/);
      expect(entry?.deduplicationId).toMatch(/^[\x21-\x7e]{1,128}$/);
    }
  });

  it("carries a cluster's access history as a message of its own, its ids within SQS's limits under a long connection name", () => {
    const cluster = clusterSource(PROJECT, `payments-${'x'.repeat(55)}`);
    const sources: TickSource[] = [{ ...cluster, connection: `c${'o'.repeat(31)}` }];

    const [queued] = queuedSources({ sources, tickAt: TICK_AT, maxConcurrencyPerOrg: 1 });
    const message = parseSourceMessage(JSON.stringify(queued?.message));

    expect(message).toEqual({
      v: 1,
      kind: 'cluster',
      id: PROJECT,
      cluster: cluster.cluster,
      connection: `c${'o'.repeat(31)}`,
      tick: TICK,
    });
    expect(messageSource(message)).toEqual({ ...cluster, connection: `c${'o'.repeat(31)}` });
    expect(queued?.groupId).toMatch(/^[0-9a-f]{64}$/);
    expect(queued?.deduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a cluster message without its cluster, and a cluster named on another kind', () => {
    const read = (fields: object) => () =>
      parseSourceMessage(JSON.stringify({ v: 1, id: PROJECT, tick: TICK, ...fields }));

    expect(read({ kind: 'cluster' })).toThrow(
      /cluster: names the cluster of a cluster source, and only of one/,
    );
    expect(read({ kind: 'project', cluster: 'payments-main' })).toThrow(SourceMessageError);
    expect(read({ kind: 'cluster', cluster: '../orgs' })).toThrow(/cluster: must be an Atlas cluster name/);
  });

  it("marks a push's message, so the worker reads its source up to now, and refuses any other mark", () => {
    const pushed = pushQueueEntry({
      source: projectSource(PROJECT),
      now: TICK_AT + 4_000,
      coalesceMs: 10_000,
    });
    const read = (push: unknown) => () =>
      parseSourceMessage(JSON.stringify({ v: 1, kind: 'org', id: ORG, tick: TICK, push }));

    const message = parseSourceMessage(JSON.stringify(pushed.message));

    expect(message).toEqual({ v: 1, kind: 'project', id: PROJECT, tick: TICK, push: true });
    expect(messageSource(message)).toEqual(projectSource(PROJECT));
    expect(read(false)).toThrow(/push: /);
    expect(read('yes')).toThrow(SourceMessageError);
  });
});
