import * as z from 'zod';
import { CONNECTION_NAME } from '../poll/connections.js';
import { atlasIdSchema } from '../poll/poll-settings.js';

/** The environment variable holding the push receiver's settings, as JSON (the stack writes it). */
export const PUSH_CONFIG_ENV = 'ATLAS_AUDIT_ALERTS_PUSH';

/** The largest webhook body taken, in bytes: an Atlas alert is about 1 KB; Atlas caps its own templates at 16 KB. */
export const MAX_PUSH_BODY_BYTES = 16 * 1024;

/** Timings of the receiver, in seconds, with their defaults. */
export const pushTimingShape = {
  /**
   * A push whose alert was last updated longer ago than this is refused as stale: a captured request
   * replayed after its claim expired is refused so. Also how long a push's replay claim lives.
   */
  maxAgeSeconds: z.number().int().min(60).max(86_400).default(3_600),
  /** Pushes for one source within this window of each other queue one poll. */
  coalesceSeconds: z.number().int().min(1).max(300).default(10),
  /** How long a webhook secret read from Secrets Manager is used before it is read again. */
  secretTtlSeconds: z.number().int().min(10).max(3_600).default(300),
};

/** One connection as the receiver sees it: its name, what it polls, and its webhook secret. */
export const pushConnectionSchema = z.strictObject({
  name: z.string().regex(CONNECTION_NAME),
  /** Secrets Manager secret holding the webhook secret as its whole string (Lambda only). */
  secretArn: z.string().startsWith('arn:').optional(),
  sources: z.strictObject({
    orgIds: z.array(atlasIdSchema).default([]),
    projectIds: z.array(atlasIdSchema).default([]),
    allProjectsOfOrgs: z.boolean().default(false),
  }),
});

/** One connection's push settings (see {@link pushConnectionSchema}). */
export type PushConnection = z.output<typeof pushConnectionSchema>;

/**
 * What the receiver reads at run time: the state table (replay claims), the fan-out queue, and each
 * connection that takes pushes.
 */
export const pushRuntimeSchema = z.strictObject({
  tableName: z.string().min(1),
  queueUrl: z.string().min(1),
  connections: z.array(pushConnectionSchema).min(1),
  ...pushTimingShape,
});

/** The receiver's run-time settings (see {@link pushRuntimeSchema}). */
export type PushRuntimeConfig = z.output<typeof pushRuntimeSchema>;
