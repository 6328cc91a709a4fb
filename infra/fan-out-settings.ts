import * as z from 'zod';

/**
 * The deploy setting `fanOut`: whether one scheduled invocation polls every source (`off`, the
 * default), or a dispatcher queues one message per source for worker invocations (`on`), or the
 * dispatcher decides each tick (`automatic`: fan out when the tick has more than
 * `automaticAboveSources` sources, else poll them itself as the single poller does).
 */
export const fanOutSettingsSchema = z.strictObject({
  mode: z.enum(['off', 'on', 'automatic']).default('off'),
  /** With `automatic`: fan out when a tick has more sources than this, discovered projects included. */
  automaticAboveSources: z.number().int().min(1).max(1_000_000).default(2_000),
  /** Messages (sources) one worker invocation polls; a FIFO queue delivers at most 10. */
  batchSize: z.number().int().min(1).max(10).default(10),
  /** Worker invocations at once (the event source mapping's maximum concurrency; Lambda's minimum is 2). */
  maxConcurrency: z.number().int().min(2).max(1_000).default(10),
  /** Worker invocations polling one organization at once: its share of Atlas's rate limits. */
  maxConcurrencyPerOrg: z.number().int().min(1).max(100).default(2),
  workerTimeoutSeconds: z.number().int().min(30).max(900).default(120),
  workerMemoryMiB: z.number().int().min(128).max(10_240).default(256),
  /** Deliveries of a message that keeps failing before it moves to the dead-letter queue. */
  maxReceiveCount: z.number().int().min(1).max(1_000).default(5),
});

/** The fan-out settings once defaults are applied. */
export type FanOutSettings = z.output<typeof fanOutSettingsSchema>;

/**
 * How long a received message stays hidden: six times the worker's timeout, as AWS advises for a
 * Lambda event source, so a batch still being polled is never handed to a second worker.
 */
export function queueVisibilitySeconds(settings: FanOutSettings): number {
  return Math.min(43_200, settings.workerTimeoutSeconds * 6);
}
