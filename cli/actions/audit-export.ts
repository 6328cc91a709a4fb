import { auditExportPlan, formatAuditExportPlan } from '../audit-export-plan.js';
import type { AuditExportPlanOptions } from '../commands/audit-export.js';
import { UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';

/**
 * Runs `audit-export plan` (see `registerAuditExportCommand`): prints the plan, as text or JSON.
 *
 * @throws {UsageError} when no project or bucket is given, or they cannot be used.
 */
export function auditExportPlanAction(options: AuditExportPlanOptions, io?: PollCommandIo): void {
  const { stdout } = io ?? processCommandIo();
  if (options.project === undefined || options.project.length === 0) {
    throw new UsageError('audit-export plan needs --project ID: the projects whose audit logs to export');
  }
  if (options.bucket === undefined) {
    throw new UsageError(
      'audit-export plan needs --bucket NAME: the bucket the stack made for the exported objects',
    );
  }
  let plan: ReturnType<typeof auditExportPlan>;
  try {
    plan = auditExportPlan({
      projects: options.project,
      bucket: options.bucket,
      prefix: options.prefix,
      roleArn: options.roleArn,
      kind: options.export,
      connection: options.connection,
      baseUrl: options.baseUrl,
    });
  } catch (error) {
    if (error instanceof RangeError)
      throw new UsageError(`audit-export plan: ${error.message}`, { cause: error });
    throw error;
  }
  stdout.write(options.json === true ? `${JSON.stringify(plan, null, 2)}\n` : formatAuditExportPlan(plan));
}
