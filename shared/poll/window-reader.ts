import { MAX_ITEMS_PER_PAGE } from '../atlas/event-filter.js';
import type { AtlasEvent } from '../atlas/types.js';
import type { EventReservation } from './event-budget.js';
import { compareKeyedEvents, type KeyedEvent, keyEvent } from './event-order.js';
import type { RecentEventIds } from './recent-event-ids.js';
import type { SourceReader } from './source-reader.js';
import type { CutShortReason } from './tick-types.js';
import { type EventWindow, shrinkWindow } from './window-math.js';

/** Options of {@link readWindow}. */
export interface ReadWindowOptions {
  /** How the source's kind reads a window (`sourceReader`). */
  reader: SourceReader;
  window: EventWindow;
  /** What the walk processed already: those events are counted, not returned. */
  recent: RecentEventIds;
  /**
   * Events listed by the window before this one, whose evaluation may still be under way (the next
   * window is read meanwhile): they are not new either.
   */
  previous?: ReadonlySet<string> | undefined;
  /** Most events one window may hold before it is cut shorter. */
  maxEvents: number;
  /**
   * The window's share of the tick's event budget: a page is fetched only when the events it may
   * bring fit (500, or fewer when Atlas's `totalCount` says fewer are left), and keeps counted those
   * it holds. Cleared unless the window is read to its end.
   */
  reservation: EventReservation;
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
  /**
   * Whether a new event must be held whole until the window is evaluated (the rule engine's
   * `mayAlert`). The others raise nothing whatever the rest of the window holds, so they are kept as
   * a time alone, for the count of new events. Default: every event is held whole.
   */
  holdWhole?: (event: unknown) => boolean;
  /** Told after each page. */
  onPage?: (progress: { pagesRead: number; eventsRead: number; totalCount: number | undefined }) => void;
}

