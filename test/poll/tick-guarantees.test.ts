import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import { runTick, type TickSummary } from '../../shared/poll/index.js';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  ids,
  MINUTE,
  type PollFixture,
  quietEvent,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const EVENTS_PATH = `/api/atlas/v2/groups/${ids.project}/events`;
const projectOnly = { sources: { projectIds: [ids.project] } };

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** 1,200 quiet events and 5 alerting ones over the last 50 minutes: three pages of 500. */
function threePages(now: number): Array<AtlasEvent & { eventTypeName: string }> {
  const events = Array.from({ length: 1_200 }, (_, index) => quietEvent(now - MINUTE - index * 2 * SECOND));
  for (let index = 0; index < 5; index += 1)
    events.push(alertingEvent(now - 2 * MINUTE - index * 9 * MINUTE));
  return events;
}

describe.each(storeKinds())('runTick with the $name', (kind) => {
  it('alerts once on a late event that shows up inside the overlap, never on one older than it', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const scope = { groupId: ids.project };
    const first = sim.addEvent(scope, alertingEvent(clock.now() - 10 * MINUTE));
    const tick1 = await fixture.tick();
    const watermark = outcomeOf(tick1, PROJECT).watermark ?? 0;
    clock.advance(MINUTE);
    const late = sim.addEvent(scope, alertingEvent(watermark - 5 * MINUTE));
    const tooLate = sim.addEvent(scope, alertingEvent(watermark - 20 * MINUTE));
    const fresh = sim.addEvent(scope, alertingEvent(clock.now() - 40 * SECOND));

    // Act
    await fixture.tick();
    clock.advance(MINUTE);
    const tick3 = await fixture.tick();

    // Assess
    await expectEachAlertOnce(fixture, [first, late, fresh]);
    expect(fixture.notifier.eventIds()).not.toContain(tooLate.id);
    expect(tick3.totals.eventsNew).toBe(0);
  });

  it('alerts once on each event of one second, in id order, when some arrive after the tick that read that second', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const scope = { groupId: ids.project };
    const second = Math.floor((clock.now() - 30 * SECOND) / SECOND) * SECOND;
    const early = sim.addEvents(scope, [
      alertingEvent(second - SECOND),
      alertingEvent(second, { id: '6650a1b2c3d4e5f6aa000002' }),
      alertingEvent(second, { id: '6650a1b2c3d4e5f6aa000001' }),
    ]);
    await fixture.tick();
    const firstTick = fixture.notifier.eventIds();
    clock.advance(MINUTE);
    const tied = sim.addEvents(scope, [
      alertingEvent(second, { id: '6650a1b2c3d4e5f6aa000004' }),
      alertingEvent(second, { id: '6650a1b2c3d4e5f6aa000003' }),
    ]);

    // Act
    await fixture.tick();

    // Assess
    expect(firstTick).toEqual([early[0]?.id, '6650a1b2c3d4e5f6aa000001', '6650a1b2c3d4e5f6aa000002']);
    expect(fixture.notifier.eventIds().slice(3)).toEqual([
      '6650a1b2c3d4e5f6aa000003',
      '6650a1b2c3d4e5f6aa000004',
    ]);
    await expectEachAlertOnce(fixture, [...early, ...tied]);
  });

  it('alerts once on an event added while the pages of a window are read', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const scope = { groupId: ids.project };
    const events = sim.addEvents(scope, threePages(clock.now()));
    let added: AtlasEvent | undefined;
    fixture.onRequest = (request) => {
      if (added === undefined && request.path === EVENTS_PATH && request.status === 200) {
        added = sim.addEvent(scope, alertingEvent(clock.now() - 5 * MINUTE));
      }
    };

    // Act
    const tick1 = await fixture.tick();
    fixture.onRequest = undefined;
    clock.advance(MINUTE);
    await fixture.tick();

    // Assess
    const project = outcomeOf(tick1, PROJECT);
    expect(project.pagesRead).toBe(3);
    expect(project.eventsFetched).toBe(events.length + 1);
    expect(project.eventsNew).toBe(events.length);
    await expectEachAlertOnce(fixture, [...events, added as AtlasEvent]);
  });

  it('keeps the cursor of a source cut short by the deadline mid-window, then alerts once on the next tick', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const events = sim.addEvents({ groupId: ids.project }, threePages(clock.now()));
    let advanced = false;
    fixture.onRequest = (request) => {
      if (!advanced && request.path === EVENTS_PATH && request.status === 200) {
        advanced = true;
        clock.advance(45 * SECOND);
      }
    };

    // Act
    const cut = await fixture.tick({ deadline: clock.now() + 60 * SECOND });
    fixture.onRequest = undefined;
    const next = await fixture.tick({ deadline: clock.now() + 60 * SECOND });

    // Assess
    expect(outcomeOf(cut, PROJECT)).toMatchObject({
      status: 'cut-short',
      reason: 'deadline',
      pagesRead: 1,
      windowsCommitted: 0,
    });
    expect(cut.completed).toBe(false);
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', eventsNew: events.length });
    await expectEachAlertOnce(fixture, events);
  });

  it('raises an alert whose publish failed again on the next tick, without repeating the others', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const events = sim.addEvents(
      { groupId: ids.project },
      [3, 2, 1].map((minutes) => alertingEvent(clock.now() - minutes * MINUTE)),
    );
    fixture.notifier.failNext({ count: 1, retryable: true });

    // Act
    const failed = await fixture.tick();
    clock.advance(MINUTE);
    const retried = await fixture.tick();

    // Assess
    expect(outcomeOf(failed, PROJECT)).toMatchObject({
      status: 'failed',
      errorCode: 'ALERT_DELIVERY_FAILED',
      windowsCommitted: 0,
    });
    expect(failed.totals.alerts.failed.critical).toBe(1);
    expect(failed.totals.alerts.published.critical).toBe(2);
    expect(outcomeOf(retried, PROJECT)).toMatchObject({ status: 'ok' });
    expect(retried.totals.alerts).toMatchObject({ alreadySent: 2, published: { critical: 1 } });
    await expectEachAlertOnce(fixture, events);
  });

  it('moves its cursor past an alert that can never be published, and never raises it again', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    sim.addEvents({ groupId: ids.project }, [alertingEvent(clock.now() - 2 * MINUTE)]);
    fixture.notifier.failNext({ count: 1, retryable: false });

    // Act
    const dropped = await fixture.tick();
    clock.advance(MINUTE);
    const next = await fixture.tick();

    // Assess
    expect(outcomeOf(dropped, PROJECT)).toMatchObject({ status: 'ok', windowsCommitted: 1 });
    expect(dropped.totals.alerts).toMatchObject({ failedPermanently: 1, failed: { critical: 1 } });
    expect(next.totals.eventsNew).toBe(0);
    expect(fixture.notifier.delivered).toHaveLength(0);
  });

  it('skips a source whose lease a tick running at the same time holds', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const current = fixture;
    const events = current.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(current.clock.now() - 3 * MINUTE),
      alertingEvent(current.clock.now() - 2 * MINUTE),
    ]);
    let overlapping: TickSummary | undefined;
    current.notifier.beforeReturn = async () => {
      current.notifier.beforeReturn = undefined;
      overlapping = await runTick(
        {
          atlas: current.newClient(),
          store: kind.secondWorker(current),
          engine: current.engine,
          notifier: current.notifier,
          clock: current.clock,
        },
        { config: current.config, owner: 'worker-b' },
      );
    };

    // Act
    const summary = await current.tick();

    // Assess
    expect(outcomeOf(summary, PROJECT).status).toBe('ok');
    expect(overlapping && outcomeOf(overlapping, PROJECT)).toMatchObject({
      status: 'skipped-lease-held',
      leaseHeldBy: { owner: 'worker-a' },
    });
    await expectEachAlertOnce(current, events);
  });

  it('stops a worker whose lease was taken over from moving the cursor, and alerts once', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const current = fixture;
    const { clock } = current;
    const events = current.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(clock.now() - 3 * MINUTE),
      alertingEvent(clock.now() - 2 * MINUTE),
    ]);
    let takeover: TickSummary | undefined;
    current.notifier.beforeReturn = async () => {
      current.notifier.beforeReturn = undefined;
      clock.advance(2 * MINUTE);
      takeover = await runTick(
        {
          atlas: current.newClient(),
          store: kind.secondWorker(current),
          engine: current.engine,
          notifier: current.notifier,
          clock,
        },
        { config: current.config, owner: 'worker-b', leaseMs: MINUTE },
      );
    };

    // Act
    const stale = await current.tick({ leaseMs: MINUTE });
    clock.advance(MINUTE);
    const after = await current.tick({ leaseMs: MINUTE });

    // Assess
    expect(takeover && outcomeOf(takeover, PROJECT)).toMatchObject({
      status: 'cut-short',
      reason: 'alert-in-progress',
    });
    expect(outcomeOf(stale, PROJECT)).toMatchObject({ status: 'failed', errorCode: 'STATE_LEASE_LOST' });
    expect(outcomeOf(after, PROJECT)).toMatchObject({ status: 'ok', alerts: { alreadySent: 2 } });
    await expectEachAlertOnce(current, events);
  });
});
