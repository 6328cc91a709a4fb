import * as z from 'zod';
import { pushTimingShape } from '../shared/push/push-settings.js';

/** An existing Secrets Manager secret, and its customer managed key when it is not the default key. */
export const webhookSecretSchema = z.strictObject({
  /**
   * The complete ARN of an existing secret whose string is the webhook secret; when absent the stack
   * creates one with a random 40-character secret to copy into Atlas.
   */
  secretArn: z
    .string()
    .regex(
      /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/,
      'must be the complete ARN of a Secrets Manager secret, ending in its 6-character suffix (copy it from the console)',
    )
    .optional(),
  kmsKeyArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, 'must be the ARN of a KMS key')
    .optional(),
});

/**
 * The deploy setting `push`: a Lambda function URL that takes Atlas webhook pushes and queues the
 * pushed alert's source for a poll at once (see docs/push.md). It needs the fan-out queue.
 */
export const pushSettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /**
   * Receiver invocations at once: what a flood of requests can cost at most. `false` reserves none
   * (accounts still at the new-account concurrency quota cannot reserve any).
   */
  reservedConcurrency: z.union([z.literal(false), z.number().int().min(1).max(100)]).default(2),
  /** The secret of the top-level connection's (`default`) Atlas Webhook integrations. */
  webhookSecret: webhookSecretSchema.prefault({}),
  ...pushTimingShape,
});

/** The push settings once defaults are applied. */
export type PushSettings = z.output<typeof pushSettingsSchema>;
