import { describe, expect, it } from 'vitest';
import { RecentEventIds } from '../../shared/poll/recent-event-ids.js';
import { SeenIdSet } from '../../shared/state/seen-id-set.js';

const A = '000000000000000000000001';
const B = '000000000000000000000002';

describe('RecentEventIds bounds', () => {
  it('keeps an event created exactly at the floor among the seen ids, since the next walk reads that instant', () => {
    // Prepare
    const recent = new RecentEventIds(undefined);
    recent.addAll([
      { key: A, time: 9_999 },
      { key: B, time: 10_000 },
    ]);

    // Act
    const ids = recent.idsFrom(10_000);

    // Assess
    expect(ids).toEqual([B]);
  });

  it('forgets only what lies strictly before the floor', () => {
    // Prepare
    const recent = new RecentEventIds(undefined);
    recent.addAll([
      { key: A, time: 9_999 },
      { key: B, time: 10_000 },
    ]);

    // Act
    recent.forgetBefore(10_000);

    // Assess
    expect([recent.size, recent.has(A), recent.has(B)]).toEqual([1, false, true]);
  });

  it('keeps the latest time of an id read twice, whichever order the windows came in', () => {
    // Prepare
    const later = new RecentEventIds(undefined);
    const earlier = new RecentEventIds(undefined);

    // Act
    later.addAll([{ key: A, time: 5_000 }]);
    later.addAll([{ key: A, time: 12_000 }]);
    earlier.addAll([{ key: A, time: 12_000 }]);
    earlier.addAll([{ key: A, time: 5_000 }]);

    // Assess
    expect(later.idsFrom(10_000)).toEqual([A]);
    expect(earlier.idsFrom(10_000)).toEqual([A]);
    expect(later.size).toBe(1);
  });

  it('knows the ids of the cursor it started from, and none without one', () => {
    // Prepare
    const fromCursor = new RecentEventIds(SeenIdSet.from([A]));
    const fresh = new RecentEventIds(undefined);

    // Act
    const known = [fromCursor.has(A), fromCursor.has(B), fresh.has(A)];

    // Assess
    expect(known).toEqual([true, false, false]);
    expect(fromCursor.size).toBe(0);
  });
});
