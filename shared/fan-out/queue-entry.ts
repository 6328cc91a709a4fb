import { createHash } from 'node:crypto';
import type { TickSource } from '../poll/tick-sources.js';
import type { SourceMessage } from './source-message.js';
import type { QueuedSource } from './source-queue.js';

/**
 * The source message version. Kept in this leaf module, which imports nothing at run time but
 * `node:crypto`, so the push receiver can build queue entries without the poll layer in its bundle;
 * `source-message.ts` reads messages with it.
 */
export const SOURCE_MESSAGE_VERSION = 1;

/** SQS takes FIFO group and deduplication ids of at most 128 characters. */
const MAX_FIFO_ID_LENGTH = 128;

/**
 * The queue entry that polls one source in one tick, in the FIFO group and with the deduplication
 * key the caller chose (each is made an id SQS takes: see {@link fifoId}). The dispatcher and the push
 * receiver both queue sources with it; the message carries ids and a time, never anything else.
 *
 * @example
 * ```ts
 * queueEntry({ source, tick: '2026-11-28T01:00:00.000Z', group: 'push:project:…', deduplication: 'push#…' });
 * ```
 */
export function queueEntry(options: {
  source: TickSource;
  /** The tick, ISO-8601 UTC. */
  tick: string;
  group: string;
  deduplication: string;
  /** A push queues it: the worker reads the source up to now (see `SourceMessage.push`). */
  push?: boolean;
}): QueuedSource {
  const { source, tick } = options;
  const message: SourceMessage = {
    v: SOURCE_MESSAGE_VERSION,
    kind: source.kind,
    id: source.id,
    ...(source.cluster === undefined ? {} : { cluster: source.cluster }),
    ...(source.orgId === undefined ? {} : { orgId: source.orgId }),
    ...(source.connection === undefined ? {} : { connection: source.connection }),
    tick,
    ...(options.push === true ? { push: true } : {}),
  };
  return { message, groupId: fifoId(options.group), deduplicationId: fifoId(options.deduplication) };
}

/**
 * A source's place in group and deduplication ids: its name, after its connection's for a named
 * connection (the connection default keeps the ids of a deployment without connections).
 */
export function scopedSourceName(source: TickSource): string {
  return source.connection === undefined ? source.name : `${source.connection}:${source.name}`;
}

/**
 * A FIFO group or deduplication id: the text itself when SQS takes it, else its SHA-256 in hex (a
 * cluster's source name under a long connection name can pass 128 characters).
 */
export function fifoId(text: string): string {
  return text.length <= MAX_FIFO_ID_LENGTH ? text : createHash('sha256').update(text).digest('hex');
}
