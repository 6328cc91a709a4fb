import { describe, expect, it } from 'vitest';
import { orderReplayEvents } from '../../cli/replay-events.js';
import type { AtlasEvent } from '../../shared/atlas/index.js';

describe('orderReplayEvents', () => {
  it('orders by created, then id, with unreadable times last', () => {
    const events: AtlasEvent[] = [
      { id: 'c', created: '2024-05-01T12:00:02Z' },
      { id: 'no-time', created: 'yesterday' },
      { id: 'b', created: '2024-05-01T12:00:01Z' },
      { id: 'a', created: '2024-05-01T14:00:01+02:00' },
    ];

    const ordered = orderReplayEvents(events);

    expect(ordered.events.map((event) => event.id)).toEqual(['a', 'b', 'c', 'no-time']);
    expect(ordered.duplicates).toBe(0);
  });

  it('keeps the first event of each id, and tells apart events without one by their content', () => {
    const events: AtlasEvent[] = [
      { id: 'a', created: '2024-05-01T12:00:00Z', username: 'first' },
      { created: '2024-05-01T12:00:01Z', username: 'anonymous' },
      { id: 'a', created: '2024-05-01T12:00:00Z', username: 'second' },
      { created: '2024-05-01T12:00:01Z', username: 'anonymous' },
      { created: '2024-05-01T12:00:01Z', username: 'someone else' },
    ];

    const ordered = orderReplayEvents(events);

    expect(ordered.events.map((event) => event.username)).toEqual(
      expect.arrayContaining(['first', 'anonymous', 'someone else']),
    );
    expect(ordered.events).toHaveLength(3);
    expect(ordered.duplicates).toBe(2);
  });
});
