import { MAX_ACCESS_LOG_LINES } from '../atlas/access-history-query.js';
import type { AtlasClient } from '../atlas/atlas-client.js';
import { MAX_ITEMS_PER_PAGE } from '../atlas/event-filter.js';
import type { AtlasEvent } from '../atlas/types.js';
import { buildAccessHistoryEvent } from '../rules/access-history-events.js';
import type { PollSource } from './poll-source.js';
import type { EventWindow } from './window-math.js';

/*
 * The port each source kind fills for the walk: how to read one window of it, page by page, as
 * events. The walk around it (windows, overlap, seen ids, the event budget, claims, commits, the
 * lease) is one mechanism for every kind.
 */

/** One page of a window, as events. */
export interface SourcePage {
  items: AtlasEvent[];
  /** Whether another page of the same window follows. */
  hasNext: boolean;
  /** How many items the whole window holds, when the source says. */
  totalCount?: number | undefined;
  /**
   * The answer stopped at the most items it was asked for: the window may hold more that were not
   * sent (an access history lists the newest lines first and stops at `nLogs`). The window must be
   * read shorter.
   */
  full?: boolean;
}

/** How the walk reads one kind of source. */
export interface SourceReader {
  /**
   * The most items one page may bring when `room` more fit in the window's reservation: what the
   * reader counts against the budget before it asks (at least 1).
   */
  pageSize(room: number): number;
  /** The pages of one window (both ends inclusive), each asking for at most `pageSize` items. */
  pages(window: EventWindow, pageSize: number, signal: AbortSignal): AsyncGenerator<SourcePage, void>;
  /**
   * Whether an answer with nothing in it may mean "not yet": the window is then read again on later
   * ticks for a while (`timing.accessHistorySettleSeconds`) before the cursor passes it.
   */
  readonly emptyMayFill: boolean;
}

/**
 * The reader of a source: Atlas's org or project events (pages of 500), or a cluster's access
 * history (one answer per window of up to 20,000 lines, each line an event of our own).
 *
 * @example
 * ```ts
 * const reader = sourceReader(atlas, clusterSource(groupId, 'payments-main'));
 * for await (const page of reader.pages(window, reader.pageSize(1_000), signal)) ...
 * ```
 */
export function sourceReader(atlas: AtlasClient, source: PollSource): SourceReader {
  if (source.kind === 'cluster') return accessHistoryReader(atlas, source.id, source.cluster ?? '');
  return {
    emptyMayFill: false,
    pageSize: () => MAX_ITEMS_PER_PAGE,
    async *pages(window, _pageSize, signal) {
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
      yield* list.pages();
    },
  };
}

/**
 * A cluster's access history: one request a window (`start`/`end` its ends), asking for as many
 * lines as the window's reservation has room for (at most 20,000). An answer of exactly that many is
 * `full`: older lines of the window may be missing, and the window is read shorter.
 */
function accessHistoryReader(atlas: AtlasClient, groupId: string, clusterName: string): SourceReader {
  const context = { groupId, clusterName };
  return {
    emptyMayFill: true,
    pageSize: (room) => Math.max(1, Math.min(MAX_ACCESS_LOG_LINES, room)),
    async *pages(window, pageSize, signal) {
      const read = await atlas.readAccessHistory(groupId, clusterName, {
        start: window.from,
        end: window.to,
        nLogs: pageSize,
        signal,
      });
      yield {
        items: read.lines.map((line) => buildAccessHistoryEvent(line, context)),
        hasNext: false,
        full: read.lines.length + read.dropped >= pageSize,
      };
    },
  };
}
