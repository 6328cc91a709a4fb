import { describe, expect, it } from 'vitest';
import { EventLog, type StoredEvent } from '../../simulator/event-log.js';

function stored(id: string, created: string): StoredEvent {
  return {
    id,
    createdMs: Date.parse(created),
    eventTypeName: 'HOST_UP',
    clusterName: undefined,
    body: { id, created, eventTypeName: 'HOST_UP' },
    raw: undefined,
  };
}

function ids(log: EventLog): string[] {
  return Array.from({ length: log.size }, (_, i) => log.at(i)?.id ?? '');
}

const events = [
  stored('a1', '2026-03-01T10:00:00Z'),
  stored('b2', '2026-03-01T10:00:05Z'),
  stored('c3', '2026-03-01T10:00:05Z'),
  stored('d4', '2026-03-01T09:59:59Z'),
  stored('e5', '2026-03-01T10:00:10Z'),
];

describe('EventLog', () => {
  it('lists newest first, and the greater id first among equal times', () => {
    const log = new EventLog();

    log.insert(events);

    expect(ids(log)).toEqual(['e5', 'c3', 'b2', 'a1', 'd4']);
  });

  it('keeps the same order whether events arrive one by one or in bulk', () => {
    const bulk = new EventLog();
    const single = new EventLog();
    const many = Array.from({ length: 200 }, (_, i) =>
      stored(`id${String((i * 37) % 200).padStart(3, '0')}`, `2026-03-01T10:0${i % 10}:00Z`),
    );

    bulk.insert(many);
    for (const event of many) single.insert([event]);

    expect(ids(single)).toEqual(ids(bulk));
  });

  it('places a late event among older ones', () => {
    const log = new EventLog();
    log.insert(events);

    log.insert([stored('late', '2026-03-01T10:00:01Z')]);

    expect(ids(log)).toEqual(['e5', 'c3', 'b2', 'late', 'a1', 'd4']);
  });

  it('finds a window with both bounds inclusive', () => {
    const log = new EventLog();
    log.insert(events);

    const { start, end } = log.window(Date.parse('2026-03-01T10:00:00Z'), Date.parse('2026-03-01T10:00:05Z'));

    expect(ids(log).slice(start, end)).toEqual(['c3', 'b2', 'a1']);
  });

  it('finds open-ended and empty windows', () => {
    const log = new EventLog();
    log.insert(events);

    const open = log.window(undefined, undefined);
    const inverted = log.window(Date.parse('2026-03-01T11:00:00Z'), Date.parse('2026-03-01T09:00:00Z'));

    expect(open).toEqual({ start: 0, end: 5 });
    expect(inverted.end - inverted.start).toBe(0);
  });

  it('finds events by id', () => {
    const log = new EventLog();
    log.insert(events);

    const found = [log.get('c3')?.id, log.get('zz'), log.has('a1')];

    expect(found).toEqual(['c3', undefined, true]);
  });
});
