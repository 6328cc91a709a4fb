import type { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_LOG_CONFIG_ENV, auditLogRuntimeSchema } from '../../shared/audit-log/audit-log-runtime.js';
import { synthesizeDeployment } from './support/deployment.js';
import { unacknowledgedFindings } from './support/nag.js';
import {
  policyStatementsOf,
  resolveReferences,
  resourceOf,
  singleLogicalId,
  type TemplateResource,
} from './support/template.js';
import { createTestWorkspace, VALID_RULE_FILE } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';
const PROD_ORG_ID = '5f4e3d2c1b0a998877665500';
const PROJECT_ID = '6a1b2c3d4e5f60718293a4b5';
const OTHER_PROJECT_ID = '6a1b2c3d4e5f60718293a4b6';
const PROD_PROJECT_ID = '6a1b2c3d4e5f60718293a4b7';
const ATLAS_ARN = 'arn:aws:iam::536727724300:root';
const OTHER_ATLAS_ARN = 'arn:aws:iam::536727724300:role/atlas-logs';
const EXTERNAL_ID = '3f5d9c2e-8a41-4c6b-9e0f-2b7d1a6c4e88';
const OTHER_EXTERNAL_ID = '7b1e4f0a-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const PROD_EXTERNAL_ID = '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const READER = /Reads the MongoDB Atlas database audit logs/;

interface Statement {
  Effect?: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: Record<string, unknown>;
}

const actionsOf = (statements: readonly Statement[]): string[] =>
  statements
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .sort();

function bucketIds(template: Template): string[] {
  return Object.keys(template.findResources('AWS::S3::Bucket'));
}

function atlasRoles(template: Template): Array<[string, TemplateResource]> {
  return Object.entries(
    template.findResources('AWS::IAM::Role', {
      Properties: { Description: Match.stringLikeRegexp('Assumed by MongoDB Atlas') },
    }),
  ) as Array<[string, TemplateResource]>;
}

function readerRoleId(template: Template): string {
  const fn = resourceOf(template, 'AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp(READER.source),
  });
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

