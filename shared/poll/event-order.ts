import { createHash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import { parseEventTime } from '../rules/event-time.js';

/**
 * The identity a tick records an event under: its `id`, or for an event without one (never seen
 * from Atlas, but a tick must not drop it) a hash of its content.
 *
 * @example
 * ```ts
 * eventKey({ id: '65f8a1b2c3d4e5f6a7b8c9d0' }); // '65f8a1b2c3d4e5f6a7b8c9d0'
 * ```
 */
export function eventKey(event: AtlasEvent): string {
  const id = event.id;
  if (typeof id === 'string' && id !== '') return id;
  return `sha256:${createHash('sha256').update(JSON.stringify(event)).digest('hex')}`;
}

/** An event with the time and identity it is ordered and recorded by. */
export interface KeyedEvent {
  event: AtlasEvent;
  key: string;
  /** `created` in milliseconds since the epoch; an unreadable one is placed at the window's end. */
  time: number;
}

/**
 * Attaches the ordering keys to an event read in a window ending at `windowEnd`.
 *
 * @example
 * ```ts
 * keyEvent(event, window.to).time;
 * ```
 */
export function keyEvent(event: AtlasEvent, windowEnd: number): KeyedEvent {
  return { event, key: eventKey(event), time: parseEventTime(event.created) ?? windowEnd };
}

/**
 * Orders events by (`created`, `id`): the order the rules see them in, whatever order Atlas listed
 * them in (newest first, with no promise).
 *
 * @example
 * ```ts
 * events.sort(compareKeyedEvents);
 * ```
 */
export function compareKeyedEvents(a: KeyedEvent, b: KeyedEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
