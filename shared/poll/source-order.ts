import type { Logger } from '../logger.js';
import type { SourceTimes, StateStore } from '../state/state-store.js';
import type { PollSource } from './poll-source.js';

/** Options of {@link orderSources}. */
export interface OrderSourcesOptions<S extends PollSource = PollSource> {
  store: StateStore;
  /** The tick's sources, in configuration order. */
  sources: readonly S[];
  /** Sources the tick polls at once: when all of them start at once, their order does not matter. */
  concurrency: number;
  logger: Logger;
}

/** The tick's sources in the order they start, and the times that order came from. */
export interface SourceOrder<S extends PollSource = PollSource> {
  sources: S[];
  /** Each source's times as stored before the tick, by source name; empty when not read. */
  times: ReadonlyMap<string, SourceTimes>;
}

/**
 * Puts the sources that waited longest first: never polled (no record, or a cursor without a poll
 * time), then by the time a worker last took their lease, then by watermark; configuration order
 * breaks ties. A tick that runs out of time before its last sources thus reaches them first next
 * time, so with N sources of which a deadline lets P start, each is polled within ceil(N / P) ticks,
 * whatever the deadline. Costs one batched read of the store per 100 sources, and none when they
 * all start at once (no more sources than the tick's concurrency).
 *
 * Best effort: when the store cannot be read, the sources keep their configuration order (a warning
 * is logged) and the tick goes on; the lease of each source still guards its work.
 *
 * @example
 * ```ts
 * const { sources, times } = await orderSources({ store, sources: resolved.sources, logger });
 * ```
 */
export async function orderSources<S extends PollSource>(
  options: OrderSourcesOptions<S>,
): Promise<SourceOrder<S>> {
  const { store, sources, logger } = options;
  if (sources.length <= Math.max(1, options.concurrency)) return { sources: [...sources], times: new Map() };
  let times: Map<string, SourceTimes>;
  try {
    times = await store.readSourceTimes({ sources: sources.map((source) => source.name) });
  } catch (error) {
    logger.warn('could not read when sources were last polled; they start in configuration order', {
      sources: sources.length,
      error: error instanceof Error ? error.message : String(error),
    });
    return { sources: [...sources], times: new Map() };
  }
  const keyOf = (source: S): [number, number] => {
    const entry = times.get(source.name);
    return [entry?.polledAt ?? Number.NEGATIVE_INFINITY, entry?.watermark ?? Number.NEGATIVE_INFINITY];
  };
  const keyed = sources.map((source, index) => ({ source, index, key: keyOf(source) }));
  keyed.sort((a, b) => compare(a.key[0], b.key[0]) || compare(a.key[1], b.key[1]) || a.index - b.index);
  return { sources: keyed.map(({ source }) => source), times };
}

function compare(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
