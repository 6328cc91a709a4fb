/**
 * The steps that make Atlas export a project's database audit logs to the deployment's bucket: the
 * Cloud Provider Access role Atlas assumes, the trust values it answers with (which go into the
 * deploy settings, so the stack's role trusts Atlas), the role's authorization, and the export. Paths
 * and bodies are those of the Atlas Administration API v2 (`atlas/openapi-v2.yaml`): operations
 * `createGroupCloudProviderAccess`, `authorizeGroupCloudProviderAccessRole`, and
 * `createGroupLogIntegration` (the log integration, about every minute) or
 * `createGroupPushBasedLogExport` (the older push-based log export, every five minutes).
 */

/** Which Atlas feature writes the objects. */
export type AuditExportKind = 'log-integration' | 'push-based';

export const AUDIT_EXPORT_KINDS: readonly AuditExportKind[] = ['log-integration', 'push-based'];

export interface AuditExportPlanInput {
  /** The projects whose clusters export their audit logs. */
  projects: readonly string[];
  /** The bucket the stack made for the objects. */
  bucket: string;
  /** The key prefix under which every project gets its own folder, `{prefix}/{groupId}`. */
  prefix: string;
  /** The ARN of the IAM role the stack made for Atlas to assume; a placeholder when not known yet. */
  roleArn?: string | undefined;
  kind: AuditExportKind;
  /** The connection whose settings take the trust values. Default `default`. */
  connection?: string;
  /** Default `https://cloud.mongodb.com`. */
  baseUrl?: string;
}

/** One call to make: with the Atlas CLI, or as the Admin API request it stands for. */
export interface AuditExportStep {
  /** A stable name: `register-role`, `settings`, `authorize-role`, `export`, `check`. */
  id: 'register-role' | 'settings' | 'authorize-role' | 'export' | 'check';
  title: string;
  /** The Atlas CLI command (or this tool's command, for `settings` and `check`). */
  command: string;
  /** The Admin API request; none for the steps outside Atlas. */
  request?: { operationId: string; method: 'POST' | 'PATCH'; url: string; body: Record<string, unknown> };
  /** What to do with the answer, or what the step does. */
  note: string;
}

/** The steps for one project. */
export interface ProjectAuditExportPlan {
  groupId: string;
  /** The prefix Atlas writes under for this project: what the deployment's export names. */
  prefixPath: string;
  steps: AuditExportStep[];
}

export interface AuditExportPlan {
  kind: AuditExportKind;
  bucket: string;
  /** Whether the role's ARN was given; when not, the steps hold {@link ROLE_ARN_PLACEHOLDER}. */
  roleArnKnown: boolean;
  projects: ProjectAuditExportPlan[];
}

/** Placeholders for what Atlas answers in the first step. */
export const ROLE_ID_PLACEHOLDER = '<roleId>';
export const ATLAS_ACCOUNT_PLACEHOLDER = '<atlasAWSAccountArn>';
export const EXTERNAL_ID_PLACEHOLDER = '<atlasAssumedRoleExternalId>';
export const ROLE_ARN_PLACEHOLDER = '<auditLogRoleArn>';

/** The audit log types of the log integration (mongod's and, for a sharded cluster, mongos's). */
export const AUDIT_LOG_INTEGRATION_TYPES = ['MONGOD_AUDIT', 'MONGOS_AUDIT'] as const;

/**
 * The plan for every project of `input`, in the order the steps must run.
 *
 * @throws {RangeError} when no project is given, or the bucket or prefix cannot be an S3 bucket name
 *   or key prefix.
 * @example
 * ```ts
 * const plan = auditExportPlan({ projects: ['5f4e3d2c1b0a998877665544'], bucket: 'atlas-audit-logs', prefix: 'atlas', kind: 'log-integration' });
 * plan.projects[0]?.steps.map((step) => step.id); // ['register-role', 'settings', 'authorize-role', 'export', 'check']
 * ```
 */
