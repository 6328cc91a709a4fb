import { describe, expect, it } from 'vitest';
import { DiscoveryCache } from '../../shared/poll/index.js';

describe('DiscoveryCache', () => {
  it('hands out a list while it is fresh, and the last one however old', () => {
    // Prepare
    const cache = new DiscoveryCache({ ttlMs: 60_000 });
    cache.remember('org1', { ids: ['p1', 'p2'], listedAt: 0 });

    // Act
    const fresh = cache.fresh('org1', 59_999);
    const stale = cache.fresh('org1', 60_000);
    const last = cache.last('org1');

    // Assess
    expect(fresh?.ids).toEqual(['p1', 'p2']);
    expect(stale).toBeUndefined();
    expect(last?.ids).toEqual(['p1', 'p2']);
  });

  it('rejects a negative time to live', () => {
    // Act
    const create = () => new DiscoveryCache({ ttlMs: -1 });

    // Assess
    expect(create).toThrow(/ttlMs must be a non-negative number/);
  });
});
