import * as z from 'zod';

/** The environment variable holding the dispatcher's and worker's fan-out settings, as JSON. */
export const FAN_OUT_CONFIG_ENV = 'ATLAS_AUDIT_ALERTS_FAN_OUT';

/**
 * What the fan-out functions read at run time (the stack writes it from the deploy setting `fanOut`):
 * the queue, when the dispatcher fans out (`on`: always; `automatic`: when the tick has more than
 * `automaticAboveSources` sources, else it polls them itself as the single poller does), and how many
 * FIFO message groups (worker invocations at once) one organization's sources share, and the schedule's
 * period, which a tick's identity is rounded to (see `tickIdentity`).
 */
export const fanOutRuntimeSchema = z.strictObject({
  queueUrl: z.string().min(1),
  mode: z.enum(['on', 'automatic']),
  automaticAboveSources: z.number().int().min(1),
  maxConcurrencyPerOrg: z.number().int().min(1).max(100),
  schedulePeriodSeconds: z.number().int().min(60),
});

/** The fan-out functions' settings (see {@link fanOutRuntimeSchema}). */
export type FanOutRuntimeConfig = z.infer<typeof fanOutRuntimeSchema>;
