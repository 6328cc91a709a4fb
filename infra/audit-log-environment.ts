import {
  AUDIT_LOG_CONFIG_ENV,
  type AuditLogRuntimeConfig,
  auditLogRuntimeSchema,
} from '../shared/audit-log/audit-log-runtime.js';
import type { AuditLogSettings } from './audit-log-settings.js';
import type { ExtraEnvironment } from './poller-environment.js';

/** A bucket name at its longest, what the 4 KB check counts for a name CloudFormation gives. */
const LONGEST_BUCKET_NAME = 'b'.repeat(63);

/** One connection's audit log bucket, by name (a token for the bucket the stack creates). */
export interface AuditLogBucketReference {
  connection: string;
  bucketName: string;
  projects: AuditLogSettings['projects'];
}

/**
 * The audit log function's own variable beside the poller's: `ATLAS_AUDIT_ALERTS_AUDIT_LOG`, the
 * buckets it reads with their connection and the projects (id and prefix) exporting to each, checked
 * by the schema the function reads it with.
 *
 * @example
 * ```ts
 * const environment = auditLogEnvironment({ buckets, toJsonString: (value) => Stack.of(this).toJsonString(value) });
 * new PollerFunction(this, 'Function', { ...functionProps, role: 'audit-log', environment });
 * ```
 */
export function auditLogEnvironment(options: {
  buckets: readonly AuditLogBucketReference[];
  toJsonString: (value: unknown) => string;
}): ExtraEnvironment {
  const settings = (nameOf: (bucket: AuditLogBucketReference) => string): AuditLogRuntimeConfig => ({
    buckets: options.buckets.map((bucket) => ({
      bucket: nameOf(bucket),
      connection: bucket.connection,
      exports: bucket.projects.map((project) => ({ groupId: project.projectId, prefix: project.prefix })),
    })),
  });
  const longest = auditLogRuntimeSchema.parse(settings(() => LONGEST_BUCKET_NAME));
  return {
    variables: { [AUDIT_LOG_CONFIG_ENV]: options.toJsonString(settings((bucket) => bucket.bucketName)) },
    longest: { [AUDIT_LOG_CONFIG_ENV]: JSON.stringify(longest) },
  };
}
