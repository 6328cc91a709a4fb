import * as z from 'zod';
import { atlasIdSchema } from '../shared/poll/poller-config.js';

/** The most projects one connection's audit log bucket takes exports from. */
export const MAX_AUDIT_LOG_PROJECTS = 50;

/**
 * The ARN Atlas assumes the role from, as Atlas gives it (`atlasAWSAccountArn`): an IAM role, user or
 * account root of Atlas's own AWS account.
 */
const atlasAwsAccountArnSchema = z
  .string()
  .regex(
    /^arn:aws[a-z-]*:iam::\d{12}:(?:root|(?:role|user)\/[\w+=,.@/-]{1,512})$/,
    'must be the atlasAWSAccountArn Atlas gives for the project’s cloud provider access role (arn:aws:iam::<12 digits>:root, :role/… or :user/…), as atlas cloudProviders accessRoles list prints it',
  );

/** What STS accepts as an external id; Atlas gives a UUID (`atlasAssumedRoleExternalId`). */
const externalIdSchema = z
  .string()
  .regex(
    /^[\w+=,.@:/-]{2,1224}$/,
    'must be the atlasAssumedRoleExternalId Atlas gives for the project’s cloud provider access role (a UUID)',
  );

/**
 * A key prefix Atlas writes a project's logs under (its log integration's `prefixPath`): no leading
 * slash, no empty part, characters S3 keeps as they are. A trailing slash is allowed, as Atlas shows it.
 */
const prefixSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9!_.*'()-]+(?:\/[A-Za-z0-9!_.*'()-]+)*\/?$/,
    "must be the prefixPath of the project’s log integration, such as atlas-logs/payments: letters, digits and !_.*'()- in parts split by single slashes, with no slash first",
  )
  .max(512, 'must be at most 512 characters');

/** One project that exports its audit logs to the connection's bucket. */
export const auditLogProjectSchema = z.strictObject({
  /** The project (group) whose clusters' audit logs are exported. */
  projectId: atlasIdSchema,
  /** The key prefix of the project's log integration: objects arrive under `{prefix}/{cluster}/{host}/…`. */
  prefix: prefixSchema,
  /** From the project's cloud provider access role: the principal Atlas assumes the bucket's role from. */
  atlasAWSAccountArn: atlasAwsAccountArnSchema,
  /** From the project's cloud provider access role: the external id Atlas assumes the role with. */
  atlasAssumedRoleExternalId: externalIdSchema,
});

/**
 * The deploy setting `auditLogs` of a connection (the top-level one for the connection `default`):
 * a bucket that receives the database audit logs Atlas exports from the projects listed, the role Atlas
 * assumes to write them (trusted for each project's `atlasAWSAccountArn` with its
 * `atlasAssumedRoleExternalId`), and the queue and function that read each new object through the
 * rules. See docs/audit-logs.md.
 */
export const auditLogSettingsSchema = z.strictObject({
  /** `false` keeps the settings but builds nothing (the bucket is retained when turned off). */
  enabled: z.boolean().default(true),
  projects: z
    .array(auditLogProjectSchema)
    .min(1, 'must name at least one project that exports its audit logs here')
    .max(MAX_AUDIT_LOG_PROJECTS),
  /** Objects older than this many days are deleted from the bucket. */
  retentionDays: z.number().int().min(1).max(3650).default(90),
  /** S3-managed keys (SSE-S3), or a customer managed KMS key the stack creates (SSE-KMS). */
  encryption: z.enum(['s3-managed', 'kms']).default('s3-managed'),
});

/** A connection's audit log settings once defaults are applied. */
export type AuditLogSettings = z.output<typeof auditLogSettingsSchema>;

/** A prefix as keys compare with it: without its trailing slash. */
export function normalizedAuditPrefix(prefix: string): string {
  return prefix.replace(/\/+$/, '');
}
