import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import {
  type MetricNameValue,
  PollConfigError,
  runTick,
  type TickProgress,
} from '../../shared/poll/index.js';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  fileStoreFactory,
  HOUR,
  ids,
  MINUTE,
  type PollFixture,
  quietEvent,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';

const PROJECT = `project:${ids.project}`;
const SECOND_PROJECT = `project:${ids.secondProject}`;
const EVENTS_PATH = `/api/atlas/v2/groups/${ids.project}/events`;

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('runTick walks', () => {
  it('reads a backlog in windows no longer than the longest window, committing after each', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] }, timing: { maxWindowSeconds: 600 } },
    });
    const now = fixture.clock.now();
    const events = fixture.sim.addEvents(
      { groupId: ids.project },
      Array.from({ length: 30 }, (_, index) => alertingEvent(now - MINUTE - index * 2 * MINUTE)),
    );

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok', windowsCommitted: 6, eventsNew: 30 });
    expect(fixture.notifier.calls).toHaveLength(6);
    await expectEachAlertOnce(fixture, events);
  });

  it('cuts a window that holds more events than the bound into shorter ones', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] }, maxEventsPerWindow: 500 },
    });
    const now = fixture.clock.now();
    const generated: AtlasEvent[] = Array.from({ length: 1_500 }, (_, index) =>
      quietEvent(now - MINUTE - index * SECOND),
    );
    for (let index = 0; index < 6; index += 1)
      generated.push(alertingEvent(now - MINUTE - index * 4 * MINUTE));
    const events = fixture.sim.addEvents(
      { groupId: ids.project },
      generated as Array<AtlasEvent & { eventTypeName: string }>,
    );
    const progress: TickProgress[] = [];

    // Act
    const summary = await fixture.tick({ onProgress: (step) => progress.push(step) });

    // Assess
    const project = outcomeOf(summary, PROJECT);
    expect(project.status).toBe('ok');
    expect(project.windowsCommitted).toBeGreaterThanOrEqual(3);
    expect(project.eventsNew).toBe(1_506);
    expect(Math.max(...progress.map((step) => step.eventsRead))).toBeLessThanOrEqual(1_000);
    await expectEachAlertOnce(fixture, events);
  });

  it('reads a window whose last page is short whole, when its events fit but a full page more would not', async () => {
    // Prepare: one source with a budget of 2,500 holds at most 1,250 events a window.
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] }, maxEventsInMemory: 2_500 },
    });
    const now = fixture.clock.now();
    const generated = Array.from({ length: 1_199 }, (_, index) => quietEvent(now - MINUTE - index * SECOND));
    generated.push(alertingEvent(now - 2 * MINUTE));
    const events = fixture.sim.addEvents({ groupId: ids.project }, generated);

    // Act
    const summary = await fixture.tick();

    // Assess: three pages, read once (500, 500 and the last 200), in one window.
    expect(outcomeOf(summary, PROJECT)).toMatchObject({
      status: 'ok',
      eventsNew: 1_200,
      pagesRead: 3,
      windowsCommitted: 1,
    });
    await expectEachAlertOnce(fixture, events);
  });

  it('sizes each window after a cut from the density of the one before, near the bound', async () => {
    // Prepare: 3,000 events, one a second for the last 50 minutes, at most 500 a window.
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] }, maxEventsPerWindow: 500 },
    });
    const now = fixture.clock.now();
    const generated = Array.from({ length: 3_000 }, (_, index) => quietEvent(now - MINUTE - index * SECOND));
    for (let index = 0; index < 5; index += 1)
      generated.push(alertingEvent(now - 2 * MINUTE - index * 9 * MINUTE));
    const events = fixture.sim.addEvents({ groupId: ids.project }, generated);

    // Act
    const summary = await fixture.tick();

    // Assess: windows of about 400 events after the first cut (not 200, nor read and thrown away).
    const project = outcomeOf(summary, PROJECT);
    expect(project).toMatchObject({ status: 'ok', eventsNew: 3_005 });
    expect(project.windowsCommitted).toBeLessThanOrEqual(9);
    expect(project.pagesRead).toBeLessThanOrEqual(12);
    await expectEachAlertOnce(fixture, events);
  });

  it('records the overlap before a short lookback as seen, so no later tick alerts on it', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] }, timing: { initialLookbackSeconds: 0 } },
    });
    const { sim, clock } = fixture;
    sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 5 * MINUTE));
    const first = await fixture.tick();
    clock.advance(MINUTE);
    const fresh = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 40 * SECOND));

    // Act
    const second = await fixture.tick();

    // Assess
    expect(outcomeOf(first, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 0, windowsCommitted: 1 });
    expect(outcomeOf(second, PROJECT).eventsNew).toBe(1);
    expect(fixture.notifier.eventIds()).toEqual([fresh.id]);
  });

  it('backfills from since without sending an alert twice or moving the cursor back', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] } },
    });
    const { sim, clock } = fixture;
    const scope = { groupId: ids.project };
    const old = sim.addEvents(scope, [
      alertingEvent(clock.now() - 3 * HOUR),
      alertingEvent(clock.now() - 2 * HOUR),
    ]);
    const recent = sim.addEvent(scope, alertingEvent(clock.now() - 40 * MINUTE));
    const first = await fixture.tick();
    clock.advance(MINUTE);

    // Act
    const backfill = await fixture.tick({ since: clock.now() - 4 * HOUR });

    // Assess
    expect(fixture.notifier.eventIds()).toEqual([recent.id, ...old.map((event) => event.id)]);
    const before = outcomeOf(first, PROJECT).watermark ?? 0;
    expect(outcomeOf(backfill, PROJECT)).toMatchObject({ status: 'ok', alerts: { alreadySent: 1 } });
    expect(outcomeOf(backfill, PROJECT).watermark).toBeGreaterThan(before);
    await expectEachAlertOnce(fixture, [...old, recent]);
  });

  it('renews the lease of a tick that runs longer than half of it', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project] } },
    });
    const current = fixture;
    const now = current.clock.now();
    current.sim.addEvents(
      { groupId: ids.project },
      Array.from({ length: 1_200 }, (_, index) => quietEvent(now - MINUTE - index * SECOND)),
    );
    current.onRequest = (request) => {
      if (request.path === EVENTS_PATH && request.status === 200) current.clock.advance(40 * SECOND);
    };

    // Act
    const summary = await current.tick({ leaseMs: MINUTE });

    // Assess
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok', pagesRead: 3, windowsCommitted: 1 });
    expect(current.store.stats().requests.renewLease).toBeGreaterThanOrEqual(2);
  });
});

