import type { AtlasClient } from '../atlas/atlas-client.js';
import { MAX_ITEMS_PER_PAGE } from '../atlas/event-filter.js';
import { compareKeyedEvents, type KeyedEvent, keyEvent } from './event-order.js';
import type { PollSource } from './poll-source.js';
import type { RecentEventIds } from './recent-event-ids.js';
import type { CutShortReason } from './tick-types.js';
import { type EventWindow, shrinkWindow } from './window-math.js';

/** Options of {@link readWindow}. */
export interface ReadWindowOptions {
  atlas: AtlasClient;
  source: PollSource;
  window: EventWindow;
  /** What the walk processed already: those events are counted, not returned. */
  recent: RecentEventIds;
  /** Most events one window may hold before it is cut shorter. */
  maxEvents: number;
  /**
   * Events of the window already processed that Atlas counts in `totalCount` (the cursor's seen ids,
   * for the first window of a walk): subtracted before comparing the estimate with the bound.
   */
  knownInWindow: number;
  signal: AbortSignal;
  /** Asked before each page after the first: a reason stops the walk of the window. */
  stopReason: () => CutShortReason | undefined;
  /** Awaited before each page after the first (renews the lease when due). */
  beforeNextPage: () => Promise<void>;
  /** Told after each page. */
  onPage?: (progress: { pagesRead: number; eventsRead: number; totalCount: number | undefined }) => void;
}

/** What reading one window gave. */
export type WindowRead =
  | {
      kind: 'read';
      /** Events not processed before, in (`created`, `id`) order. */
      fresh: KeyedEvent[];
      /** Every distinct event the window listed (processed before or not), for the seen ids. */
      listed: Array<{ key: string; time: number }>;
      pagesRead: number;
      /** Events Atlas returned, repeats across pages included. */
      eventsFetched: number;
    }
  | {
      /** The window holds more events than the bound: read `shorter` instead. */
      kind: 'too-many';
      shorter: EventWindow;
      pagesRead: number;
      eventsFetched: number;
    }
  | { kind: 'cut-short'; reason: CutShortReason; pagesRead: number; eventsFetched: number };

/**
 * Reads every page of one window (`minDate` and `maxDate` fixed for the whole walk, 500 events a
 * page), keeping each event once: offset pages shift when Atlas adds an event while they are walked,
 * so an event may come twice. Nothing is recorded in `recent` here: a window given up on (cut short,
 * or too crowded) must not make its events look processed.
 *
 * A window is given up on as soon as it is known to hold more than `maxEvents` not yet processed:
 * from Atlas's `totalCount` on the first page, or by counting while reading when the estimate was
 * wrong or absent. A window of one second is read whatever it holds.
 *
 * @throws The Atlas client's errors (AtlasForbiddenError, AtlasNotFoundError, AtlasRateLimitError after
 *   its retries...), and the signal's reason when it aborts.
 *
 * @example
 * ```ts
 * const read = await readWindow({ atlas, source, window, recent, maxEvents: 20_000, knownInWindow: 0,
 *   signal, stopReason: () => budget.stopReason(), beforeNextPage: keepLease });
 * ```
 */
export async function readWindow(options: ReadWindowOptions): Promise<WindowRead> {
  const { atlas, source, window, recent, maxEvents, signal } = options;
  const filter = {
    minDate: new Date(window.from),
    maxDate: new Date(window.to),
    itemsPerPage: MAX_ITEMS_PER_PAGE,
    signal,
  };
  const list =
    source.kind === 'org'
      ? atlas.listOrgEvents(source.id, filter)
      : atlas.listProjectEvents(source.id, filter);
  // Only events not processed before are held whole; the others only as id and time.
  const listed = new Map<string, number>();
  const fresh = new Map<string, KeyedEvent>();
  let pagesRead = 0;
  let eventsFetched = 0;
  const pages = list.pages();
  try {
    for (;;) {
      if (pagesRead > 0) {
        const reason = options.stopReason();
        if (reason !== undefined) return { kind: 'cut-short', reason, pagesRead, eventsFetched };
        await options.beforeNextPage();
      }
      const next = await pages.next();
      if (next.done === true) break;
      const page = next.value;
      pagesRead += 1;
      eventsFetched += page.items.length;
      for (const event of page.items) {
        const keyed = keyEvent(event, window.to);
        if (listed.has(keyed.key)) continue;
        listed.set(keyed.key, keyed.time);
        if (!recent.has(keyed.key)) fresh.set(keyed.key, keyed);
      }
      options.onPage?.({ pagesRead, eventsRead: listed.size, totalCount: page.totalCount });
      if (!page.hasNext) break;
      const estimate =
        pagesRead === 1 && page.totalCount !== undefined ? page.totalCount - options.knownInWindow : 0;
      const shorter = shrinkWindow({ window, events: Math.max(estimate, fresh.size), maxEvents });
      if (shorter !== undefined) return { kind: 'too-many', shorter, pagesRead, eventsFetched };
    }
  } finally {
    await pages.return(undefined);
  }
  return {
    kind: 'read',
    fresh: [...fresh.values()].sort(compareKeyedEvents),
    listed: Array.from(listed, ([key, time]) => ({ key, time })),
    pagesRead,
    eventsFetched,
  };
}
