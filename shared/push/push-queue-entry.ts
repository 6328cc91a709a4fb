import { createHash } from 'node:crypto';
import type { SOURCE_MESSAGE_VERSION } from '../fan-out/source-message.js';
import type { QueuedSource } from '../fan-out/source-queue.js';
import type { TickSource } from '../poll/tick-sources.js';

/**
 * The source message version, typed against the worker's own: the value is not imported, since the
 * message module brings the whole poll layer into the receiver's bundle; a new version fails to compile
 * here.
 */
const MESSAGE_VERSION: typeof SOURCE_MESSAGE_VERSION = 1;

/** SQS takes FIFO group and deduplication ids of at most 128 characters. */
const MAX_FIFO_ID_LENGTH = 128;

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
 * carry: ids and a time, never anything from the alert's text.
 *
 * @example
 * ```ts
 * pushQueueEntry({ source: projectSource(groupId), now: Date.now(), coalesceMs: 10_000 }).groupId;
 * // 'push:project:5f4e3d2c1b0a998877665544'
 * ```
 */
export function pushQueueEntry(options: PushQueueEntryOptions): QueuedSource {
  const { source } = options;
  const windowMs = Math.max(1, Math.round(options.coalesceMs));
  const tick = new Date(Math.floor(options.now / windowMs) * windowMs).toISOString();
  const scope = source.connection === undefined ? '' : `${source.connection}:`;
  return {
    message: {
      v: MESSAGE_VERSION,
      kind: source.kind,
      id: source.id,
      ...(source.cluster === undefined ? {} : { cluster: source.cluster }),
      ...(source.orgId === undefined ? {} : { orgId: source.orgId }),
      ...(source.connection === undefined ? {} : { connection: source.connection }),
      tick,
    },
    groupId: fifoId(`push:${scope}${source.name}`),
    deduplicationId: fifoId(`push#${tick}#${scope}${source.name}`),
  };
}

function fifoId(text: string): string {
  return text.length <= MAX_FIFO_ID_LENGTH ? text : createHash('sha256').update(text).digest('hex');
}
