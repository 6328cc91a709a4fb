import { createHash } from 'node:crypto';
import type { TickSource } from '../poll/index.js';
import { queueEntry } from './queue-entry.js';
import type { QueuedSource } from './source-queue.js';

/** Options of {@link queuedSources}. */
export interface QueuedSourcesOptions {
  sources: readonly TickSource[];
  /**
   * The tick's identity, in milliseconds since the epoch (`tickIdentity`): every invocation of one
   * tick passes the same, so a second one queues nothing new.
   */
  tickAt: number;
  /** Worker invocations that may poll one organization's sources at once (FIFO message groups). */
  maxConcurrencyPerOrg: number;
}

/**
 * One queue entry per source. Sources of an organization share `maxConcurrencyPerOrg` FIFO message
 * groups (`<orgId>#<slot>`, the slot a stable hash of the source name; `<connection>:<orgId>#<slot>`
 * for a source of a named connection): SQS hands a group to one consumer at a time, so at most that
 * many worker invocations poll one organization through one connection's credentials at once, and a
 * message held back after a 429 holds back the rest of its group. A project whose organization is
 * not known (listed in `sources.projectIds`) is a group of its own. The deduplication id is the tick
 * and the source: within the queue's deduplication window (five minutes in SQS), the same source is
 * never queued twice for one tick, however often its dispatch runs.
 *
 * @example
 * ```ts
 * const entries = queuedSources({ sources, tickAt: tick.tickAt, maxConcurrencyPerOrg: 2 });
 * entries[0].groupId; // '5f4e3d2c1b0a998877665544#1'
 * ```
 */
export function queuedSources(options: QueuedSourcesOptions): QueuedSource[] {
  const tick = new Date(options.tickAt).toISOString();
  return options.sources.map((source) => {
    const slot = slotOf(source.name, options.maxConcurrencyPerOrg);
    // The connection default keeps the ids of a deployment without connections.
    const scope = source.connection === undefined ? '' : `${source.connection}:`;
    return queueEntry({
      source,
      tick,
      group: `${scope}${source.orgId === undefined ? source.name : `${source.orgId}#${slot}`}`,
      deduplication: `${tick}#${scope}${source.name}`,
    });
  });
}

function slotOf(name: string, slots: number): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) % Math.max(1, slots);
}
