import {
  AUDIT_LOG_CONFIG_ENV,
  type AuditLogRuntimeConfig,
  auditLogRuntimeSchema,
} from '../../shared/audit-log/audit-log-runtime.js';
import { PollerConfigError } from '../poller/errors.js';

const REDEPLOY =
  'deploy the stack again (npx cdk deploy) with auditLogs set, which writes it, or correct the variable in the function configuration';

/**
 * Reads the audit log function's settings from `ATLAS_AUDIT_ALERTS_AUDIT_LOG` (JSON written by the
 * stack): the buckets it reads, each with its connection and the projects that export to it.
 *
 * @throws {PollerConfigError} when the variable is missing, not JSON, or breaks the schema (each
 *   problem with its path, never a value).
 * @example
 * ```ts
 * const auditLog = readAuditLogConfig({ env: process.env });
 * auditLog.buckets.map((bucket) => bucket.connection); // ['default']
 * ```
 */
export function readAuditLogConfig(options: {
  env: Readonly<Record<string, string | undefined>>;
}): AuditLogRuntimeConfig {
  const text = options.env[AUDIT_LOG_CONFIG_ENV];
  if (text === undefined || text.trim() === '') {
    throw new PollerConfigError(`${AUDIT_LOG_CONFIG_ENV} is not set: ${REDEPLOY}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new PollerConfigError(
      `${AUDIT_LOG_CONFIG_ENV} is not JSON (${(error as Error).message}): ${REDEPLOY}`,
      { cause: error },
    );
  }
  const parsed = auditLogRuntimeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new PollerConfigError(`${AUDIT_LOG_CONFIG_ENV} is not valid (${problems}): ${REDEPLOY}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
