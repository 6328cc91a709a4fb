import { describe, expect, it } from 'vitest';
import { DAY_MS, firstSeenTtlSeconds, isExpired, nowSeconds, ttlSeconds } from '../../shared/state/expiry.js';

describe('ttlSeconds', () => {
  it('rounds up to the next whole second, and keeps a whole second', () => {
    // Act
    const values = [ttlSeconds(1_001), ttlSeconds(1_999), ttlSeconds(2_000)];

    // Assess
    expect(values).toEqual([2, 2, 2]);
  });
});

describe('nowSeconds', () => {
  it('rounds down to the whole second', () => {
    // Act
    const values = [nowSeconds(1_999), nowSeconds(2_000)];

    // Assess
    expect(values).toEqual([1, 2]);
  });
});

describe('isExpired', () => {
  it('counts an item as absent from the second its TTL names', () => {
    // Act
    const verdicts = [isExpired(2, 1_999), isExpired(2, 2_000), isExpired(2, 2_999), isExpired(3, 2_999)];

    // Assess
    expect(verdicts).toEqual([false, true, true, false]);
  });

  it('never expires an item without a TTL', () => {
    // Act
    const expired = isExpired(undefined, Number.MAX_SAFE_INTEGER);

    // Assess
    expect(expired).toBe(false);
  });

  it('keeps an item whose TTL a day from now was set with ttlSeconds until that moment', () => {
    // Prepare
    const now = 1_700_000_000_123;
    const expiresAt = ttlSeconds(now + DAY_MS);

    // Act
    const verdicts = [isExpired(expiresAt, now + DAY_MS - 1), isExpired(expiresAt, now + DAY_MS + 1_000)];

    // Assess
    expect(DAY_MS).toBe(86_400_000);
    expect(verdicts).toEqual([false, true]);
  });
});

describe('firstSeenTtlSeconds', () => {
  const wallNow = 1_700_000_000_000;

  it('keeps a record until its expiry when that is more than a day away on the wall clock', () => {
    // Act
    const ttl = firstSeenTtlSeconds(wallNow + 30 * DAY_MS + 1, wallNow);

    // Assess
    expect(ttl).toBe(Math.ceil((wallNow + 30 * DAY_MS + 1) / 1000));
  });

  it('keeps a record a day from the wall clock when its expiry on the engine clock is sooner or past', () => {
    // Act
    const ttls = [
      firstSeenTtlSeconds(wallNow - 365 * DAY_MS, wallNow),
      firstSeenTtlSeconds(wallNow + DAY_MS - 1, wallNow),
      firstSeenTtlSeconds(wallNow + DAY_MS, wallNow),
    ];

    // Assess
    expect(ttls).toEqual([(wallNow + DAY_MS) / 1000, (wallNow + DAY_MS) / 1000, (wallNow + DAY_MS) / 1000]);
  });

  it('gives a record that never expires (a learning start) no TTL, and one just short of never a TTL', () => {
    // Act
    const never = firstSeenTtlSeconds(Number.MAX_SAFE_INTEGER, wallNow);
    const almost = firstSeenTtlSeconds(Number.MAX_SAFE_INTEGER - 1, wallNow);

    // Assess
    expect(never).toBeUndefined();
    expect(almost).toBe(Math.ceil((Number.MAX_SAFE_INTEGER - 1) / 1000));
  });
});
