import { describe, expect, it } from 'vitest';
import { compileOutsideHours, isKnownTimeZone, parseTimeOfDay } from '../../shared/rules/working-hours.js';

describe('compileOutsideHours', () => {
  const outside = compileOutsideHours({ start: '08:00', end: '19:00', time_zone: 'Europe/Paris' });

  it('holds before and after working hours on a working day, in the given zone', () => {
    // Monday 2024-03-18: Paris is UTC+1 in March.
    expect(outside('2024-03-18T06:59:00Z')).toBe(true);
    expect(outside('2024-03-18T07:00:00Z')).toBe(false);
    expect(outside('2024-03-18T17:59:00Z')).toBe(false);
    expect(outside('2024-03-18T18:00:00Z')).toBe(true);
  });

  it('follows daylight saving time', () => {
    // Monday 2024-07-01: Paris is UTC+2, so 06:30Z is 08:30 local.
    expect(outside('2024-07-01T06:30:00Z')).toBe(false);
  });

  it('holds all day on days off, using the local date', () => {
    expect(outside('2024-03-16T12:00:00Z')).toBe(true);
    // Sunday 23:30Z is Monday 00:30 in Paris: a working day, but before hours.
    expect(outside('2024-03-17T23:30:00Z')).toBe(true);
  });

  it('accepts given days and hours that span midnight', () => {
    const nightShift = compileOutsideHours({ start: '22:00', end: '06:00', time_zone: 'UTC', days: ['sat'] });

    expect(nightShift('2024-03-16T23:00:00Z')).toBe(false);
    expect(nightShift('2024-03-16T03:00:00Z')).toBe(false);
    expect(nightShift('2024-03-16T12:00:00Z')).toBe(true);
    expect(nightShift('2024-03-18T23:00:00Z')).toBe(true);
  });

  it('never holds for values that are not event times', () => {
    expect(outside('not a time')).toBe(false);
    expect(outside(undefined)).toBe(false);
  });
});

describe('parseTimeOfDay', () => {
  it('reads HH:MM and 24:00', () => {
    expect([parseTimeOfDay('00:00'), parseTimeOfDay('08:30'), parseTimeOfDay('24:00')]).toEqual([
      0, 510, 1440,
    ]);
  });

  it.each(['8:00', '24:01', '12:60', '1200'])('rejects %j', (text) => {
    expect(parseTimeOfDay(text)).toBeUndefined();
  });
});

describe('isKnownTimeZone', () => {
  it('knows IANA zones and refuses others', () => {
    expect([
      isKnownTimeZone('Europe/Paris'),
      isKnownTimeZone('UTC'),
      isKnownTimeZone('Mars/Olympus'),
    ]).toEqual([true, true, false]);
  });
});
