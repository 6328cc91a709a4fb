import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
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
/** Atlas's clock runs this far behind the poller's: more than the overlap (15 minutes) minus the lag. */
const ATLAS_BEHIND_MS = 20 * MINUTE;
const config = { sources: { projectIds: [ids.project] }, timing: { initialLookbackSeconds: 3_600 } };

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('a poller whose clock runs 20 minutes ahead of Atlas, with the $name', (kind) => {
  it('loses no event across several ticks, and reports the skew', async () => {
    // Prepare: Atlas stamps events and its Date header on a clock 20 minutes behind the poller's.
    fixture = await startPollFixture({ store: kind.factory, config, atlasClockOffsetMs: -ATLAS_BEHIND_MS });
    const { sim, clock } = fixture;
    const atlasNow = (): number => clock.now() - ATLAS_BEHIND_MS;
    const events: AtlasEvent[] = [];
    const summaries = [];

    // Act: each minute, events Atlas writes just now and a few seconds ago, then a tick.
    for (let tick = 0; tick < 5; tick += 1) {
      events.push(sim.addEvent({ groupId: ids.project }, alertingEvent(atlasNow() - 5 * SECOND)));
      events.push(sim.addEvent({ groupId: ids.project }, alertingEvent(atlasNow())));
      summaries.push(await fixture.tick());
      clock.advance(MINUTE);
    }
    summaries.push(await fixture.tick());

    // Assess
    for (const summary of summaries) expect(outcomeOf(summary, PROJECT).status).toBe('ok');
    await expectEachAlertOnce(fixture, events);
    expect(summaries.at(-1)?.totals.atlasClockSkewSeconds).toBe(ATLAS_BEHIND_MS / SECOND);
    const last = summaries.at(-1);
    expect(last && outcomeOf(last, PROJECT).watermark).toBeLessThanOrEqual(atlasNow());
  });
});
