import * as z from 'zod';
import { DIGEST_EVERY } from '../notify/digest-period.js';
import { connectionProblems, connectionSchema } from './connections.js';
import { atlasFlavorSchema, inventorySettingsSchema, sourcesSchema, timingSchema } from './poll-settings.js';

export {
  atlasFlavorSchema,
  atlasIdSchema,
  DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS,
  inventorySettingsSchema,
  sourcesSchema,
  timingSchema,
} from './poll-settings.js';

/**
 * The filter policies of the routes that name a destination, as SNS filter policies (JSON); `null`
 * takes every alert.
 */
const routePoliciesSchema = z.array(z.record(z.string(), z.unknown()).nullable()).min(1);

/** The account's own product in Security Hub, which takes the findings an account imports itself. */
export const SECURITY_HUB_DEFAULT_PRODUCT =
  /^arn:(aws[a-z-]*):securityhub:([a-z0-9-]+):(\d{12}):product\/\3\/default$/;

/** The most connections one deployment polls. */
export const MAX_CONNECTIONS = 100;

/**
 * The poller's settings, each checked on its own: {@link pollerConfigSchema} checks them together.
 * Schemas built on them (a local run's config file) start here, as zod cannot extend a refined one.
 */
export const pollerSettingsSchema = z.strictObject({
  atlas: z
    .strictObject({
      baseUrl: z.url().default('https://cloud.mongodb.com'),
      flavor: atlasFlavorSchema.default('atlas-v2'),
    })
    .prefault({}),
  sources: sourcesSchema.prefault({}),
  timing: timingSchema.prefault({}),
  /** Inventory snapshots (see docs/inventory.md). */
  inventory: inventorySettingsSchema.prefault({}),
  /** How many sources are polled at once. */
  concurrency: z.number().int().min(1).max(32).default(4),
  /**
   * The most new events one window holds in memory: a window Atlas says holds more is cut shorter.
   * Default 20,000.
   */
  maxEventsPerWindow: z.number().int().min(500).max(200_000).optional(),
  /**
   * The most new events the tick holds in memory at once, over all its sources: windows are cut to
   * fit, and a one-second window holding more fails its source (EVENT_BUDGET_EXCEEDED). Default: 20%
   * of the V8 heap limit at 4 KB an event (about 14,300 for a 256 MB Lambda function).
   */
  maxEventsInMemory: z.number().int().min(2_000).max(10_000_000).optional(),
  /** DynamoDB table of the state store (Lambda only). */
  tableName: z.string().min(1).optional(),
  /** SNS topic alerts are published to (Lambda only). */
  topicArn: z.string().startsWith('arn:').optional(),
  /** Secrets Manager secret holding the Atlas credentials (Lambda only). */
  secretArn: z.string().startsWith('arn:').optional(),
  /**
   * Further Atlas organizations or Ops Manager instances, each with its own credentials and sources
   * (see `effectiveConnections`); the top-level `atlas` and `sources` are the connection `default`.
   */
  // Absent rather than empty when there are none: the Lambda's environment has a size limit.
  connections: z.array(connectionSchema).max(MAX_CONNECTIONS).optional(),
  /**
   * Destinations the poller delivers to itself beside the topic (Lambda only), each with the filter
   * policies of the routes that name it: an alert goes there when any of them takes it.
   */
  /**
   * The routes' digests (Lambda only; see `planDigests`): each is appended to as its alerts settle,
   * and sent at the end of the tick that finds its period ended.
   */
  digests: z
    .array(
      z.strictObject({
        route: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
        every: z.enum(DIGEST_EVERY),
        belowRank: z.int().min(2).max(4),
        policy: z.record(z.string(), z.unknown()).nullable(),
      }),
    )
    .optional(),
  destinations: z
    .strictObject({
      eventBridge: z.strictObject({ busName: z.string().min(1), policies: routePoliciesSchema }).optional(),
      securityHub: z
        .strictObject({
          /** `arn:<partition>:securityhub:<region>:<account>:product/<account>/default`. */
          productArn: z
            .string()
            .regex(
              SECURITY_HUB_DEFAULT_PRODUCT,
              "must be the ARN of the account's default Security Hub product",
            ),
          policies: routePoliciesSchema,
        })
        .optional(),
    })
    .optional(),
});

/**
 * Adds the problems of a configuration's connections to a parse (see `connectionProblems`), for
 * every schema built on {@link pollerSettingsSchema}.
 */
export function checkConnections(
  config: Pick<PollerConfig, 'sources' | 'connections' | 'atlas'>,
  context: z.RefinementCtx,
): void {
  for (const problem of connectionProblems(config, config.connections ?? [])) {
    context.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
  }
}

/**
 * The poller's runtime configuration: what the CDK stack passes to the Lambda (as JSON in the
 * `ATLAS_AUDIT_ALERTS_CONFIG` environment variable) and what local runs build from their options.
 * One schema, so the stack can never write a configuration the handler rejects. Its connections are
 * checked against one another and the top-level sources.
 */
export const pollerConfigSchema = pollerSettingsSchema.superRefine(checkConnections);

export type PollerConfig = z.output<typeof pollerConfigSchema>;
export type PollerConfigInput = z.input<typeof pollerConfigSchema>;

/** The environment variable that carries the poller's configuration as JSON. */
export const POLLER_CONFIG_ENV = 'ATLAS_AUDIT_ALERTS_CONFIG';