export function auditExportPlan(input: AuditExportPlanInput): AuditExportPlan {
  if (input.projects.length === 0) throw new RangeError('name at least one project');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(input.bucket)) {
    throw new RangeError(
      `${JSON.stringify(input.bucket)} is not an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens`,
    );
  }
  const prefix = input.prefix.replace(/^\/+|\/+$/g, '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (prefix.length > 512 || /[\u0000-\u001f\u007f\\]/.test(prefix) || prefix.includes('//')) {
    throw new RangeError(
      `${JSON.stringify(input.prefix)} is not a key prefix: at most 512 characters, no control characters, backslashes or empty folders`,
    );
  }
  const base = `${(input.baseUrl ?? 'https://cloud.mongodb.com').replace(/\/+$/, '')}/api/atlas/v2`;
  const connection = input.connection ?? 'default';
  const roleArn = input.roleArn ?? ROLE_ARN_PLACEHOLDER;
  const projects = [...new Set(input.projects)].map((groupId): ProjectAuditExportPlan => {
    const prefixPath = prefix === '' ? groupId : `${prefix}/${groupId}`;
    const group = `${base}/groups/${groupId}`;
    const exportStep: AuditExportStep =
      input.kind === 'log-integration'
        ? {
            id: 'export',
            title: 'Export the audit logs to the bucket (log integration, about every minute)',
            command: `atlas api pushBasedLogExport createGroupLogIntegration --groupId ${groupId} --file log-integration.json`,
            request: {
              operationId: 'createGroupLogIntegration',
              method: 'POST',
              url: `${group}/logIntegrations`,
              body: {
                type: 'S3_LOG_EXPORT',
                bucketName: input.bucket,
                iamRoleId: ROLE_ID_PLACEHOLDER,
                prefixPath,
                logTypes: [...AUDIT_LOG_INTEGRATION_TYPES],
              },
            },
            note: 'log-integration.json holds the request body. Atlas writes each host audit log under {prefixPath}/{cluster}/{hostname}/{logType}/.',
          }
        : {
            id: 'export',
            title: 'Export the logs to the bucket (push-based log export, every five minutes)',
            command: `atlas api pushBasedLogExport createGroupPushBasedLogExport --groupId ${groupId} --file push-based-log-export.json`,
            request: {
              operationId: 'createGroupPushBasedLogExport',
              method: 'POST',
              url: `${group}/pushBasedLogExport`,
              body: { bucketName: input.bucket, iamRoleId: ROLE_ID_PLACEHOLDER, prefixPath },
            },
            note: 'push-based-log-export.json holds the request body. It exports mongod, mongos and audit logs alike; the deployment reads the audit logs and skips the others. Its state turns BUCKET_VERIFIED, then ACTIVE.',
          };
    return {
      groupId,
      prefixPath,
      steps: [
        {
          id: 'register-role',
          title: 'Register a Cloud Provider Access role for AWS',
          command: `atlas cloudProviders accessRoles aws create --projectId ${groupId} --output json`,
          request: {
            operationId: 'createGroupCloudProviderAccess',
            method: 'POST',
            url: `${group}/cloudProviderAccess`,
            body: { providerName: 'AWS' },
          },
          note: 'Atlas answers with roleId, atlasAWSAccountArn and atlasAssumedRoleExternalId: keep all three.',
        },
        {
          id: 'settings',
          title: 'Put the trust values into the deploy settings and deploy',
          command: `${connection === 'default' ? 'auditLogs' : `connections[${connection}].auditLogs`}.projects[]: { projectId: ${groupId}, prefix: ${JSON.stringify(prefixPath)}, atlasAWSAccountArn: ${ATLAS_ACCOUNT_PLACEHOLDER}, atlasAssumedRoleExternalId: ${EXTERNAL_ID_PLACEHOLDER} }, then npx cdk deploy`,
          note: "The stack's role then trusts Atlas's account with that project's external id only. Authorizing the role before this deploy fails: Atlas assumes the role to check it.",
        },
        {
          id: 'authorize-role',
          title: 'Authorize the role',
          command: `atlas cloudProviders accessRoles aws authorize ${ROLE_ID_PLACEHOLDER} --iamAssumedRoleArn ${roleArn} --projectId ${groupId}`,
          request: {
            operationId: 'authorizeGroupCloudProviderAccessRole',
            method: 'PATCH',
            url: `${group}/cloudProviderAccess/${ROLE_ID_PLACEHOLDER}`,
            body: { providerName: 'AWS', iamAssumedRoleArn: roleArn },
          },
          note: 'Atlas assumes the role once to check it, and answers with authorizedDate.',
        },
        exportStep,
        {
          id: 'check',
          title: 'Check that the bucket receives the objects',
          command: `atlas-audit-alerts check --config <your settings file> --audit-bucket ${input.bucket}`,
          note: `Lists s3://${input.bucket}/${prefixPath}/ for an object Atlas wrote, and warns until one is there.`,
        },
      ],
    };
  });
  return { kind: input.kind, bucket: input.bucket, roleArnKnown: input.roleArn !== undefined, projects };
}

/**
 * The plan as text for people: each project's steps, numbered, with the command, the request and
 * its body.
 *
 * @example
 * ```ts
 * process.stdout.write(formatAuditExportPlan(plan));
 * ```
 */
export function formatAuditExportPlan(plan: AuditExportPlan): string {
  const lines: string[] = [
    `Audit log export to s3://${plan.bucket} (${plan.kind === 'log-integration' ? 'log integration' : 'push-based log export'}), with a Project Owner's credentials:`,
  ];
  for (const project of plan.projects) {
    lines.push('', `Project ${project.groupId}, objects under ${project.prefixPath}/`);
    project.steps.forEach((step, index) => {
      lines.push(`  ${index + 1}. ${step.title}`, `     ${step.command}`);
      if (step.request !== undefined) {
        lines.push(
          `     or ${step.request.method} ${step.request.url}`,
          `        ${JSON.stringify(step.request.body)}`,
        );
      }
      lines.push(`     ${step.note}`);
    });
  }
  lines.push(
    '',
    `Replace ${ROLE_ID_PLACEHOLDER}, ${ATLAS_ACCOUNT_PLACEHOLDER} and ${EXTERNAL_ID_PLACEHOLDER} with what step 1 answered${plan.roleArnKnown ? '' : `, and ${ROLE_ARN_PLACEHOLDER} with the ARN of the role the stack made for Atlas (or pass --role-arn)`}.`,
  );
  return `${lines.join('\n')}\n`;
}
