import { describe, expect, it } from 'vitest';
import { parseServerDate } from '../../shared/atlas/index.js';

describe('parseServerDate', () => {
  it('reads an IMF-fixdate', () => {
    expect(parseServerDate('Sun, 06 Nov 1994 08:49:37 GMT')?.toISOString()).toBe('1994-11-06T08:49:37.000Z');
  });

  it('reads the header Node itself sends', () => {
    const now = new Date('2026-02-28T23:59:59Z');
    expect(parseServerDate(now.toUTCString())?.getTime()).toBe(now.getTime());
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'yesterday'],
    ['RFC 850 form', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime form', 'Sun Nov  6 08:49:37 1994'],
    ['a zone other than GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['a day that does not exist', 'Thu, 31 Feb 2026 10:00:00 GMT'],
    ['an hour past 23', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['a weekday that does not match', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['an ISO-8601 date', '1994-11-06T08:49:37Z'],
  ])('gives undefined for %s', (_name, value) => {
    expect(parseServerDate(value)).toBeUndefined();
  });
});
