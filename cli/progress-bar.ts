import type { TickProgress } from '../shared/poll/index.js';
import type { CommandOutput } from './poll-command-io.js';

/** Options of {@link createTickProgressBar}. */
export interface TickProgressBarOptions {
  /** Where the bar is drawn: only when it is a terminal. */
  stream: CommandOutput;
  /** Milliseconds since the epoch, for throttling. */
  now: () => number;
  /** Fewest milliseconds between two redraws. Default 100. */
  intervalMs?: number;
}

/** Draws a tick's progress; `update` is the tick's `onProgress`. */
export interface TickProgressBar {
  update(progress: TickProgress): void;
  /** Clears the bar, so the next line starts clean. */
  done(): void;
}

interface SourceProgress {
  /** Where the walk of the source started (the first window's start). */
  start: number;
  walkEnd: number;
  windowFrom: number;
  /** Events read in the windows before the current one. */
  eventsBefore: number;
  eventsInWindow: number;
  fraction: number;
}

const WIDTH = 24;

/**
 * A one-line progress bar for a long tick (a backfill) on a terminal: how far the sources have got
 * through their walks, how many events were read, and where the last one is. Sources report as they
 * start, so the share is over the sources seen so far. On anything but a terminal it draws nothing,
 * so pipes and logs stay clean.
 *
 * @example
 * ```ts
 * const bar = createTickProgressBar({ stream: process.stderr, now: Date.now });
 * await runTick(deps, { config, owner, since, onProgress: (progress) => bar.update(progress) });
 * bar.done();
 * ```
 */
export function createTickProgressBar(options: TickProgressBarOptions): TickProgressBar {
  const { stream, now } = options;
  if (!stream.isTTY) return { update: () => {}, done: () => {} };
  const intervalMs = options.intervalMs ?? 100;
  const sources = new Map<string, SourceProgress>();
  let drawnAt = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(progress) {
      let source = sources.get(progress.source);
      if (source === undefined) {
        source = {
          start: progress.window.from,
          walkEnd: progress.walkEnd,
          windowFrom: progress.window.from,
          eventsBefore: 0,
          eventsInWindow: 0,
          fraction: 0,
        };
        sources.set(progress.source, source);
      }
      if (progress.window.from !== source.windowFrom) {
        source.eventsBefore += source.eventsInWindow;
        source.windowFrom = progress.window.from;
      }
      source.eventsInWindow = progress.eventsRead;
      source.walkEnd = progress.walkEnd;
      const share =
        progress.totalCount !== undefined && progress.totalCount > 0
          ? Math.min(1, progress.eventsRead / progress.totalCount)
          : 0;
      const position = progress.window.from + (progress.window.to - progress.window.from) * share;
      const span = source.walkEnd - source.start;
      source.fraction = span <= 0 ? 1 : Math.min(1, Math.max(0, (position - source.start) / span));
      const time = now();
      if (time - drawnAt < intervalMs) return;
      drawnAt = time;
      const all = [...sources.values()];
      const fraction = all.reduce((sum, item) => sum + item.fraction, 0) / all.length;
      const events = all.reduce((sum, item) => sum + item.eventsBefore + item.eventsInWindow, 0);
      const filled = Math.round(fraction * WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
      const at = new Date(position).toISOString().slice(0, 16).replace('T', ' ');
      const line = `${bar} ${String(Math.floor(fraction * 100)).padStart(3)}%  ${events.toLocaleString('en-US')} ${events === 1 ? 'event' : 'events'}  ${progress.source} at ${at}Z`;
      const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 120;
      stream.write(`\r\u001b[2K${line.slice(0, Math.max(20, columns - 1))}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
    },
  };
}