describe('AuditAlertsStack with audit logs', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'audit-logs',
      settings: {
        sources: { orgIds: [ORG_ID] },
        auditLogs: {
          retentionDays: 30,
          projects: [
            {
              projectId: PROJECT_ID,
              prefix: 'atlas-logs/payments',
              atlasAWSAccountArn: ATLAS_ARN,
              atlasAssumedRoleExternalId: EXTERNAL_ID,
            },
            {
              projectId: OTHER_PROJECT_ID,
              prefix: 'atlas-logs/ledger/',
              atlasAWSAccountArn: OTHER_ATLAS_ARN,
              atlasAssumedRoleExternalId: OTHER_EXTERNAL_ID,
            },
          ],
        },
        connections: [
          {
            name: 'prod-org',
            sources: { orgIds: [PROD_ORG_ID] },
            auditLogs: {
              encryption: 'kms',
              projects: [
                {
                  projectId: PROD_PROJECT_ID,
                  prefix: 'logs',
                  atlasAWSAccountArn: ATLAS_ARN,
                  atlasAssumedRoleExternalId: PROD_EXTERNAL_ID,
                },
              ],
            },
          },
        ],
        alerts: { emails: ['secops@example.com'] },
        operations: { emails: ['platform@example.com'] },
        rules: { directories: [rules] },
      },
    }));
  }, 600_000);
  afterAll(() => workspace.remove());

  const bucketOf = (encryption: string): [string, TemplateResource] => {
    const found = Object.entries(template.findResources('AWS::S3::Bucket')).filter(([, bucket]) =>
      JSON.stringify(bucket).includes(encryption),
    );
    expect(found).toHaveLength(1);
    return found[0] as [string, TemplateResource];
  };

  it('creates a bucket per connection: encrypted, public access blocked, objects expiring, retained', () => {
    const [, plain] = bucketOf('"AES256"');
    const [, kms] = bucketOf('"aws:kms"');

    expect(bucketIds(template)).toHaveLength(2);
    expect(plain.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(kms.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      {
        BucketKeyEnabled: true,
        ServerSideEncryptionByDefault: {
          SSEAlgorithm: 'aws:kms',
          KMSMasterKeyID: { 'Fn::GetAtt': [expect.stringMatching(/^ConnectionProdOrgAuditLogsKey/), 'Arn'] },
        },
      },
    ]);
    for (const bucket of [plain, kms]) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect((bucket as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
    }
    expect(plain.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({
        ExpirationInDays: 30,
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      }),
    ]);
    expect(kms.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ ExpirationInDays: 90, Status: 'Enabled' }),
    ]);
  });

  it('refuses every request to the buckets without TLS', () => {
    for (const id of bucketIds(template)) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it("trusts each project's Atlas principal with that project's external id only, for 12-hour sessions", () => {
    const roles = atlasRoles(template);
    const byConnection = (pattern: RegExp) =>
      roles.find(([, role]) => pattern.test(String(role.Properties.Description)))?.[1];
    const top = byConnection(/connection default's/);
    const prod = byConnection(/connection prod-org's/);

    expect(roles).toHaveLength(2);
    expect(top?.Properties.MaxSessionDuration).toBe(43_200);
    expect(prod?.Properties.MaxSessionDuration).toBe(43_200);
    expect(top?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { AWS: ATLAS_ARN },
        Condition: { StringEquals: { 'sts:ExternalId': EXTERNAL_ID } },
      },
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { AWS: OTHER_ATLAS_ARN },
        Condition: { StringEquals: { 'sts:ExternalId': OTHER_EXTERNAL_ID } },
      },
    ]);
    expect(prod?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { AWS: ATLAS_ARN },
        Condition: { StringEquals: { 'sts:ExternalId': PROD_EXTERNAL_ID } },
      },
    ]);
  });

  it('lets Atlas put, get and list objects of its own bucket only (and use its key), nothing else', () => {
    const [plainId] = bucketOf('"AES256"');
    const [kmsId] = bucketOf('"aws:kms"');
    const roles = atlasRoles(template);
    const statementsFor = (description: RegExp) => {
      const [roleId] = roles.find(([, role]) => description.test(String(role.Properties.Description))) ?? [];
      return policyStatementsOf(template, String(roleId)) as Statement[];
    };
    const top = statementsFor(/connection default's/);
    const prod = statementsFor(/connection prod-org's/);

    expect(top).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [plainId, 'Arn'] }, '/*']] },
      },
      {
        Effect: 'Allow',
        Action: ['s3:GetBucketLocation', 's3:ListBucket'],
        Resource: { 'Fn::GetAtt': [plainId, 'Arn'] },
      },
    ]);
    expect(actionsOf(prod)).toEqual(
      [
        'kms:Decrypt',
        'kms:GenerateDataKey',
        's3:GetBucketLocation',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
      ].sort(),
    );
    expect(JSON.stringify(prod)).toContain(kmsId);
    expect(JSON.stringify(prod)).not.toContain(plainId);
  });

  it('notifies every new object of both buckets to one encrypted queue with a dead-letter queue', () => {
    const queueId = singleLogicalId(template, 'AWS::SQS::Queue', {
      RedrivePolicy: Match.anyValue(),
      VisibilityTimeout: 1_800,
    });
    const queue = template.findResources('AWS::SQS::Queue')[queueId] as TemplateResource;
    const deadLetterId = (queue.Properties.RedrivePolicy.deadLetterTargetArn as { 'Fn::GetAtt': [string] })[
      'Fn::GetAtt'
    ][0];
    const deadLetters = template.findResources('AWS::SQS::Queue')[deadLetterId] as TemplateResource;
    const notifications = Object.values(
      template.findResources('Custom::S3BucketNotifications'),
    ) as TemplateResource[];

    expect(queue.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(queue.Properties.KmsMasterKeyId).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^AuditLogReceiverQueueKey/), 'Arn'],
    });
    expect(deadLetters.Properties.KmsMasterKeyId).toEqual(queue.Properties.KmsMasterKeyId);
    expect(deadLetters.Properties.MessageRetentionPeriod).toBe(1_209_600);
    expect(notifications.map((notification) => notification.Properties.BucketName).sort()).toEqual(
      bucketIds(template)
        .map((id) => ({ Ref: id }))
        .sort((a, b) => a.Ref.localeCompare(b.Ref)),
    );
    for (const notification of notifications) {
      expect(notification.Properties.NotificationConfiguration).toEqual({
        QueueConfigurations: [
          { Events: ['s3:ObjectCreated:*'], QueueArn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        ],
      });
    }
    for (const id of [queueId, deadLetterId]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
    // S3 may send to the queue for these buckets only.
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 's3.amazonaws.com' },
            Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketIds(template)[0], 'Arn'] } } },
          }),
        ]),
      },
    });
  });

  it('drives the reader from the queue with per-message failures, its batch and concurrency bounded', () => {
    const queueId = singleLogicalId(template, 'AWS::SQS::Queue', {
      RedrivePolicy: Match.anyValue(),
      VisibilityTimeout: 1_800,
    });
    const readerId = singleLogicalId(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(READER.source),
    });

    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: readerId },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    const reader = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(READER.source),
    });
    expect(reader.Properties).toMatchObject({ Timeout: 300, MemorySize: 512, Runtime: 'nodejs24.x' });
    expect(reader.Properties).not.toHaveProperty('ReservedConcurrentExecutions');
  });

  it('lets the reader get objects of the buckets, use the state table and publish alerts, and tells it the buckets', () => {
    const statements = policyStatementsOf(template, readerRoleId(template)) as Statement[];
    const actions = new Set(actionsOf(statements));
    const reads = statements.filter((statement) => actionsOf([statement]).includes('s3:GetObject'));
    const reader = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(READER.source),
    });
    const variable = JSON.stringify(reader.Properties.Environment.Variables[AUDIT_LOG_CONFIG_ENV]);

    expect(reads).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: bucketIds(template)
          .map((id) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/*']] }))
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      },
    ]);
    for (const action of [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'sns:Publish',
      'kms:Decrypt',
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
    ]) {
      expect(actions).toContain(action);
    }
    expect([...actions].filter((action) => action.startsWith('s3:'))).toEqual(['s3:GetObject']);
    expect(variable).toContain('atlas-logs/payments');
    expect(variable).toContain('"connection\\":\\"prod-org');
  });

  it('writes the reader settings the reader schema accepts', () => {
    const reader = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(READER.source),
    });
    const joined = reader.Properties.Environment.Variables[AUDIT_LOG_CONFIG_ENV] as {
      'Fn::Join': [string, unknown[]];
    };
    const text = joined['Fn::Join'][1]
      .map((part) => (typeof part === 'string' ? part : 'atlas-audit-logs-bucket'))
      .join('');

    expect(auditLogRuntimeSchema.parse(JSON.parse(text))).toEqual({
      buckets: [
        {
          bucket: 'atlas-audit-logs-bucket',
          connection: 'default',
          exports: [
            { groupId: PROJECT_ID, prefix: 'atlas-logs/payments' },
            { groupId: OTHER_PROJECT_ID, prefix: 'atlas-logs/ledger/' },
          ],
        },
        {
          bucket: 'atlas-audit-logs-bucket',
          connection: 'prod-org',
          exports: [{ groupId: PROD_PROJECT_ID, prefix: 'logs' }],
        },
      ],
    });
  });

  it('alarms on a dead letter, a failed invocation and a backlog, to the operations topic', () => {
    const queue = template.findResources('AWS::SQS::Queue');
    const deadLetterId = Object.keys(queue).find((id) => id.startsWith('AuditLogReceiverDeadLetters'));

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [Match.anyValue()],
    });
    expect(
      Object.keys(template.findResources('AWS::CloudWatch::Alarm'))
        .filter((id) => id.startsWith('AuditLogReceiver'))
        .map((id) => id.replace(/^AuditLogReceiver/, '').replace(/[0-9A-F]{8}$/, ''))
        .sort(),
    ).toEqual(['AuditLogBacklog', 'AuditLogDeadLetters', 'AuditLogReaderErrors']);
  });

  it("draws a dashboard row of the audit log function's lines, objects and queue", () => {
    const dashboard = resourceOf(template, 'AWS::CloudWatch::Dashboard');
    const body = JSON.parse(
      resolveReferences(dashboard.Properties.DashboardBody, (reference) => reference),
    ) as {
      widgets: { properties: { title?: string; metrics?: unknown[][] } }[];
    };
    const row = Object.fromEntries(
      body.widgets
        .filter((widget) => widget.properties.title?.startsWith('Audit log') === true)
        .map((widget) => [
          widget.properties.title,
          (widget.properties.metrics ?? []).map((metric) =>
            metric.filter((part) => typeof part === 'string').join(' '),
          ),
        ]),
    );

    expect(row).toEqual({
      'Audit log lines': [
        'AtlasAuditAlerts AuditLogLines service atlas-audit-alerts',
        'AtlasAuditAlerts AuditLogMalformedLines service atlas-audit-alerts',
      ],
      'Audit log objects': [
        expect.stringMatching(/^AWS\/Lambda Invocations FunctionName AuditLogReceiverReader/),
        expect.stringMatching(/^AWS\/Lambda Errors FunctionName AuditLogReceiverReader/),
        'AtlasAuditAlerts AuditLogObjectsFailed service atlas-audit-alerts',
        expect.stringMatching(
          /^AWS\/SQS ApproximateAgeOfOldestMessage QueueName AuditLogReceiverNotifications/,
        ),
        expect.stringMatching(
          /^AWS\/SQS ApproximateNumberOfMessagesVisible QueueName AuditLogReceiverDeadLetters/,
        ),
      ],
    });
  });

  it('prints each bucket name and role ARN as outputs', () => {
    const outputs = Object.keys(template.findOutputs('*'));

    expect(outputs).toEqual(
      expect.arrayContaining([
        'AuditLogBucketName',
        'AuditLogRoleArn',
        'AuditLogBucketNameProdOrg',
        'AuditLogRoleArnProdOrg',
      ]),
    );
  });

  it('has no cdk-nag finding left unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('AuditAlertsStack with audit logs turned off', () => {
  const workspace = createTestWorkspace();
  let template: Template;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'audit-logs-off',
      settings: {
        sources: { orgIds: [ORG_ID] },
        auditLogs: {
          enabled: false,
          projects: [
            {
              projectId: PROJECT_ID,
              prefix: 'atlas-logs/payments',
              atlasAWSAccountArn: ATLAS_ARN,
              atlasAssumedRoleExternalId: EXTERNAL_ID,
            },
          ],
        },
        rules: { directories: [rules] },
      },
    }));
  }, 600_000);
  afterAll(() => workspace.remove());

  it('builds no bucket, role, notification, queue or function for them', () => {
    expect(bucketIds(template)).toEqual([]);
    expect(atlasRoles(template)).toEqual([]);
    template.resourceCountIs('Custom::S3BucketNotifications', 0);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
    expect(
      Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
        READER.test(JSON.stringify(fn)),
      ),
    ).toEqual([]);
    expect(Object.keys(template.findOutputs('*')).filter((id) => id.startsWith('AuditLog'))).toEqual([]);
    expect(JSON.stringify(resourceOf(template, 'AWS::CloudWatch::Dashboard').Properties)).not.toContain(
      'AuditLog',
    );
  });
});

describe('AuditAlertsStack with audit logs in a VPC it creates', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'audit-logs-vpc',
      settings: {
        sources: { orgIds: [ORG_ID] },
        network: { mode: 'create-vpc' },
        auditLogs: {
          projects: [
            {
              projectId: PROJECT_ID,
              prefix: 'atlas-logs/payments',
              atlasAWSAccountArn: ATLAS_ARN,
              atlasAssumedRoleExternalId: EXTERNAL_ID,
            },
          ],
        },
        rules: { directories: [rules] },
      },
    }));
  }, 600_000);
  afterAll(() => workspace.remove());

  it('reads the objects through an S3 gateway endpoint, off the NAT gateway, from the reader in the VPC', () => {
    const reader = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(READER.source),
    });

    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.s3']] },
    });
    expect(reader.Properties).toHaveProperty('VpcConfig');
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});
