import type { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_TABLE_NAME } from '../../cli/commands/status.js';
import { METRICS_NAMESPACE, METRICS_SERVICE, MetricName } from '../../shared/poll/metric-names.js';
import { POLLER_CONFIG_ENV, pollerConfigSchema } from '../../shared/poll/poller-config.js';
import { synthesizeDeployment } from './support/deployment.js';
import { acknowledgements, unacknowledgedFindings } from './support/nag.js';
import { policyStatementsOf, resolveReferences, resourceOf, singleLogicalId } from './support/template.js';
import { createTestWorkspace, VALID_RULE_FILE } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';
const PROJECT_ID = '6a5b4c3d2e1f009988776655';

describe('AuditAlertsStack', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'full',
      settings: {
        sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID] },
        alerts: {
          emails: ['secops@example.com', 'ciso@example.com'],
          emailMinSeverity: 'high',
          slack: { workspaceId: 'T012AB3CD', channelId: 'C0123ABCDEF', minSeverity: 'medium' },
        },
        operations: { emails: ['platform@example.com'], watermarkLagAlarmMinutes: 45 },
        rules: { directories: [rules] },
      },
    }));
  });
  afterAll(() => workspace.remove());

  describe('credentials secret', () => {
    it('creates a secret whose value never appears in the template', () => {
      const secret = resourceOf(template, 'AWS::SecretsManager::Secret');

      expect(secret.Properties).not.toHaveProperty('SecretString');
      expect(secret.Properties).toMatchObject({
        GenerateSecretString: { SecretStringTemplate: '{}', GenerateStringKey: 'replaceMe' },
      });
    });
  });

  describe('state table', () => {
    it('is on demand with the state store keys, TTL, point-in-time recovery, deletion protection and encryption', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
      });
    });

    it('is retained when the stack is deleted', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });
  });

  describe('alert topic', () => {
    it('is encrypted with a rotating customer managed key and has a display name', () => {
      const keyId = singleLogicalId(template, 'AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('topics'),
      });

      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      template.hasResourceProperties('AWS::SNS::Topic', {
        DisplayName: 'Atlas audit alerts',
        KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
      });
    });

    it('refuses every request that does not use TLS', () => {
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: 'Atlas audit alerts' });

      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topicId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('emails each address the alerts at or above the email severity floor, and the daily digest of info and low', () => {
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: 'Atlas audit alerts' });

      for (const address of ['secops@example.com', 'ciso@example.com']) {
        template.hasResourceProperties('AWS::SNS::Subscription', {
          Protocol: 'email',
          Endpoint: address,
          TopicArn: { Ref: topicId },
          FilterPolicy: { $or: [{ severityRank: [{ numeric: ['>=', 4] }] }, { digest: ['default'] }] },
        });
      }
    });
  });

  describe('Slack delivery', () => {
    it('feeds a queue from the alert topic through the Slack severity floor, with the daily digest', () => {
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: 'Atlas audit alerts' });

      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'sqs',
        TopicArn: { Ref: topicId },
        RawMessageDelivery: true,
        FilterPolicy: { $or: [{ severityRank: [{ numeric: ['>=', 3] }] }, { digest: ['default'] }] },
      });
    });

    it('forwards each queued message body unchanged to the topic the Chatbot channel reads', () => {
      const slackTopicId = singleLogicalId(template, 'AWS::SNS::Topic', {
        DisplayName: 'Atlas audit alerts: Slack',
      });

      template.hasResourceProperties('AWS::Pipes::Pipe', {
        Target: { Ref: slackTopicId },
        SourceParameters: { SqsQueueParameters: { BatchSize: 1 } },
        TargetParameters: { InputTemplate: '<$.body>' },
      });
      template.hasResourceProperties('AWS::Chatbot::SlackChannelConfiguration', {
        ConfigurationName: 'AtlasAuditAlerts-alerts',
        SlackWorkspaceId: 'T012AB3CD',
        SlackChannelId: 'C0123ABCDEF',
        SnsTopicArns: [{ Ref: slackTopicId }],
        UserRoleRequired: false,
        GuardrailPolicies: [
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/AWSDenyAll']] },
        ],
      });
    });

    it('keeps the Slack queues encrypted, TLS only, with a dead-letter queue', () => {
      const slackKeyId = singleLogicalId(template, 'AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('Slack'),
      });
      const queues = template.findResources('AWS::SQS::Queue', {
        Properties: { KmsMasterKeyId: { 'Fn::GetAtt': [slackKeyId, 'Arn'] } },
      });

      expect(Object.keys(queues)).toHaveLength(2);
      template.hasResourceProperties('AWS::SQS::Queue', {
        RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }),
      });
      for (const queueId of Object.keys(queues)) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queueId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    });

    it('lets the pipe role read only its queue and publish only to the Slack topic', () => {
      const roleId = singleLogicalId(template, 'AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'pipes.amazonaws.com' } })],
        },
      });
      const slackTopicId = singleLogicalId(template, 'AWS::SNS::Topic', {
        DisplayName: 'Atlas audit alerts: Slack',
      });
      const queueId = singleLogicalId(template, 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
      const slackKeyId = singleLogicalId(template, 'AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('Slack'),
      });

      expect(policyStatementsOf(template, roleId)).toEqual([
        {
          Effect: 'Allow',
          Action: [
            'sqs:ChangeMessageVisibility',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:GetQueueUrl',
            'sqs:ReceiveMessage',
          ],
          Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
        },
        { Effect: 'Allow', Action: 'kms:Decrypt', Resource: { 'Fn::GetAtt': [slackKeyId, 'Arn'] } },
        { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: slackTopicId } },
        {
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: { 'Fn::GetAtt': [slackKeyId, 'Arn'] },
          Condition: {
            StringEquals: {
              'kms:ViaService': { 'Fn::Join': ['', ['sns.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
            },
          },
        },
      ]);
    });
  });

  describe('subscription dead-letter queues', () => {
    const topicIdOf = (displayName: string): string =>
      singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: displayName });
    const deadLettersKeyId = (): string =>
      singleLogicalId(template, 'AWS::KMS::Key', { Description: Match.stringLikeRegexp('dead-letter') });

    it('gives every subscription of the stack a dead-letter queue under a key of its own', () => {
      const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
      const queues = template.findResources('AWS::SQS::Queue');

      // Two alert emails, the Slack leg and the operations email.
      expect(subscriptions).toHaveLength(4);
      for (const subscription of subscriptions) {
        const target = subscription.Properties.RedrivePolicy?.deadLetterTargetArn as
          | { 'Fn::GetAtt': [string, string] }
          | undefined;
        const queueId = target?.['Fn::GetAtt'][0] as string;
        expect(queues[queueId]?.Properties).toMatchObject({
          KmsMasterKeyId: { 'Fn::GetAtt': [deadLettersKeyId(), 'Arn'] },
          MessageRetentionPeriod: 1_209_600,
        });
      }
      const targets = new Set(
        subscriptions.map((subscription) => JSON.stringify(subscription.Properties.RedrivePolicy)),
      );
      expect(targets.size).toBe(3);
    });

    it("lets each queue take messages only from its subscriptions' topic, over TLS", () => {
      const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
      const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));

      for (const subscription of subscriptions) {
        const queueId = subscription.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
        const policy = policies.find((candidate) =>
          JSON.stringify(candidate.Properties.Queues).includes(`"${queueId}"`),
        );
        expect(policy?.Properties.PolicyDocument.Statement).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            expect.objectContaining({
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Condition: { ArnEquals: { 'aws:SourceArn': subscription.Properties.TopicArn } },
            }),
          ]),
        );
      }
    });

    it("lets SNS use the queues' key only for the alert and operations topics of this account", () => {
      const key = template.findResources('AWS::KMS::Key')[deadLettersKeyId()];
      const statements = key?.Properties.KeyPolicy.Statement as Array<Record<string, unknown>>;
      const sns = statements.filter((statement) =>
        JSON.stringify(statement.Principal).includes('sns.amazonaws.com'),
      );

      expect(sns.map((statement) => statement.Condition)).toEqual([
        {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnEquals: { 'aws:SourceArn': { Ref: topicIdOf('Atlas audit alerts') } },
        },
        {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnEquals: { 'aws:SourceArn': { Ref: topicIdOf('Atlas audit alerts: operations') } },
        },
      ]);
      for (const statement of sns) {
        expect(statement.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
      }
    });

    it('alarms on the failed notifications of each topic and on any message in each queue', () => {
      for (const displayName of [
        'Atlas audit alerts',
        'Atlas audit alerts: operations',
        'Atlas audit alerts: Slack',
      ]) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/SNS',
          MetricName: 'NumberOfNotificationsFailed',
          Dimensions: [{ Name: 'TopicName', Value: { 'Fn::GetAtt': [topicIdOf(displayName), 'TopicName'] } }],
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
      const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
      for (const subscription of subscriptions) {
        const queueId = subscription.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    });
  });

  describe('poller function', () => {
    it('runs on Node.js 24 on ARM64 with 256 MB, a 3-minute timeout and one execution at a time', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 180,
        ReservedConcurrentExecutions: 1,
      });
    });

    it('never retries a failed tick and drops invocations older than one schedule period', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 300,
      });
    });

    it('writes JSON logs to its own log group with a retention', () => {
      const logGroupId = singleLogicalId(template, 'AWS::Logs::LogGroup', {});

      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      template.hasResourceProperties('AWS::Lambda::Function', {
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logGroupId }, ApplicationLogLevel: 'INFO' },
      });
    });

    it('carries the Powertools settings the alarms read and source maps', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
            POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
            POWERTOOLS_LOG_LEVEL: 'INFO',
            NODE_OPTIONS: '--enable-source-maps',
          }),
        },
      });
    });

    it('passes a configuration the handler accepts, naming its table, topic and secret', () => {
      const fn = resourceOf(template, 'AWS::Lambda::Function');
      const tableId = singleLogicalId(template, 'AWS::DynamoDB::Table', {});
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: 'Atlas audit alerts' });
      const secretId = singleLogicalId(template, 'AWS::SecretsManager::Secret', {});
      const references = {
        [tableId]: 'AtlasAuditAlerts-StateTable-ABC123',
        [topicId]: 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertsTopic-ABC123',
        [secretId]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf',
      };

      const json = resolveReferences(fn.Properties.Environment.Variables[POLLER_CONFIG_ENV], (reference) => {
        const value = references[reference];
        if (value === undefined) throw new Error(`The configuration refers to ${reference}`);
        return value;
      });
      const config = pollerConfigSchema.parse(JSON.parse(json));

      expect(config).toEqual({
        atlas: { baseUrl: 'https://cloud.mongodb.com', flavor: 'atlas-v2' },
        sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID], allProjectsOfOrgs: false },
        timing: {
          overlapSeconds: 900,
          lagSeconds: 30,
          initialLookbackSeconds: 3600,
          inventoryIntervalSeconds: 3600,
          deadlineMarginSeconds: 20,
        },
        inventory: { baselineFindings: true },
        concurrency: 4,
        tableName: references[tableId],
        topicArn: references[topicId],
        secretArn: references[secretId],
        digests: [{ route: 'default', every: 'daily', belowRank: 3, policy: null }],
      });
    });

    // Metrics leave as embedded metric format lines in the log group: logs:PutLogEvents is how it puts
    // them, and no cloudwatch:PutMetricData is granted.
    it('may write its logs and metrics, read its secret, use its table and publish to its topic, and nothing else', () => {
      const roleId = singleLogicalId(template, 'AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        },
      });
      const logGroupId = singleLogicalId(template, 'AWS::Logs::LogGroup', {});
      const secretId = singleLogicalId(template, 'AWS::SecretsManager::Secret', {});
      const tableId = singleLogicalId(template, 'AWS::DynamoDB::Table', {});
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', { DisplayName: 'Atlas audit alerts' });
      const keyId = singleLogicalId(template, 'AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('topics'),
      });

      expect(policyStatementsOf(template, roleId)).toEqual([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
        },
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: { Ref: secretId },
        },
        {
          Effect: 'Allow',
          Action: [
            'dynamodb:BatchGetItem',
            'dynamodb:ConditionCheckItem',
            'dynamodb:DeleteItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:Query',
            'dynamodb:UpdateItem',
          ],
          Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        },
        { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: topicId } },
        {
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: { 'Fn::GetAtt': [keyId, 'Arn'] },
          Condition: {
            StringEquals: {
              'kms:ViaService': { 'Fn::Join': ['', ['sns.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
            },
          },
        },
      ]);
    });

    it('has a role with no managed policies attached', () => {
      const role = resourceOf(template, 'AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        },
      });

      expect(role.Properties).not.toHaveProperty('ManagedPolicyArns');
    });
  });

  describe('schedule', () => {
    it('invokes the poller every 5 minutes, on time, with retries off', () => {
      const functionId = singleLogicalId(template, 'AWS::Lambda::Function', {});

      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(5 minutes)',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
          RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }),
        }),
      });
    });

    it('passes each run its scheduled time, the same in every delivery of the run', () => {
      const schedule = resourceOf(template, 'AWS::Scheduler::Schedule');

      expect(JSON.parse(schedule.Properties.Target.Input)).toEqual({
        scheduledTime: '<aws.scheduler.scheduled-time>',
      });
    });

    it('assumes a role that may only invoke the poller', () => {
      const roleId = singleLogicalId(template, 'AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })],
        },
      });
      const functionId = singleLogicalId(template, 'AWS::Lambda::Function', {});

      expect(policyStatementsOf(template, roleId)).toEqual([
        {
          Effect: 'Allow',
          Action: 'lambda:InvokeFunction',
          Resource: [
            { 'Fn::GetAtt': [functionId, 'Arn'] },
            { 'Fn::Join': ['', [{ 'Fn::GetAtt': [functionId, 'Arn'] }, ':*']] },
          ],
        },
      ]);
    });
  });

  describe('operations', () => {
    it('sends every alarm and its recovery to the operations topic, which emails the operations address', () => {
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', {
        DisplayName: 'Atlas audit alerts: operations',
      });
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));

      // The default route's daily digest adds DigestsFailed.
      expect(alarms).toHaveLength(16);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'DigestsFailed',
        Namespace: 'AtlasAuditAlerts',
      });
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      }
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'platform@example.com',
        TopicArn: { Ref: topicId },
      });
    });

    it('lets CloudWatch alarms of this account publish to the encrypted operations topic', () => {
      const topicId = singleLogicalId(template, 'AWS::SNS::Topic', {
        DisplayName: 'Atlas audit alerts: operations',
      });

      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topicId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Condition: Match.objectLike({
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              }),
            }),
          ]),
        },
      });
      template.hasResourceProperties('AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('topics'),
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            }),
          ]),
        },
      });
    });

    it("grants CloudWatch the messaging key only for this account's alarms", () => {
      const key = Object.values(template.findResources('AWS::KMS::Key')).find((resource) =>
        /topics/.test(String(resource.Properties.Description)),
      );
      const statements = (key?.Properties.KeyPolicy.Statement ?? []) as Array<Record<string, unknown>>;
      const cloudWatch = statements.filter(
        (statement) =>
          JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com') &&
          statement.Effect === 'Allow',
      );

      const condition = cloudWatch[0]?.Condition as Record<string, Record<string, unknown>> | undefined;
      const pseudo = (reference: string): string => `<${reference}>`;

      expect(cloudWatch).toHaveLength(1);
      expect(Object.keys(condition ?? {}).sort()).toEqual(['ArnLike', 'StringEquals']);
      expect(resolveReferences(condition?.StringEquals?.['aws:SourceAccount'], pseudo)).toBe(
        '<AWS::AccountId>',
      );
      expect(resolveReferences(condition?.ArnLike?.['aws:SourceArn'], pseudo)).toBe(
        'arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:*',
      );
    });

    it('alarms on function errors and throttles', () => {
      const functionId = singleLogicalId(template, 'AWS::Lambda::Function', {});

      for (const metricName of ['Errors', 'Throttles']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
          Statistic: 'Sum',
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Threshold: 1,
        });
      }
    });

    it('alarms when no tick has completed for three schedule periods, counting silence as failure', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRICS_NAMESPACE,
        MetricName: MetricName.tickCompleted,
        Dimensions: [{ Name: 'service', Value: METRICS_SERVICE }],
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 3,
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
      });
    });

    it('alarms on Atlas authentication or permission failures, rule errors, first-seen records not kept, and alerts that could not be published', () => {
      for (const metricName of [
        MetricName.atlasAuthFailures,
        MetricName.ruleErrors,
        MetricName.firstSeenStateErrors,
        MetricName.alertsFailed,
      ]) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: METRICS_NAMESPACE,
          MetricName: metricName,
          Dimensions: [{ Name: 'service', Value: METRICS_SERVICE }],
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Threshold: 1,
          TreatMissingData: 'notBreaching',
        });
      }
    });

    it("alarms when the oldest source's watermark, polled or not, lags more than the configured threshold", () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRICS_NAMESPACE,
        MetricName: MetricName.oldestSourceLagSeconds,
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 45 * 60,
      });
    });

    it('alarms when Slack messages land in the dead-letter queue', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
      });
    });

    it('draws events, alerts by severity, lag, Atlas requests and 429s, tick duration, rule errors and clock skew', () => {
      const dashboard = resourceOf(template, 'AWS::CloudWatch::Dashboard');

      const body = JSON.parse(
        resolveReferences(dashboard.Properties.DashboardBody, (reference) => reference),
      ) as {
        widgets: { properties: { metrics?: unknown[][] } }[];
      };
      const metrics = body.widgets.flatMap((widget) => widget.properties.metrics ?? []);
      const ours = metrics
        .filter((metric) => metric[0] === METRICS_NAMESPACE)
        .map((metric) =>
          metric
            .filter((part) => typeof part === 'string')
            .slice(1)
            .join(' '),
        );

      expect(ours).toEqual(
        expect.arrayContaining([
          `${MetricName.eventsFetched} service ${METRICS_SERVICE}`,
          `${MetricName.eventsNew} service ${METRICS_SERVICE}`,
          ...['info', 'low', 'medium', 'high', 'critical'].map(
            (severity) => `${MetricName.alertsPublished} service ${METRICS_SERVICE} severity ${severity}`,
          ),
          `${MetricName.watermarkLagSeconds} service ${METRICS_SERVICE}`,
          `${MetricName.oldestSourceLagSeconds} service ${METRICS_SERVICE}`,
          `${MetricName.atlasRequests} service ${METRICS_SERVICE}`,
          `${MetricName.atlasRateLimited} service ${METRICS_SERVICE}`,
          `${MetricName.tickDurationMs} service ${METRICS_SERVICE}`,
          `${MetricName.ruleErrors} service ${METRICS_SERVICE}`,
          `${MetricName.firstSeenStateErrors} service ${METRICS_SERVICE}`,
          `${MetricName.atlasClockSkewSeconds} service ${METRICS_SERVICE}`,
        ]),
      );
    });
  });

  describe('network (public, the default)', () => {
    it('runs the function outside any VPC and creates no network resource', () => {
      const fn = resourceOf(template, 'AWS::Lambda::Function');

      expect(fn.Properties).not.toHaveProperty('VpcConfig');
      for (const type of [
        'AWS::EC2::VPC',
        'AWS::EC2::NatGateway',
        'AWS::EC2::EIP',
        'AWS::EC2::SecurityGroup',
      ]) {
        template.resourceCountIs(type, 0);
      }
    });

    it('prints no egress address, since there is none to print', () => {
      expect(Object.keys(template.findOutputs('*'))).not.toContain('EgressIpAddresses');
    });
  });

  describe('cdk-nag AwsSolutions', () => {
    it('finds nothing unacknowledged', () => {
      expect(unacknowledgedFindings(app)).toEqual([]);
    });

    it('gives a reason for every acknowledgement', () => {
      const acknowledged = acknowledgements(app);

      expect(acknowledged.map(({ rule }) => rule).sort()).toEqual([
        expect.stringContaining('AwsSolutions-IAM5[Resource::<PollerFunction'),
        expect.stringContaining('AwsSolutions-SMG4'),
        // The three dead-letter queues of the subscriptions.
        expect.stringContaining('AwsSolutions-SQS3'),
        expect.stringContaining('AwsSolutions-SQS3'),
        expect.stringContaining('AwsSolutions-SQS3'),
      ]);
      for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
    });
  });

  describe('outputs', () => {
    it('names the secret to fill in and the topics to subscribe to', () => {
      const secretId = singleLogicalId(template, 'AWS::SecretsManager::Secret', {});

      template.hasOutput('CredentialsSecretArn', { Value: { Ref: secretId } });
      template.hasOutput('AlertTopicArn', Match.anyValue());
      template.hasOutput('OperationsTopicArn', Match.anyValue());
    });

    it("names the poller's log group, to tail, and the state table, whose name status --help shows as CloudFormation makes it", () => {
      const logGroupId = singleLogicalId(template, 'AWS::Logs::LogGroup', {});
      const tableId = singleLogicalId(template, 'AWS::DynamoDB::Table', {});

      template.hasOutput('PollerLogGroupName', { Value: { Ref: logGroupId } });
      template.hasOutput('StateTableName', { Value: { Ref: tableId } });
      // CloudFormation names a table stack-logicalId-suffix; the stack here has the default name.
      expect(EXAMPLE_TABLE_NAME).toMatch(new RegExp(`^AtlasAuditAlerts-${tableId}-[A-Z0-9]{13}$`));
    });
  });
});
