import { afterEach, describe, expect, it } from 'vitest';
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

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('runTick', () => {
  it('alerts on the events of the initial lookback and commits the cursor at now minus the lag', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });
    const { sim, clock } = fixture;
    const now = clock.now();
    const old = sim.addEvent({ groupId: ids.project }, alertingEvent(now - 2 * HOUR));
    const recent = sim.addEvent({ groupId: ids.project }, alertingEvent(now - 10 * MINUTE));
    sim.addEvent({ groupId: ids.project }, quietEvent(now - 5 * MINUTE));

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(fixture.notifier.eventIds()).toEqual([recent.id]);
    expect(fixture.notifier.eventIds()).not.toContain(old.id);
    const project = summary.sources.find((source) => source.source === `project:${ids.project}`);
    expect(project).toMatchObject({
      status: 'ok',
      eventsNew: 2,
      windowsCommitted: 1,
      watermark: now - 30 * SECOND,
    });
    expect(summary.completed).toBe(true);
    expect(summary.totals.alerts.published.critical).toBe(1);
  });

  it('sends nothing on a second tick when nothing new happened', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });
    const { sim, clock } = fixture;
    sim.addEvent({ groupId: ids.project }, alertingEvent(clock.now() - 10 * MINUTE));
    await fixture.tick();
    clock.advance(MINUTE);

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(fixture.notifier.delivered).toHaveLength(1);
    expect(summary.totals.eventsNew).toBe(0);
    expect(summary.totals.eventsFetched).toBe(1);
  });

  it('counts the events no rule can alert on as new once, and alerts on the others in between', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory() });
    const { sim, clock } = fixture;
    const now = clock.now();
    for (let index = 0; index < 30; index++) {
      sim.addEvent({ groupId: ids.project }, quietEvent(now - 10 * MINUTE + index * SECOND));
    }
    const alerting = sim.addEvent({ groupId: ids.project }, alertingEvent(now - 10 * MINUTE + 15 * SECOND));

    // Act
    const first = await fixture.tick();
    clock.advance(MINUTE);
    const second = await fixture.tick();

    // Assess
    expect(first.totals.eventsNew).toBe(31);
    expect(fixture.notifier.eventIds()).toEqual([alerting.id]);
    expect(second.totals.eventsNew).toBe(0);
    expect(second.totals.eventsFetched).toBe(31);
  });
});