/** What reading one window gave. */
export type WindowRead =
  | {
      kind: 'read';
      /** Events not processed before that some rule may alert on, in (`created`, `id`) order. */
      fresh: KeyedEvent[];
      /** The times of the events not processed before that no rule can alert on, in no order. */
      passed: number[];
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
  | {
      /**
       * The window is one second long (it cannot be cut shorter) and holds more new events than its
       * reservation's limit: widen the reservation and read it again, or give up when it was widened.
       */
      kind: 'over-budget';
      /** New events held when the next page no longer fit. */
      held: number;
      pagesRead: number;
      eventsFetched: number;
    }
  | { kind: 'cut-short'; reason: CutShortReason; pagesRead: number; eventsFetched: number };

/**
 * A window whose answer stopped at the most items asked for (the newest ones): read shorter, sized
 * from the density of the span the answer covered, or `over-budget` when it is one second long.
 */
function cutAfterFullAnswer(
  window: EventWindow,
  items: readonly AtlasEvent[],
  maxEvents: number,
  pagesRead: number,
  eventsFetched: number,
): WindowRead {
  let oldest = window.to;
  for (const event of items) oldest = Math.min(oldest, keyEvent(event, window.to).time);
  const covered = Math.max(1, window.to - Math.max(window.from, oldest));
  const events = Math.max(maxEvents + 1, Math.ceil((items.length * (window.to - window.from)) / covered));
  const shorter = shrinkWindow({ window, events, maxEvents });
  if (shorter !== undefined) return { kind: 'too-many', shorter, pagesRead, eventsFetched };
  return { kind: 'over-budget', held: items.length, pagesRead, eventsFetched };
}

/**
 * The most new events a window may hold: `maxEvents` within its reservation's share, or the whole
 * share of a widened reservation (a second that cannot be cut shorter).
 *
 * @example
 * ```ts
 * windowEventBound(20_000, reservation); // 1785 with the share of a 256 MB function at 4 sources
 * ```
 */
export function windowEventBound(maxEvents: number, reservation: EventReservation): number {
  return reservation.widened ? reservation.limit : Math.min(maxEvents, reservation.limit);
}

/**
 * Reads every page of one window (`minDate` and `maxDate` fixed for the whole walk, 500 events a
 * page), keeping each event once: offset pages shift when Atlas adds an event while they are walked,
 * so an event may come twice. Nothing is recorded in `recent` here: a window given up on (cut short,
 * or too crowded) must not make its events look processed.
 *
 * A window is given up on as soon as it is known to hold more than `maxEvents` not yet processed:
 * from Atlas's `totalCount` on the first page, or by counting while reading when the estimate was
 * wrong or absent, or as soon as the next page would not fit in the window's reservation (the events
 * a page may bring are counted before it is fetched: 500, or what Atlas's `totalCount` leaves when
 * that is fewer, so that a window whose last page is short is not given up on for a full page it will
 * not get; those a page does not keep are given back once it is read, and a page that keeps more than
 * was counted must fit too). A window of one second cannot be cut shorter: it is read while its
 * events fit in the reservation, and given up on as `over-budget` when they do not.
 *
 * @throws The Atlas client's errors (AtlasForbiddenError, AtlasNotFoundError, AtlasRateLimitError after
 *   its retries...), and the signal's reason when it aborts.
 *
 * @example
 * ```ts
 * const read = await readWindow({ reader: sourceReader(atlas, source), window, recent, maxEvents: 20_000, knownInWindow: 0,
 *   reservation, signal, stopReason: () => budget.stopReason(), beforeNextPage: keepLease });
 * ```
 */
export async function readWindow(options: ReadWindowOptions): Promise<WindowRead> {
  const { reader, window, recent, previous, reservation, signal } = options;
  const maxEvents = windowEventBound(options.maxEvents, reservation);
  // Only events not processed before that a rule may alert on are held whole; the others only as id
  // and time. Every new event counts toward the window's limits, held whole or not.
  const listed = new Map<string, number>();
  const fresh = new Map<string, KeyedEvent>();
  const passed: number[] = [];
  const holdWhole = options.holdWhole ?? (() => true);
  let pagesRead = 0;
  let eventsFetched = 0;
  /** Events counted for the next page before it is fetched. */
  let expected = reader.pageSize(maxEvents);
  const pages = reader.pages(window, expected, signal);
  let complete = false;
  /** The next page would not fit: cut the window shorter, or say it cannot be. */
  const overLimit = (): WindowRead => {
    const held = fresh.size + passed.length;
    const events = Math.max(held + MAX_ITEMS_PER_PAGE, maxEvents + 1);
    const shorter = shrinkWindow({ window, events, maxEvents });
    if (shorter !== undefined) return { kind: 'too-many', shorter, pagesRead, eventsFetched };
    return { kind: 'over-budget', held, pagesRead, eventsFetched };
  };
  try {
    for (;;) {
      if (pagesRead > 0) {
        const reason = options.stopReason();
        if (reason !== undefined) return { kind: 'cut-short', reason, pagesRead, eventsFetched };
        await options.beforeNextPage();
      }
      if (!reservation.tryAdd(expected)) return overLimit();
      const next = await pages.next();
      if (next.done === true) {
        reservation.remove(expected);
        break;
      }
      const page = next.value;
      pagesRead += 1;
      eventsFetched += page.items.length;
      let kept = 0;
      for (const event of page.items) {
        const keyed = keyEvent(event, window.to);
        if (listed.has(keyed.key)) continue;
        listed.set(keyed.key, keyed.time);
        if (recent.has(keyed.key) || previous?.has(keyed.key) === true) continue;
        if (holdWhole(event)) fresh.set(keyed.key, keyed);
        else passed.push(keyed.time);
        kept += 1;
      }
      // A page may keep more than was counted for it (Atlas's count is an estimate, and a server may
      // send more than it was asked for): what it kept must fit all the same.
      if (kept <= expected) reservation.remove(expected - kept);
      else if (!reservation.tryAdd(kept - expected)) return overLimit();
      expected =
        page.totalCount === undefined
          ? MAX_ITEMS_PER_PAGE
          : Math.min(MAX_ITEMS_PER_PAGE, Math.max(1, page.totalCount - eventsFetched));
      options.onPage?.({ pagesRead, eventsRead: listed.size, totalCount: page.totalCount });
      if (page.full === true)
        return cutAfterFullAnswer(window, page.items, maxEvents, pagesRead, eventsFetched);
      if (!page.hasNext) break;
      const estimate =
        pagesRead === 1 && page.totalCount !== undefined ? page.totalCount - options.knownInWindow : 0;
      const shorter = shrinkWindow({
        window,
        events: Math.max(estimate, fresh.size + passed.length),
        maxEvents,
      });
      if (shorter !== undefined) return { kind: 'too-many', shorter, pagesRead, eventsFetched };
    }
    complete = true;
  } finally {
    if (!complete) reservation.clear();
    await pages.return(undefined);
  }
  return {
    kind: 'read',
    fresh: [...fresh.values()].sort(compareKeyedEvents),
    passed,
    listed: Array.from(listed, ([key, time]) => ({ key, time })),
    pagesRead,
    eventsFetched,
  };
}
