import * as z from 'zod';
import { atlasIdSchema } from '../poll/poll-settings.js';

/** The environment variable the stack writes the audit log function's settings to, as JSON. */
export const AUDIT_LOG_CONFIG_ENV = 'ATLAS_AUDIT_ALERTS_AUDIT_LOG';

/** One bucket that receives exported audit logs: whose it is, and the projects that export to it. */
export const auditLogBucketSchema = z.strictObject({
  bucket: z.string().min(3).max(63),
  /** The connection whose credentials name the projects in alerts, and whose name alerts carry. */
  connection: z.string().min(1).max(64),
  exports: z
    .array(z.strictObject({ groupId: atlasIdSchema, prefix: z.string().min(1).max(512) }))
    .min(1)
    .max(50),
});

/** The audit log function's settings: the buckets it reads (the poller's settings give the rest). */
export const auditLogRuntimeSchema = z.strictObject({
  buckets: z.array(auditLogBucketSchema).min(1).max(100),
});

/** The settings `ATLAS_AUDIT_ALERTS_AUDIT_LOG` holds. */
export type AuditLogRuntimeConfig = z.output<typeof auditLogRuntimeSchema>;
