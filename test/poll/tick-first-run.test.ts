import { afterEach, describe, expect, it } from 'vitest';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import { alertingEvent, ids, MINUTE, type PollFixture, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const EVENTS_ROUTE = 'GET /groups/{groupId}/events';
const projectOnly = { sources: { projectIds: [ids.project] } };

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
});
