import { type CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { ArnPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { AuditLogSettings } from '../audit-log-settings.js';

/** What Atlas's log export does with the bucket: write objects, read them back, list and locate it. */
export const ATLAS_OBJECT_ACTIONS = ['s3:PutObject', 's3:GetObject'];
export const ATLAS_BUCKET_ACTIONS = ['s3:ListBucket', 's3:GetBucketLocation'];

/** Atlas's sessions on the role last up to 12 hours, as its cloud provider access asks. */
export const ATLAS_SESSION_HOURS = 12;

export interface AuditLogBucketProps {
  /** The connection whose projects export here, for descriptions. */
  connection: string;
  settings: AuditLogSettings;
}

/**
 * Where one connection's projects export their database audit logs: a bucket that blocks every public
 * access, refuses requests without TLS, is encrypted (S3-managed keys, or a KMS key of its own with
 * rotation) and deletes objects after `retentionDays` (and unfinished uploads after a day), retained
 * when the stack is deleted; and the role Atlas assumes to write there (its cloud provider access
 * role), trusted for each project's `atlasAWSAccountArn` with that project's
 * `atlasAssumedRoleExternalId` only, allowed to put, get and list objects of this bucket and nothing
 * else, for sessions of up to 12 hours.
 */
export class AuditLogBucket extends Construct {
  readonly bucket: Bucket;
  /** The bucket's key, with `encryption: kms`. */
  readonly key: Key | undefined;
  /** The role Atlas assumes: its ARN is what Atlas's cloud provider access authorizes. */
  readonly atlasRole: Role;

  constructor(scope: Construct, id: string, props: AuditLogBucketProps) {
    super(scope, id);
    const { settings } = props;
    this.key =
      settings.encryption === 'kms'
        ? new Key(this, 'Key', {
            description: `Encrypts the Atlas audit log exports of the atlas-audit-alerts connection ${props.connection}`,
            enableKeyRotation: true,
            removalPolicy: RemovalPolicy.RETAIN,
          })
        : undefined;
    this.bucket = new Bucket(this, 'Bucket', {
      ...(this.key === undefined
        ? { encryption: BucketEncryption.S3_MANAGED }
        : { encryption: BucketEncryption.KMS, encryptionKey: this.key, bucketKeyEnabled: true }),
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'expire-exported-logs',
          expiration: Duration.days(settings.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'One role (Atlas, for the listed projects) writes this bucket and one function reads it; their requests are in CloudTrail. Server access logs would need a bucket of their own for no reader.',
    });

    // One trust statement per principal Atlas gives, with the external ids of its projects.
    const byPrincipal = new Map<string, string[]>();
    for (const project of settings.projects) {
      const ids = byPrincipal.get(project.atlasAWSAccountArn) ?? [];
      if (!ids.includes(project.atlasAssumedRoleExternalId)) ids.push(project.atlasAssumedRoleExternalId);
      byPrincipal.set(project.atlasAWSAccountArn, ids);
    }
    const [first, ...others] = [...byPrincipal];
    if (first === undefined) throw new RangeError('auditLogs.projects lists no project');
    const trust = ([arn, ids]: [string, string[]]) => ({
      principal: new ArnPrincipal(arn),
      conditions: { StringEquals: { 'sts:ExternalId': ids.length === 1 ? ids[0] : ids } },
    });
    const primary = trust(first);
    this.atlasRole = new Role(this, 'AtlasRole', {
      assumedBy: primary.principal.withConditions(primary.conditions),
      description: `Assumed by MongoDB Atlas to export the audit logs of the connection ${props.connection}'s projects`,
      maxSessionDuration: Duration.hours(ATLAS_SESSION_HOURS),
    });
    for (const entry of others) {
      const { principal, conditions } = trust(entry);
      this.atlasRole.assumeRolePolicy?.addStatements(
        new PolicyStatement({ actions: ['sts:AssumeRole'], principals: [principal], conditions }),
      );
    }
    this.atlasRole.addToPolicy(
      new PolicyStatement({ actions: ATLAS_OBJECT_ACTIONS, resources: [this.bucket.arnForObjects('*')] }),
    );
    this.atlasRole.addToPolicy(
      new PolicyStatement({ actions: ATLAS_BUCKET_ACTIONS, resources: [this.bucket.bucketArn] }),
    );
    this.key?.grant(this.atlasRole, 'kms:GenerateDataKey', 'kms:Decrypt');
    Validations.of(this.atlasRole).acknowledge({
      id: objectsFinding(this.bucket),
      reason:
        "Atlas names each object it exports (cluster, host, log type and time under the project's prefix): the role may write and read objects of this bucket only, under any key.",
    });
  }
}

/**
 * cdk-nag's finding for a grant on every object of `bucket` (`<bucket>/*`), as `acknowledge` takes it.
 *
 * @example
 * ```ts
 * Validations.of(role).acknowledge({ id: objectsFinding(bucket), reason });
 * ```
 */
export function objectsFinding(bucket: Bucket): string {
  const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnResource);
  return `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/*]`;
}
