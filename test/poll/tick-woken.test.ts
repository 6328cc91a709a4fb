import { afterEach, describe, expect, it } from 'vitest';
import { projectSource } from '../../shared/poll/index.js';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  fileStoreFactory,
  ids,
  MINUTE,
  type PollFixture,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';

const PROJECT = `project:${ids.project}`;
/** The default `timing.lagSeconds`. */
const LAG = 30 * SECOND;

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A fixture polling one project with the default timings, its cursor set by a first scheduled tick. */
async function polledProject(): Promise<PollFixture> {
  const started = await startPollFixture({
    store: fileStoreFactory(),
    config: { sources: { projectIds: [ids.project] } },
  });
  await started.tick();
  started.clock.advance(2 * MINUTE);
  return started;
}

/** A tick over the project as a push wakes it: the walk reads up to now. */
function wokenTick(target: PollFixture) {
  const source = projectSource(ids.project);
  return target.tick({ sources: [source], woken: [source] });
}

describe('runTick over a source a push woke', () => {
  it('alerts on an event a second old with the default lag, where a scheduled tick reads past it', async () => {
    // Prepare
    fixture = await polledProject();
    const now = fixture.clock.now();
    const events = fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(now - SECOND)]);

    // Act
    const scheduled = await fixture.tick({ sources: [projectSource(ids.project)] });
    const woken = await wokenTick(fixture);

    // Assess
    expect(outcomeOf(scheduled, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 0 });
    expect(outcomeOf(woken, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 1, windowsCommitted: 1 });
    // The cursor stops at now − lag: what lies after it is read again by the next ticks.
    expect(outcomeOf(woken, PROJECT).watermark).toBe(now - LAG);
    await expectEachAlertOnce(fixture, events);
  });

  it('sends the pushed alert once, through the scheduled ticks that read its event again', async () => {
    // Prepare
    fixture = await polledProject();
    const pushedAt = fixture.clock.now();
    const events = fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(pushedAt - SECOND)]);
    await wokenTick(fixture);
    const afterPush = fixture.notifier.fingerprints().length;

    // Act: a tick whose window ends before the pushed event, then one that reads past it.
    fixture.clock.advance(10 * SECOND);
    const before = await fixture.tick();
    fixture.clock.advance(5 * MINUTE);
    const past = await fixture.tick();

    // Assess
    expect(afterPush).toBe(1);
    expect(outcomeOf(before, PROJECT)).toMatchObject({ status: 'ok' });
    // The tick before it kept no id past its own cursor: the pushed event is read again, and its
    // alert's claim, recorded as sent, keeps it from going out twice.
    expect(outcomeOf(past, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 1 });
    expect(outcomeOf(past, PROJECT).alerts.alreadySent).toBe(1);
    expect(outcomeOf(past, PROJECT).watermark).toBe(fixture.clock.now() - LAG);
    await expectEachAlertOnce(fixture, events);
  });

  it('drops the events it read past its cursor when the next tick reads them, evaluating none twice', async () => {
    // Prepare
    fixture = await polledProject();
    const pushedAt = fixture.clock.now();
    fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(pushedAt - SECOND)]);
    await wokenTick(fixture);

    // Act
    fixture.clock.advance(MINUTE);
    const next = await fixture.tick();

    // Assess: the pushed event is in the committed seen ids, so the next walk does not evaluate it.
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 0 });
    expect(fixture.notifier.fingerprints()).toHaveLength(1);
  });

  it('leaves the events Atlas lists after it to the next tick, before and after its cursor', async () => {
    // Prepare
    fixture = await polledProject();
    const pushedAt = fixture.clock.now();
    const pushed = fixture.sim.addEvents({ groupId: ids.project }, [alertingEvent(pushedAt - SECOND)]);
    await wokenTick(fixture);
    // Listed late, after the woken poll read its window: one between its cursor and its end, one
    // before its cursor, in the overlap.
    const late = fixture.sim.addEvents({ groupId: ids.project }, [
      alertingEvent(pushedAt - 10 * SECOND),
      alertingEvent(pushedAt - LAG - 20 * SECOND),
    ]);

    // Act
    fixture.clock.advance(5 * MINUTE);
    const next = await fixture.tick();

    // Assess
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 2 });
    await expectEachAlertOnce(fixture, [...pushed, ...late]);
  });
});
