import { describe, expect, it } from 'vitest';
import { RecentEventIds } from '../../shared/poll/recent-event-ids.js';
import { SeenIdSet } from '../../shared/state/index.js';

describe('RecentEventIds', () => {
  it('knows the cursor ids and the events recorded since, and keeps those inside the overlap', () => {
    // Prepare
    const recent = new RecentEventIds(SeenIdSet.from(['aaaaaaaaaaaaaaaaaaaaaaaa']));
    recent.addAll([
      { key: 'bbbbbbbbbbbbbbbbbbbbbbbb', time: 1_000 },
      { key: 'cccccccccccccccccccccccc', time: 5_000 },
    ]);

    // Act
    recent.forgetBefore(2_000);

    // Assess
    expect(recent.has('aaaaaaaaaaaaaaaaaaaaaaaa')).toBe(true);
    expect(recent.has('bbbbbbbbbbbbbbbbbbbbbbbb')).toBe(false);
    expect(recent.idsFrom(2_000)).toEqual(['cccccccccccccccccccccccc']);
    expect(recent.size).toBe(1);
  });
});
