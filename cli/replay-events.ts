import type { AtlasClient, AtlasEvent, AtlasList } from '../shared/atlas/index.js';
import { mapWithConcurrency } from '../shared/bounded-concurrency.js';
import { compareKeyedEvents, keyEvent } from '../shared/poll/event-order.js';

/** Which Atlas sources a replay reads. */
export interface ReplaySourceSelection {
  orgIds: readonly string[];
  projectIds: readonly string[];
  /** Also every project of each organization. */
  allProjects: boolean;
}

/** How much one source gave. */
export interface ReplaySourceRead {
  /** `org:<id>` or `project:<id>`, as the poller names sources. */
  source: string;
  pages: number;
  events: number;
}

/** Options of {@link readReplayEvents}. */
export interface ReadReplayEventsOptions {
  atlas: AtlasClient;
  selection: ReplaySourceSelection;
  /** Milliseconds since the epoch, both inclusive. */
  from: number;
  to: number;
  /** Sources read at once. Default 4, as a poll tick. */
  concurrency?: number;
  /**
   * The most events read, all sources together: a replay holds them all in memory. Past it the reads
   * stop and {@link ReplayTooLargeError} is thrown. Default {@link DEFAULT_MAX_REPLAY_EVENTS}.
   */
  maxEvents?: number;
  /** Aborts every read (a deadline): the reads reject with the signal's reason. */
  signal?: AbortSignal;
  /** After each page of a source: the pages and events read from it so far. */
  onPage?: (read: ReplaySourceRead) => void;
  /** After the last page of a source. */
  onSource?: (read: ReplaySourceRead) => void;
}

/** How many events a replay reads at most unless told otherwise: about a gigabyte of parsed events. */
export const DEFAULT_MAX_REPLAY_EVENTS = 250_000;

/** More events than a replay may hold: the reads stopped at the first page past the bound. */
export class ReplayTooLargeError extends Error {
  readonly code = 'REPLAY_TOO_LARGE';
  /** Events read when the reads stopped. */
  readonly events: number;
  readonly maxEvents: number;
  constructor(events: number, maxEvents: number) {
    super(
      `read ${events.toLocaleString('en-US')} events from Atlas, more than --max-events (${maxEvents.toLocaleString('en-US')}): a replay holds every event in memory, so it stopped. Replay a shorter --since or fewer sources, or raise --max-events`,
    );
    this.name = 'ReplayTooLargeError';
    this.events = events;
    this.maxEvents = maxEvents;
  }
}

/** What {@link readReplayEvents} read. */
export interface ReplayEventsRead {
  /** In the order Atlas listed them, source after source in the order of the selection. */
  events: AtlasEvent[];
  sources: ReplaySourceRead[];
}

/**
 * Reads the events a replay evaluates from Atlas: the events of each organization, of each project,
 * and with `allProjects` of every project each organization lists (`/orgs/{orgId}/groups`), each
 * source once, a few at a time, every page, created within `[from, to]`. Events are read as a
 * poll tick reads them (without `includeRaw`), so the rules see what the poller would.
 *
 * @throws The Atlas client's errors (AtlasAuthError, AtlasNotFoundError, AtlasRateLimitError after its
 *   retries...): a replay of part of the sources would count alerts wrongly, so it stops. So does
 *   {@link ReplayTooLargeError} past `maxEvents`, and the reason of `signal` once it aborts.
 * @example
 * ```ts
 * const { events } = await readReplayEvents({ atlas, selection: { orgIds: [org], projectIds: [],
 *   allProjects: true }, from: Date.now() - 7 * 86_400_000, to: Date.now() });
 * ```
 */
export async function readReplayEvents(options: ReadReplayEventsOptions): Promise<ReplayEventsRead> {
  const { atlas, selection } = options;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_REPLAY_EVENTS;
  // The first failure, the deadline or the bound stops every read: the replay fails as a whole.
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([stop.signal, options.signal]);
  const sources = new Map<string, (signal: AbortSignal) => AtlasList<AtlasEvent>>();
  const window = { minDate: new Date(options.from), maxDate: new Date(options.to) };
  for (const orgId of selection.orgIds) {
    sources.set(`org:${orgId}`, (signal) => atlas.listOrgEvents(orgId, { ...window, signal }));
  }
  const projectIds = [...selection.projectIds];
  if (selection.allProjects) {
    for (const orgId of selection.orgIds) {
      for await (const project of atlas.listOrgProjects(orgId, { signal })) projectIds.push(project.id);
    }
  }
  for (const projectId of projectIds) {
    const name = `project:${projectId}`;
    if (!sources.has(name)) {
      sources.set(name, (signal) => atlas.listProjectEvents(projectId, { ...window, signal }));
    }
  }
  let total = 0;
  const results = await mapWithConcurrency(
    [...sources],
    options.concurrency ?? 4,
    async ([source, list]): Promise<{ read: ReplaySourceRead; events: AtlasEvent[] }> => {
      const read: ReplaySourceRead = { source, pages: 0, events: 0 };
      const events: AtlasEvent[] = [];
      try {
        for await (const page of list(signal).pages()) {
          read.pages = page.pageNum;
          read.events += page.items.length;
          total += page.items.length;
          if (total > maxEvents) throw new ReplayTooLargeError(total, maxEvents);
          events.push(...page.items);
          options.onPage?.({ ...read });
        }
      } catch (error) {
        stop.abort(error);
        throw error;
      }
      options.onSource?.({ ...read });
      return { read, events };
    },
  );
  return {
    events: results.flatMap((result) => result.events),
    sources: results.map((result) => result.read),
  };
}

/** What {@link orderReplayEvents} gives. */
export interface OrderedReplayEvents {
  events: AtlasEvent[];
  /** Events dropped because an earlier one had the same id. */
  duplicates: number;
}

/**
 * Puts events in the order a poll tick evaluates them, by (`created`, `id`), and keeps one event per
 * id, as a tick never evaluates an id twice. Events without a readable `created` go last; events
 * without an `id` are identified by their content.
 *
 * @example
 * ```ts
 * orderReplayEvents([{ id: 'b', created: '2024-05-01T00:00:01Z' }, { id: 'a', created: '2024-05-01T00:00:01Z' }])
 *   .events.map((event) => event.id); // ['a', 'b']
 * ```
 */
export function orderReplayEvents(events: readonly AtlasEvent[]): OrderedReplayEvents {
  const byKey = new Map<string, ReturnType<typeof keyEvent>>();
  for (const event of events) {
    const keyed = keyEvent(event, Number.MAX_SAFE_INTEGER);
    if (!byKey.has(keyed.key)) byKey.set(keyed.key, keyed);
  }
  const ordered = [...byKey.values()].sort(compareKeyedEvents);
  return { events: ordered.map((keyed) => keyed.event), duplicates: events.length - ordered.length };
}
