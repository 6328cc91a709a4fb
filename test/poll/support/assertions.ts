import { expect } from 'vitest';
import type { AtlasEvent } from '../../../shared/atlas/index.js';
import type { SourceOutcome, TickSummary } from '../../../shared/poll/index.js';
import type { PollFixture } from './poll-fixture.js';

/** Every alert a perfect run raises on `events` was delivered, and none twice. */
export async function expectEachAlertOnce(
  fixture: PollFixture,
  events: readonly AtlasEvent[],
): Promise<void> {
  const delivered = fixture.notifier.fingerprints();
  expect(new Set(delivered).size, 'an alert was delivered twice').toBe(delivered.length);
  expect([...delivered].sort()).toEqual(await fixture.expectedFingerprints(events));
}

/** The outcome of one source of a tick. */
export function outcomeOf(summary: TickSummary, source: string): SourceOutcome {
  const outcome = summary.sources.find((candidate) => candidate.source === source);
  if (outcome === undefined) throw new Error(`no outcome for ${source}`);
  return outcome;
}
