import { describe, expect, it } from 'vitest';
import { compareKeyedEvents, eventKey, keyEvent } from '../../shared/poll/event-order.js';

describe('compareKeyedEvents and keyEvent', () => {
  it('sorts by created, then by id, whatever order Atlas listed', () => {
    // Prepare
    const events = [
      { id: 'b0000000000000000000000b', created: '2025-06-02T11:00:01Z' },
      { id: 'c0000000000000000000000c', created: '2025-06-02T11:00:00Z' },
      { id: 'a0000000000000000000000a', created: '2025-06-02T11:00:01Z' },
    ].map((event) => keyEvent(event, 0));

    // Act
    const ids = events.sort(compareKeyedEvents).map((keyed) => keyed.key);

    // Assess
    expect(ids).toEqual(['c0000000000000000000000c', 'a0000000000000000000000a', 'b0000000000000000000000b']);
  });

  it('places an event without a readable time at the end of its window, and keys one without an id by content', () => {
    // Act
    const keyed = keyEvent({ eventTypeName: 'HOST_UP', created: 'yesterday' }, 42_000);

    // Assess
    expect(keyed.time).toBe(42_000);
    expect(keyed.key).toBe(eventKey({ eventTypeName: 'HOST_UP', created: 'yesterday' }));
    expect(keyed.key).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
