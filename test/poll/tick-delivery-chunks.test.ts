import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import { ALERTS_PER_CHUNK } from '../../shared/poll/alert-delivery.js';
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
/** Windows of one minute, no overlap and no lag: a walk of two minutes reads two windows. */
const MINUTE_WINDOWS = {
  sources: { projectIds: [ids.project] },
  timing: { maxWindowSeconds: 60, overlapSeconds: 0, lagSeconds: 0, initialLookbackSeconds: 0 },
};

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A fixture whose source has a cursor at the clock's now: the next tick reads from there. */
async function startedFixture(): Promise<PollFixture> {
  const started = await startPollFixture({ store: fileStoreFactory(), config: MINUTE_WINDOWS });
  await started.tick();
  started.notifier.calls.length = 0;
  started.notifier.delivered.length = 0;
  return started;
}

/** `count` alerting events, one a second from `from`. */
function alertingEvents(from: number, count: number): Array<AtlasEvent & { eventTypeName: string }> {
  return Array.from({ length: count }, (_, index) => alertingEvent(from + (index % 50) * SECOND));
}

/** Ids of `events` in the order the rules see them: by `created`, then `id`. */
function inEventOrder(events: readonly AtlasEvent[]): string[] {
  return [...events]
    .sort(
      (a, b) =>
        Date.parse(String(a.created)) - Date.parse(String(b.created)) ||
        String(a.id).localeCompare(String(b.id)),
    )
    .map((event) => String(event.id));
}

describe('runTick delivery of a window with many alerts', () => {
  it('publishes the alerts in chunks of at most 100, in event order, each once', async () => {
    // Prepare
    fixture = await startedFixture();
    const start = fixture.clock.now();
    fixture.clock.advance(MINUTE);
    const events = fixture.sim.addEvents({ groupId: ids.project }, alertingEvents(start + SECOND, 250));

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(ALERTS_PER_CHUNK).toBe(100);
    expect(outcomeOf(summary, PROJECT)).toMatchObject({ status: 'ok', eventsNew: 250, windowsCommitted: 1 });
    expect(fixture.notifier.calls).toEqual([100, 100, 50]);
    expect(fixture.notifier.eventIds()).toEqual(inEventOrder(events));
    await expectEachAlertOnce(fixture, events);
  });

  it("reads the next window's pages while the alerts of a window are still being published", async () => {
    // Prepare: the first window raises 250 alerts; the second holds 1,200 quiet events (3 pages).
    fixture = await startedFixture();
    const { sim, clock, notifier } = fixture;
    const start = clock.now();
    clock.advance(2 * MINUTE);
    const alerting = sim.addEvents({ groupId: ids.project }, alertingEvents(start + SECOND, 250));
    const quiet = sim.addEvents(
      { groupId: ids.project },
      Array.from({ length: 1_200 }, (_, index) =>
        quietEvent(start + MINUTE + SECOND + (index % 50) * SECOND),
      ),
    );
    let pagesAnswered = 0;
    let secondWindowRead: () => void = () => {};
    const secondWindowDone = new Promise<void>((resolve) => {
      secondWindowRead = resolve;
    });
    fixture.onRequest = (request) => {
      if (request.path !== EVENTS_PATH || request.status !== 200) return;
      pagesAnswered += 1;
      // One page for the first window, three for the second.
      if (pagesAnswered === 4) secondWindowRead();
    };
    const pagesAtPublish: number[] = [];
    notifier.beforeReturn = async () => {
      pagesAtPublish.push(pagesAnswered);
      // The first chunk is held until the second window is read to its end: a walk that read it only
      // after delivering the first window would never get there, and the test would time out.
      if (pagesAtPublish.length === 1) await secondWindowDone;
    };

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(outcomeOf(summary, PROJECT)).toMatchObject({
      status: 'ok',
      eventsNew: 1_450,
      windowsCommitted: 2,
      pagesRead: 4,
    });
    expect(notifier.calls).toEqual([100, 100, 50]);
    expect(pagesAtPublish[1]).toBe(4);
    await expectEachAlertOnce(fixture, [...alerting, ...quiet]);
  });

  it('claims no further chunk once the tick is stopped, and delivers the rest next tick, none twice', async () => {
    // Prepare
    fixture = await startedFixture();
    const { clock, notifier } = fixture;
    const start = clock.now();
    clock.advance(MINUTE);
    const events = fixture.sim.addEvents({ groupId: ids.project }, alertingEvents(start + SECOND, 250));
    const stop = new AbortController();
    notifier.beforeReturn = () => {
      if (notifier.calls.length === 1) stop.abort(new Error('stopped by the test'));
    };

    // Act
    const stopped = await fixture.tick({ signal: stop.signal });
    notifier.beforeReturn = undefined;
    const next = await fixture.tick();

    // Assess
    expect(outcomeOf(stopped, PROJECT)).toMatchObject({ status: 'cut-short', windowsCommitted: 0 });
    expect(outcomeOf(next, PROJECT)).toMatchObject({ status: 'ok', windowsCommitted: 1 });
    expect(notifier.calls).toEqual([100, 100, 50]);
    await expectEachAlertOnce(fixture, events);
  });
});
