import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  fileStoreFactory,
  ids,
  MINUTE,
  type PollFixture,
  quietEvent,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';

const PROJECT = `project:${ids.project}`;
const EVENTS_PATH = `/api/atlas/v2/groups/${ids.project}/events`;
const EVENTS_ROUTE = 'GET /groups/{groupId}/events';
const projectOnly = { sources: { projectIds: [ids.project] } };

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** 1,000 quiet events and 3 alerting ones over the last 40 minutes: three pages of 500. */
function addThreePages(current: PollFixture): AtlasEvent[] {
  const now = current.clock.now();
  const events = Array.from({ length: 1_000 }, (_, index) => quietEvent(now - MINUTE - index * 2 * SECOND));
  events.push(
    alertingEvent(now - 2 * MINUTE),
    alertingEvent(now - 20 * MINUTE),
    alertingEvent(now - 39 * MINUTE),
  );
  return current.sim.addEvents({ groupId: ids.project }, events);
}

describe('runTick against a misbehaving Atlas', () => {
  it('answers a nonce that went stale between two pages with one more challenge and loses nothing', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), config: projectOnly });
    const current = fixture;
    const events = addThreePages(current);
    let expired = false;
    current.onRequest = (request) => {
      if (!expired && request.path === EVENTS_PATH && request.status === 200) {
        expired = true;
        current.sim.expireNonces();
      }
    };

    // Act
    const summary = await current.tick();

    // Assess
    const counters = current.sim.counters;
    expect(outcomeOf(summary, PROJECT)).toMatchObject({
      status: 'ok',
      pagesRead: 3,
      inventory: { status: 'baseline' },
    });
    expect(counters.challenges).toBe(2);
    // Three event pages, the project's IP access list read by its first inventory snapshot, and the
    // names of the organization and the project its alerts show.
    expect(counters.byStatus).toEqual({ '200': 6, '401': 2 });
    expect(summary.totals.atlasRequests).toBe(counters.requests);
    await expectEachAlertOnce(current, events);
  });

  it('waits out a burst of 429s within the client retries and loses nothing', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), config: projectOnly });
    const events = addThreePages(fixture);
    fixture.sim.setFaults({
      schedule: [{ kind: 'rateLimited', count: 3 }],
      retryAfterSeconds: 1,
      routes: [EVENTS_ROUTE],
    });

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok', pagesRead: 3 });
    expect(summary.totals.atlasRateLimited).toBe(3);
    expect(summary.totals.atlasRequests).toBe(fixture.sim.counters.requests);
    await expectEachAlertOnce(fixture, events);
  });

  it('fails a source Atlas keeps rate limiting past the retries, keeps its cursor, and catches up next tick', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), config: projectOnly });
    const events = addThreePages(fixture);
    fixture.sim.setFaults({
      schedule: [{ kind: 'none' }, { kind: 'rateLimited', count: 5 }],
      routes: [EVENTS_ROUTE],
    });

    // Act
    const limited = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const next = await fixture.tick();

    // Assess
    expect(outcomeOf(limited, PROJECT)).toMatchObject({
      status: 'failed',
      errorCode: 'RATE_LIMITED',
      httpStatus: 429,
      windowsCommitted: 0,
    });
    expect(limited.totals.errorsByCode).toEqual({ RATE_LIMITED: 1 });
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', eventsNew: events.length });
    await expectEachAlertOnce(fixture, events);
  });

  it('reports the sources Atlas answers 403 with their error code while the others succeed', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: {
        sources: { orgIds: [ids.org, ids.otherOrg], projectIds: [ids.project, ids.foreignProject] },
      },
    });
    const event = fixture.sim.addEvent({ groupId: ids.project }, alertingEvent(fixture.clock.now() - MINUTE));
    fixture.sim.addEvent({ groupId: ids.foreignProject }, alertingEvent(fixture.clock.now() - MINUTE));

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(
      summary.sources.map(({ source, status, errorCode, httpStatus }) => ({
        source,
        status,
        errorCode,
        httpStatus,
      })),
    ).toEqual([
      { source: `org:${ids.org}`, status: 'ok', errorCode: undefined, httpStatus: undefined },
      { source: `org:${ids.otherOrg}`, status: 'failed', errorCode: 'USER_UNAUTHORIZED', httpStatus: 403 },
      { source: PROJECT, status: 'ok', errorCode: undefined, httpStatus: undefined },
      {
        source: `project:${ids.foreignProject}`,
        status: 'failed',
        errorCode: 'USER_UNAUTHORIZED',
        httpStatus: 403,
      },
    ]);
    expect(outcomeOf(summary, `org:${ids.otherOrg}`).message).toMatch(/403/);
    expect(summary.totals).toMatchObject({
      sourceErrors: 2,
      atlasAuthFailures: 2,
      errorsByCode: { USER_UNAUTHORIZED: 2 },
    });
    expect(summary.completed).toBe(true);
    await expectEachAlertOnce(fixture, [event]);
  });
});
