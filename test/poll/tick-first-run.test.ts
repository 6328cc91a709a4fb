import { afterEach, describe, expect, it } from 'vitest';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  ids,
  MINUTE,
  type PollFixture,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const EVENTS_ROUTE = 'GET /groups/{groupId}/events';
const SECOND_PROJECT = `project:${ids.secondProject}`;
const PROJECT_EVENTS_PATH = `/api/atlas/v2/groups/${ids.project}/events`;
const projectOnly = { sources: { projectIds: [ids.project] } };
/** Two new projects, polled one at a time, with an hour of initial lookback. */
const twoProjects = {
  sources: { projectIds: [ids.project, ids.secondProject] },
  concurrency: 1,
  timing: { initialLookbackSeconds: 3_600 },
};

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('the first tick of a new source with the $name', (kind) => {
  it('keeps its start when its alerts fail, so an event older than the lookback by then still alerts', async () => {
    // Prepare: an event 50 minutes old, inside the 60-minute initial lookback; its alert fails.
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const start = clock.now() - 60 * MINUTE;
    const event = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 50 * MINUTE));
    fixture.notifier.failNext({ count: 1, retryable: true });
    const failed = await fixture.tick();
    clock.advance(20 * MINUTE);

    // Act: the event is now 70 minutes old, past a lookback counted from the second tick.
    const retried = await fixture.tick();

    // Assess
    expect(outcomeOf(failed, PROJECT)).toMatchObject({
      status: 'failed',
      errorCode: 'ALERT_DELIVERY_FAILED',
      windowsCommitted: 0,
      watermark: start,
    });
    expect(outcomeOf(retried, PROJECT)).toMatchObject({ status: 'ok' });
    await expectEachAlertOnce(fixture, [event]);
  });

  it('keeps its start when Atlas fails it, so a long outage loses no event of the lookback', async () => {
    // Prepare: Atlas refuses every read of the first tick, past the client's retries.
    fixture = await startPollFixture({ store: kind.factory, config: projectOnly });
    const { sim, clock } = fixture;
    const event = sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 40 * MINUTE));
    sim.setFaults({ schedule: [{ kind: 'serviceUnavailable', count: 5 }], routes: [EVENTS_ROUTE] });
    const failed = await fixture.tick();
    sim.setFaults();
    clock.advance(45 * MINUTE);

    // Act
    await fixture.tick();

    // Assess
    expect(outcomeOf(failed, PROJECT)).toMatchObject({ status: 'failed', httpStatus: 503 });
    await expectEachAlertOnce(fixture, [event]);
  });

  it('starts where the first tick that named the source would have, when that tick ran out of time before its turn', async () => {
    // Prepare: an event 50 minutes old, inside the hour of lookback of the first tick only.
    fixture = await startPollFixture({ store: kind.factory, config: twoProjects });
    const { sim, clock } = fixture;
    const events = [
      sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 50 * MINUTE)),
      sim.addEvent({ groupId: ids.secondProject }, alertingEvent(clock.now() - 5 * MINUTE)),
    ];

    // Act: a tick with less time left than its margin reaches no source; the next one comes later.
    const starved = await fixture.tick({ deadline: clock.now() + 5 * SECOND });
    clock.advance(20 * MINUTE);
    const next = await fixture.tick();

    // Assess
    expect(outcomeOf(starved, PROJECT)).toMatchObject({ status: 'cut-short', windowsCommitted: 0 });
    expect(outcomeOf(starved, SECOND_PROJECT)).toMatchObject({ status: 'cut-short', windowsCommitted: 0 });
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 1 });
    await expectEachAlertOnce(fixture, events);
  });

  it("starts the initial lookback before the tick began, however late the source's turn comes", async () => {
    // Prepare: reading the first project takes 12 minutes of the tick.
    fixture = await startPollFixture({ store: kind.factory, config: twoProjects });
    const { sim, clock } = fixture;
    const events = [
      sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 2 * MINUTE)),
      sim.addEvent({ groupId: ids.secondProject }, alertingEvent(clock.now() - 55 * MINUTE)),
    ];
    let slowed = false;
    fixture.onRequest = (request) => {
      if (!slowed && request.path === PROJECT_EVENTS_PATH && request.status === 200) {
        slowed = true;
        clock.advance(12 * MINUTE);
      }
    };

    // Act
    const tick = await fixture.tick();

    // Assess
    expect(slowed).toBe(true);
    expect(outcomeOf(tick, SECOND_PROJECT)).toMatchObject({ status: 'ok', eventsNew: 1 });
    await expectEachAlertOnce(fixture, events);
  });
});
