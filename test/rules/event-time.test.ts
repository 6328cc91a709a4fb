import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../shared/rules/duration.js';
import { parseEventTime } from '../../shared/rules/event-time.js';

describe('parseEventTime', () => {
  it.each([
    ['2024-03-18T14:40:03Z', Date.UTC(2024, 2, 18, 14, 40, 3)],
    ['2024-03-18T14:40:03.123Z', Date.UTC(2024, 2, 18, 14, 40, 3, 123)],
    ['2024-03-18T16:40:03+02:00', Date.UTC(2024, 2, 18, 14, 40, 3)],
    ['2024-03-18T09:40:03-0500', Date.UTC(2024, 2, 18, 14, 40, 3)],
    ['2024-04-03 11:13:04.000000000', Date.UTC(2024, 3, 3, 11, 13, 4)],
    ['2023-06-14 15:47:15', Date.UTC(2023, 5, 14, 15, 47, 15)],
    ['2024-02-29T23:59:59Z', Date.UTC(2024, 1, 29, 23, 59, 59)],
    ['2000-02-29T00:00:00.500Z', Date.UTC(2000, 1, 29, 0, 0, 0, 500)],
  ])('reads %j', (text, expected) => {
    expect(parseEventTime(text)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2024-02-30T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '1969-12-31T23:59:59Z',
    1710772803000,
  ])('rejects %j', (value) => {
    expect(parseEventTime(value)).toBeUndefined();
  });
});

describe('parseEventTime within one hour', () => {
  it('reads each time of an hour it has read before in full, and refuses what is no time', () => {
    const first = parseEventTime('2024-03-18T14:40:03Z');

    const later = [
      '2024-03-18T14:00:00Z',
      '2024-03-18T14:59:59.999Z',
      '2024-03-18T14:41:07.020Z',
      '2024-03-18T14:60:00Z',
      '2024-03-18T14:05:61Z',
      '2024-03-18T14:4x:00Z',
      '2024-03-18T15:00:00Z',
      '2024-03-18T14:30:00Z',
    ].map(parseEventTime);

    expect(first).toBe(Date.UTC(2024, 2, 18, 14, 40, 3));
    expect(later).toEqual([
      Date.UTC(2024, 2, 18, 14, 0, 0),
      Date.UTC(2024, 2, 18, 14, 59, 59, 999),
      Date.UTC(2024, 2, 18, 14, 41, 7, 20),
      undefined,
      undefined,
      undefined,
      Date.UTC(2024, 2, 18, 15, 0, 0),
      Date.UTC(2024, 2, 18, 14, 30, 0),
    ]);
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['7d', 604_800_000],
    ['1d2h3m4s', 93_784_000],
  ])('reads %j', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each(['', '10', '0m', '1m1h', '10 minutes', '367d'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