describe('runTick sources', () => {
  it('polls every project of an org, listing them once while the discovery cache is fresh', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { orgIds: [ids.org], allProjectsOfOrgs: true } },
    });
    const event = fixture.sim.addEvent(
      { groupId: ids.secondProject },
      alertingEvent(fixture.clock.now() - MINUTE),
    );

    // Act
    const first = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const second = await fixture.tick();
    fixture.clock.advance(10 * MINUTE);
    const third = await fixture.tick();

    // Assess
    expect(first.sources.map((source) => source.source)).toEqual([`org:${ids.org}`, PROJECT, SECOND_PROJECT]);
    expect(first.discovery).toEqual([{ orgId: ids.org, status: 'listed', projects: 2 }]);
    expect(second.discovery).toEqual([{ orgId: ids.org, status: 'cached', projects: 2 }]);
    expect(third.discovery).toEqual([{ orgId: ids.org, status: 'listed', projects: 2 }]);
    await expectEachAlertOnce(fixture, [event]);
  });

  it('reports an org whose projects cannot be listed, and still polls the configured sources', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { orgIds: [ids.otherOrg], projectIds: [ids.project], allProjectsOfOrgs: true } },
    });

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(summary.discovery).toEqual([
      expect.objectContaining({
        orgId: ids.otherOrg,
        status: 'failed',
        errorCode: 'USER_UNAUTHORIZED',
        httpStatus: 403,
      }),
    ]);
    expect(outcomeOf(summary, PROJECT).status).toBe('ok');
    expect(summary.totals).toMatchObject({ sourceErrors: 2, atlasAuthFailures: 2 });
  });

  it('starts no source once less than the deadline margin remains', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: fileStoreFactory(),
      config: { sources: { projectIds: [ids.project, ids.secondProject] }, concurrency: 1 },
    });
    const current = fixture;
    current.onRequest = (request) => {
      if (request.path === EVENTS_PATH && request.status === 200) current.clock.advance(45 * SECOND);
    };

    // Act
    const summary = await current.tick({ deadline: current.clock.now() + 60 * SECOND });

    // Assess
    expect(outcomeOf(summary, PROJECT).status).toBe('ok');
    expect(outcomeOf(summary, SECOND_PROJECT)).toMatchObject({
      status: 'cut-short',
      reason: 'deadline',
      pagesRead: 0,
    });
    expect(summary.completed).toBe(false);
  });

  it('starts nothing when the caller already aborted', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });

    // Act
    const summary = await fixture.tick({ signal: AbortSignal.abort() });

    // Assess
    expect(summary.sources.map((source) => [source.status, source.reason])).toEqual([
      ['cut-short', 'aborted'],
      ['cut-short', 'aborted'],
    ]);
    expect(fixture.sim.counters.requests).toBe(0);
  });

  it('throws a configuration error when there is nothing to poll', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });
    const current = fixture;
    const config = { ...current.config, sources: { orgIds: [], projectIds: [], allProjectsOfOrgs: true } };

    // Act
    const tick = runTick(
      { atlas: current.atlas, store: current.store, engine: current.engine, notifier: current.notifier },
      { config, owner: 'worker-a' },
    );

    // Assess
    await expect(tick).rejects.toThrow(PollConfigError);
    await expect(tick).rejects.toThrow(/nothing to poll: set sources.orgIds/);
  });

  it('hands its metrics to the sink, with the heartbeat of a completed tick', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });
    const current = fixture;
    current.sim.addEvent({ groupId: ids.project }, alertingEvent(current.clock.now() - MINUTE));
    const metrics: Array<[MetricNameValue, string, number, Readonly<Record<string, string>> | undefined]> =
      [];

    // Act
    await runTick(
      {
        atlas: current.atlas,
        store: current.store,
        engine: current.engine,
        notifier: current.notifier,
        clock: current.clock,
        metrics: {
          addMetric: (name, unit, value, dimensions) => metrics.push([name, unit, value, dimensions]),
        },
      },
      { config: current.config, owner: 'worker-a' },
    );

    // Assess
    const byName = (name: string) => metrics.filter(([metric]) => metric === name);
    expect(byName('AlertsPublished')).toEqual([
      ['AlertsPublished', 'Count', 1, { severity: 'critical' }],
      ['AlertsPublished', 'Count', 1, undefined],
    ]);
    expect(byName('EventsNew')).toEqual([['EventsNew', 'Count', 1, undefined]]);
    expect(byName('TickCompleted')).toEqual([['TickCompleted', 'Count', 1, undefined]]);
    expect(byName('WatermarkLagSeconds')).toEqual([['WatermarkLagSeconds', 'Seconds', 30, undefined]]);
    expect(byName('OldestSourceLagSeconds')).toEqual([['OldestSourceLagSeconds', 'Seconds', 30, undefined]]);
  });
});
