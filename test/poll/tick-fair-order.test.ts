import { afterEach, describe, expect, it } from 'vitest';
import type { SeedData } from '../../simulator/index.js';
import { ids, MINUTE, type PollFixture, pollSeed, SECOND, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

/** Time each read of a project's events takes on the test clock: the tick's deadline counts them. */
const READ_MS = SECOND;
const MARGIN_SECONDS = 20;
/** Sources polled at once: the file store writes the changes of all of them in one go. */
const CONCURRENCY = 32;

/** `count` projects of the poller's organization, with ids that sort in configuration order. */
function manyProjects(count: number): { seed: SeedData; projectIds: string[] } {
  const base = pollSeed();
  const projectIds = Array.from(
    { length: count },
    (_, index) => `6650a1b2c3d4e5f6${(0x10000000 + index).toString(16).padStart(8, '0')}`,
  );
  return {
    seed: {
      ...base,
      projects: projectIds.map((id, index) => ({ id, name: `project-${index}`, orgId: ids.org })),
    },
    projectIds,
  };
}

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('the order of sources in a tick with the $name', (kind) => {
  // DynamoDB Local answers one request at a time: a tenth of the sources keeps the suite fast while
  // still reading the times in several batches of 100.
  const sourceCount = kind.name === 'file store' ? 3_000 : 300;

  it(`polls each of ${sourceCount} sources within 4 ticks when a deadline fits a third of them`, async () => {
    // Prepare: each events read takes a second of a deadline that leaves room for a third of them.
    const { seed, projectIds } = manyProjects(sourceCount);
    fixture = await startPollFixture({
      store: kind.factory,
      seed,
      config: {
        sources: { projectIds },
        concurrency: CONCURRENCY,
        timing: { deadlineMarginSeconds: MARGIN_SECONDS, initialLookbackSeconds: 0 },
      },
    });
    const { clock } = fixture;
    fixture.onRequest = (request) => {
      if (request.path.endsWith('/events') && request.status === 200) clock.advance(READ_MS);
    };
    const third = Math.floor(sourceCount / 3);

    // Act
    const polledPerTick: string[][] = [];
    for (let tick = 0; tick < 4; tick += 1) {
      const summary = await fixture.tick({
        deadline: clock.now() + MARGIN_SECONDS * SECOND + third * READ_MS,
      });
      polledPerTick.push(
        summary.sources.filter((source) => source.status === 'ok').map((source) => source.source),
      );
      clock.advance(5 * MINUTE);
    }

    // Assess: each tick polls about a third (a few more start while the last reads are in flight),
    // and together the ticks reach every source.
    for (const polled of polledPerTick) {
      expect(polled.length).toBeGreaterThanOrEqual(third - CONCURRENCY);
      expect(polled.length).toBeLessThanOrEqual(third + CONCURRENCY);
    }
    const reached = new Set(polledPerTick.flat());
    expect(projectIds.filter((id) => !reached.has(`project:${id}`))).toEqual([]);
  }, 120_000);

  it('reports the lag of the oldest source, polled this tick or not', async () => {
    // Prepare: three sources all polled once; then a tick whose deadline fits only one.
    const { seed, projectIds } = manyProjects(3);
    fixture = await startPollFixture({
      store: kind.factory,
      seed,
      config: {
        sources: { projectIds },
        concurrency: 1,
        timing: { deadlineMarginSeconds: MARGIN_SECONDS, initialLookbackSeconds: 0, lagSeconds: 30 },
      },
    });
    const { clock } = fixture;
    await fixture.tick();
    clock.advance(10 * MINUTE);
    fixture.onRequest = (request) => {
      if (request.path.endsWith('/events') && request.status === 200) clock.advance(READ_MS);
    };

    // Act
    const summary = await fixture.tick({ deadline: clock.now() + MARGIN_SECONDS * SECOND + READ_MS / 2 });

    // Assess: one source polled (lag 30 s); the two left behind are 10 minutes and 30 s behind.
    expect(summary.sources.filter((source) => source.status === 'ok')).toHaveLength(1);
    expect(summary.totals.watermarkLagSeconds).toBe(31);
    expect(summary.totals.oldestSourceLagSeconds).toBe(10 * 60 + 31);
  });
});
