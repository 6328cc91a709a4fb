import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { compareKeyedEvents, eventKey, keyEvent } from '../../shared/poll/event-order.js';

describe('eventKey', () => {
  it('keys an event by its id, and one with an empty or non-text id by its content', () => {
    // Prepare
    const empty = { id: '', eventTypeName: 'A' } as unknown as AtlasEvent;
    const numeric = { id: 7, eventTypeName: 'A' } as unknown as AtlasEvent;

    // Act
    const keys = [eventKey({ id: 'abc' } as AtlasEvent), eventKey(empty), eventKey(numeric)];

    // Assess
    expect(keys[0]).toBe('abc');
    expect(keys[1]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(keys[2]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(keys[1]).not.toBe(keys[2]);
    expect(eventKey({ ...empty })).toBe(keys[1]);
  });
});

describe('compareKeyedEvents', () => {
  it('orders by time, then by key, and finds an event equal to itself', () => {
    // Prepare
    const early = keyEvent({ id: 'b', created: '2026-11-22T06:00:00Z' } as AtlasEvent, 0);
    const lateA = keyEvent({ id: 'a', created: '2026-11-22T06:00:01Z' } as AtlasEvent, 0);
    const lateB = keyEvent({ id: 'b', created: '2026-11-22T06:00:01Z' } as AtlasEvent, 0);

    // Act
    const results = [
      Math.sign(compareKeyedEvents(early, lateA)),
      Math.sign(compareKeyedEvents(lateA, early)),
      Math.sign(compareKeyedEvents(lateA, lateB)),
      Math.sign(compareKeyedEvents(lateB, lateA)),
      compareKeyedEvents(lateB, { ...lateB }),
    ];

    // Assess
    expect(results).toEqual([-1, 1, -1, 1, 0]);
  });
});
