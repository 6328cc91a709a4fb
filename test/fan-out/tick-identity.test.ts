import { describe, expect, it } from 'vitest';
import { tickIdentity } from '../../shared/fan-out/index.js';

const at = (iso: string): number => Date.parse(iso);

describe('tickIdentity', () => {
  it('names a scheduled run by its scheduled time rounded down to the period, whenever it is delivered', () => {
    const event = { scheduledTime: '2026-11-24T03:08:17Z' };

    const first = tickIdentity({ event, startedAt: at('2026-11-24T03:08:18.412Z'), periodSeconds: 300 });
    const late = tickIdentity({ event, startedAt: at('2026-11-24T03:14:02.001Z'), periodSeconds: 300 });

    expect(first).toEqual({ tickAt: at('2026-11-24T03:05:00Z'), from: 'schedule' });
    expect(late).toEqual(first);
  });

  it('gives consecutive scheduled runs different ticks', () => {
    const ticks = ['2026-11-24T03:08:17Z', '2026-11-24T03:13:17Z', '2026-11-24T03:18:17Z'].map(
      (scheduledTime) =>
        tickIdentity({ event: { scheduledTime }, startedAt: at(scheduledTime), periodSeconds: 300 }).tickAt,
    );

    expect(ticks.map((tick) => new Date(tick).toISOString())).toEqual([
      '2026-11-24T03:05:00.000Z',
      '2026-11-24T03:10:00.000Z',
      '2026-11-24T03:15:00.000Z',
    ]);
  });

  it('names an invocation without a scheduled time by its start, rounded down to the period', () => {
    const startedAt = at('2026-11-24T03:09:59.999Z');

    expect(tickIdentity({ event: {}, startedAt, periodSeconds: 60 })).toEqual({
      tickAt: at('2026-11-24T03:09:00Z'),
      from: 'start',
    });
  });

  it.each([
    ['no input', undefined],
    ['a list', ['2026-11-24T03:08:17Z']],
    ['the placeholder, not replaced', { scheduledTime: '<aws.scheduler.scheduled-time>' }],
    ['a time without a zone', { scheduledTime: '2026-11-24T03:08:17' }],
    ['an impossible time', { scheduledTime: '2026-11-24T25:08:17Z' }],
    ['a number', { scheduledTime: 1_795_000_000_000 }],
  ])('falls back to the start for %s', (_name, event) => {
    const startedAt = at('2026-11-24T04:00:30Z');

    expect(tickIdentity({ event, startedAt, periodSeconds: 300 })).toEqual({
      tickAt: at('2026-11-24T04:00:00Z'),
      from: 'start',
    });
  });
});
