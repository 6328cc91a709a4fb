import { type Command, InvalidArgumentError, Option } from 'commander';
import { AUDIT_EXPORT_KINDS } from '../audit-export-plan.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { collectIds } from '../poll-options.js';

/** The parsed flags of `audit-export plan`. */
export interface AuditExportPlanOptions {
  project?: string[];
  bucket?: string;
  prefix: string;
  roleArn?: string;
  export: 'log-integration' | 'push-based';
  connection: string;
  baseUrl: string;
  json?: boolean;
}

/** The key prefix the plan uses unless `--prefix` says otherwise. */
export const DEFAULT_AUDIT_EXPORT_PREFIX = 'atlas-audit-logs';

/**
 * Registers `audit-export plan`: prints, per project, the Atlas CLI commands and Admin API requests
 * that make Atlas export its database audit logs to the deployment's bucket. It calls nothing.
 *
 * @example
 * ```sh
 * atlas-audit-alerts audit-export plan --project 5f4e3d2c1b0a998877665544 --bucket my-atlas-audit-logs
 * ```
 */
export function registerAuditExportCommand(program: Command, io?: PollCommandIo): void {
  const auditExport = program
    .command('audit-export')
    .description("Set up Atlas's export of database audit logs to the deployment's bucket.");
  auditExport
    .command('plan')
    .description(
      'Print the Atlas CLI commands and Admin API requests that make each project export its database audit logs to the bucket.',
    )
    .option(
      '--project <ids...>',
      'the projects whose clusters export their audit logs',
      collectIds('--project'),
    )
    .option('--bucket <name>', 'the bucket the stack made for the exported objects')
    .option(
      '--prefix <path>',
      'the key prefix; each project writes under PREFIX/<project id>, its auditLogs.projects[].prefix',
      DEFAULT_AUDIT_EXPORT_PREFIX,
    )
    .option('--role-arn <arn>', 'the ARN of the IAM role the stack made for Atlas to assume', roleArn)
    .addOption(
      new Option('--export <kind>', 'log-integration (about every minute) or push-based (every five minutes)')
        .choices(AUDIT_EXPORT_KINDS)
        .default('log-integration'),
    )
    .option('--connection <name>', 'the connection whose settings take the trust values', 'default')
    .option('--base-url <url>', 'the Atlas address the requests go to', 'https://cloud.mongodb.com')
    .option('--json', 'print the plan as JSON, request bodies included')
    .addHelpText(
      'after',
      `
Nothing is called: run the commands with a Project Owner's Atlas credentials. Step 1 answers with the
role id and the trust values (atlasAWSAccountArn, atlasAssumedRoleExternalId) the later steps and the
deploy settings take.

Examples:
  atlas-audit-alerts audit-export plan --project 5f4e3d2c1b0a998877665544 --bucket my-atlas-audit-logs
  atlas-audit-alerts audit-export plan --project 5f4e3d2c1b0a998877665544 --bucket my-atlas-audit-logs --export push-based --json`,
    )
    .action(async (options: AuditExportPlanOptions) => {
      const { auditExportPlanAction } = await import('../actions/audit-export.js');
      auditExportPlanAction(options, io);
    });
}

function roleArn(value: string): string {
  if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/.test(value)) {
    throw new InvalidArgumentError(
      'use the ARN of an IAM role, such as arn:aws:iam::123456789012:role/atlas-audit-logs.',
    );
  }
  return value;
}
