import type { AtlasEvent } from '../shared/atlas/types.js';

/** One event as the simulator keeps it. The body is never changed after it is stored. */
export interface StoredEvent {
  readonly id: string;
  readonly createdMs: number;
  readonly eventTypeName: string;
  readonly clusterName: string | undefined;
  /** The event as served, without `links` and without `raw`. */
  readonly body: Readonly<AtlasEvent>;
  /** The `raw` document the seed or the caller gave, if any. */
  readonly raw: Readonly<Record<string, unknown>> | undefined;
  /** The encoded JSON last served for this event (its `self` link under `base`), kept for reuse. */
  served?: { readonly base: string; readonly json: Buffer };
}

/** Whether `a` is listed after `b`: newest first, and among equal times the greater id first. */
function isAfter(a: StoredEvent, b: StoredEvent): boolean {
  return a.createdMs < b.createdMs || (a.createdMs === b.createdMs && a.id < b.id);
}

function compare(a: StoredEvent, b: StoredEvent): number {
  if (a.createdMs !== b.createdMs) return b.createdMs - a.createdMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The first index in `[0, length)` where `predicate` holds, for a predicate false then true. */
export function firstIndex(length: number, predicate: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (predicate(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * The events of one project or organization, kept in the order the API lists them: newest `created`
 * first, and among events of the same instant the greater id first (a later ObjectId first). A date
 * window is two binary searches and a page is a slice, so a query costs the same with 100 events or
 * 100,000.
 */
export class EventLog {
  private readonly items: StoredEvent[] = [];
  private readonly byId = new Map<string, StoredEvent>();
  private readonly types = new Set<string>();

  /** How many events the log holds. */
  get size(): number {
    return this.items.length;
  }

  /** Whether an event with this id is stored. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Whether some stored event has this `eventTypeName`. */
  hasType(eventTypeName: string): boolean {
    return this.types.has(eventTypeName);
  }

  /** The event with this id, if stored. */
  get(id: string): StoredEvent | undefined {
    return this.byId.get(id);
  }

  /** The event at a position of the listing order. */
  at(index: number): StoredEvent | undefined {
    return this.items[index];
  }

  /** Stores events whose ids the caller has checked are new: one by one when few, else sorted once. */
  insert(events: readonly StoredEvent[]): void {
    for (const event of events) {
      this.byId.set(event.id, event);
      this.types.add(event.eventTypeName);
    }
    if (events.length < 64) {
      for (const event of events) {
        const index = firstIndex(this.items.length, (i) => isAfter(this.items[i] as StoredEvent, event));
        this.items.splice(index, 0, event);
      }
      return;
    }
    for (const event of events) this.items.push(event);
    this.items.sort(compare);
  }

  /**
   * The positions `[start, end)` of the events with `minMs <= created <= maxMs` (both bounds
   * inclusive, either may be absent).
   */
  window(minMs: number | undefined, maxMs: number | undefined): { start: number; end: number } {
    const items = this.items;
    const start =
      maxMs === undefined ? 0 : firstIndex(items.length, (i) => (items[i] as StoredEvent).createdMs <= maxMs);
    const end =
      minMs === undefined
        ? items.length
        : firstIndex(items.length, (i) => (items[i] as StoredEvent).createdMs < minMs);
    return { start, end: Math.max(start, end) };
  }
}
