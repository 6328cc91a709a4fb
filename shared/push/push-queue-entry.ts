import { queueEntry, scopedSourceName } from '../fan-out/queue-entry.js';
import type { QueuedSource } from '../fan-out/source-queue.js';
import type { TickSource } from '../poll/tick-sources.js';

/** Options of {@link pushQueueEntry}. */
export interface PushQueueEntryOptions {
  source: TickSource;
  /** When the push arrived, in milliseconds since the epoch. */
  now: number;
  /** Pushes for one source within one window of this length queue one message. */
  coalesceMs: number;
}

/**
 * The fan-out queue message that polls one source now, for a push. Its FIFO group is the source's own
 * (`push:<source>`, with the connection before it for a named one), apart from the dispatcher's
 * organization groups, so a push never waits behind a tick's whole queue, and one source's pushes are
 * polled one at a time. Its deduplication id is the source and the start of the `coalesceMs` window
 * the push fell in (also the message's `tick`): the queue drops every other push for the source in
 * that window, so a burst of pushes is one poll. What it carries is what the dispatcher's messages
 * carry, ids and a time, never anything from the alert's text, and `push: true`: the worker reads the
 * source up to now, where the pushed event is.
 *
 * @example
 * ```ts
 * pushQueueEntry({ source: projectSource(groupId), now: Date.now(), coalesceMs: 10_000 }).groupId;
 * // 'push:project:5f4e3d2c1b0a998877665544'
 * ```
 */
export function pushQueueEntry(options: PushQueueEntryOptions): QueuedSource {
  const windowMs = Math.max(1, Math.round(options.coalesceMs));
  const tick = new Date(Math.floor(options.now / windowMs) * windowMs).toISOString();
  const name = scopedSourceName(options.source);
  return queueEntry({
    source: options.source,
    tick,
    group: `push:${name}`,
    deduplication: `push#${tick}#${name}`,
    push: true,
  });
}
