import type { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { DeployConfigError } from '../../infra/errors.js';
import { FAN_OUT_CONFIG_ENV, fanOutRuntimeSchema } from '../../shared/fan-out/fan-out-settings.js';
import { synthesizeDeployment } from './support/deployment.js';
import { unacknowledgedFindings } from './support/nag.js';
import { policyStatementsOf, resourceOf, singleLogicalId } from './support/template.js';
import { createTestWorkspace, VALID_RULE_FILE } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';

/** The actions a role's policies grant, flattened and sorted. */
function actionsOf(template: Template, roleId: string): string[] {
  return policyStatementsOf(template, roleId)
    .flatMap((statement) => {
      const action = (statement as { Action: string | string[] }).Action;
      return Array.isArray(action) ? action : [action];
    })
    .sort();
}

function roleOfFunction(template: Template, description: RegExp): string {
  const fn = resourceOf(template, 'AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp(description.source),
  });
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

describe('AuditAlertsStack with fanOut', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let automatic: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    const base = {
      sources: { orgIds: [ORG_ID], allProjectsOfOrgs: true },
      alerts: { emails: ['secops@example.com'] },
      operations: { emails: ['platform@example.com'] },
      rules: { directories: [rules] },
    };
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'fan-out-on',
      settings: {
        ...base,
        fanOut: { mode: 'on', batchSize: 5, maxConcurrency: 20, maxConcurrencyPerOrg: 3 },
      },
    }));
    ({ template: automatic } = await synthesizeDeployment({
      workspace,
      name: 'fan-out-automatic',
      settings: { ...base, fanOut: { mode: 'automatic', automaticAboveSources: 500 } },
    }));
  }, 600_000);
  afterAll(() => workspace.remove());

  it('creates a KMS-encrypted FIFO source queue whose failures go to a FIFO dead-letter queue', () => {
    const deadLetterId = singleLogicalId(template, 'AWS::SQS::Queue', {
      FifoQueue: true,
      MessageRetentionPeriod: 14 * 86_400,
    });

    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      VisibilityTimeout: 720,
      KmsMasterKeyId: Match.anyValue(),
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(
      resourceOf(template, 'AWS::SQS::Queue', { FifoQueue: true, MessageRetentionPeriod: 14 * 86_400 })
        .Properties,
    ).toHaveProperty('KmsMasterKeyId');
  });

  it('schedules the dispatcher and feeds the worker from the queue with per-message failures', () => {
    const dispatcher = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Queues one message per'),
    });
    const worker = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sources its queue messages name'),
    });
    const workerId = singleLogicalId(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sources its queue messages name'),
    });

    expect(dispatcher.Properties).toMatchObject({ ReservedConcurrentExecutions: 1 });
    expect(worker.Properties).not.toHaveProperty('ReservedConcurrentExecutions');
    expect(worker.Properties).toMatchObject({ Timeout: 120, MemorySize: 256, Architectures: ['arm64'] });
    const settings = (worker.Properties.Environment as { Variables: Record<string, unknown> }).Variables[
      FAN_OUT_CONFIG_ENV
    ];
    expect(JSON.stringify(settings)).toContain('"maxConcurrencyPerOrg\\":3');
    template.resourceCountIs('AWS::Lambda::Function', 2);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 20 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PollerFunction'), 'Arn'] } }),
    });
  });

  it("lets the dispatcher read its secret, the sources' poll times and send to the queue, and not write the table or publish", () => {
    const actions = actionsOf(template, roleOfFunction(template, /Queues one message per/));

    expect(actions).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue', 'sqs:SendMessage', 'kms:GenerateDataKey']),
    );
    expect(actions.filter((action) => /^(dynamodb|sns|sqs:Receive|sqs:Delete)|\*/.test(action))).toEqual([
      'dynamodb:BatchGetItem',
    ]);
  });

  it('lets the worker consume the queue, use the table and publish alerts, and not send to the queue', () => {
    const actions = actionsOf(template, roleOfFunction(template, /sources its queue messages name/));

    expect(actions).toEqual(
      expect.arrayContaining([
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'dynamodb:UpdateItem',
        'sns:Publish',
        'secretsmanager:GetSecretValue',
      ]),
    );
    expect(actions).not.toContain('sqs:SendMessage');
    expect(actions.filter((action) => action.endsWith('*') && !action.startsWith('kms:'))).toEqual([]);
  });

  it('lets an automatic dispatcher poll small ticks itself', () => {
    const actions = actionsOf(automatic, roleOfFunction(automatic, /Queues one message per/));

    expect(actions).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'dynamodb:UpdateItem', 'sns:Publish']),
    );
    const dispatcher = resourceOf(automatic, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('Queues one message per'),
    });
    const settings = JSON.stringify(
      (dispatcher.Properties.Environment as { Variables: Record<string, unknown> }).Variables[
        FAN_OUT_CONFIG_ENV
      ],
    );
    expect(settings).toContain('automaticAboveSources\\":500');
  });

  it('alarms on the age of the oldest queued source, the dead-letter depth and worker errors', () => {
    for (const metric of ['ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesVisible', 'Errors']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metric,
        AlarmDescription: Match.stringLikeRegexp('fan-out'),
        AlarmActions: [Match.anyValue()],
      });
    }
    const dashboard = JSON.stringify(resourceOf(template, 'AWS::CloudWatch::Dashboard', {}).Properties);
    expect(dashboard).toContain('Fan-out queue');
    expect(dashboard).toContain('per-source lag');
  });

  it('leaves nothing for cdk-nag to flag unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('AuditAlertsStack with fanOut in a VPC', () => {
  const workspace = createTestWorkspace();
  let withEndpoints: Template;
  let throughNat: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    const base = {
      env: { account: '123456789012', region: 'eu-west-1' },
      sources: { orgIds: [ORG_ID], allProjectsOfOrgs: true },
      alerts: { emails: ['secops@example.com'] },
      rules: { directories: [rules] },
      fanOut: { mode: 'on' as const },
    };
    ({ template: withEndpoints, app } = await synthesizeDeployment({
      workspace,
      name: 'fan-out-vpc-endpoints',
      settings: { ...base, network: { mode: 'create-vpc', interfaceEndpoints: true } },
    }));
    ({ template: throughNat } = await synthesizeDeployment({
      workspace,
      name: 'fan-out-vpc-nat',
      settings: { ...base, network: { mode: 'create-vpc' } },
    }));
  }, 600_000);
  afterAll(() => workspace.remove());

  const privateSubnets = (template: Template): string[] =>
    Object.keys(
      template.findResources('AWS::EC2::Subnet', {
        Properties: { Tags: Match.arrayWith([{ Key: 'aws-cdk:subnet-type', Value: 'Private' }]) },
      }),
    ).sort();

  it('runs the dispatcher and the worker in the private subnets with the poller security group', () => {
    for (const template of [withEndpoints, throughNat]) {
      const functions = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Description: Match.stringLikeRegexp('MongoDB Atlas source') },
        }),
      ) as Array<{
        Properties: { VpcConfig?: { SubnetIds: Array<{ Ref: string }> } };
      }>;

      expect(functions).toHaveLength(2);
      for (const fn of functions) {
        expect(fn.Properties.VpcConfig?.SubnetIds.map((subnet) => subnet.Ref).sort()).toEqual(
          privateSubnets(template),
        );
      }
    }
  });

  it('reaches SQS through an interface endpoint with private DNS beside Secrets Manager and SNS', () => {
    const endpointGroupId = singleLogicalId(withEndpoints, 'AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('endpoints'),
    });

    const endpoint = resourceOf(withEndpoints, 'AWS::EC2::VPCEndpoint', {
      ServiceName: 'com.amazonaws.eu-west-1.sqs',
    });

    expect(endpoint.Properties).toMatchObject({
      VpcEndpointType: 'Interface',
      PrivateDnsEnabled: true,
      SecurityGroupIds: [{ 'Fn::GetAtt': [endpointGroupId, 'GroupId'] }],
    });
    expect(endpoint.Properties.SubnetIds.map((subnet: { Ref: string }) => subnet.Ref).sort()).toEqual(
      privateSubnets(withEndpoints),
    );
    withEndpoints.resourcePropertiesCountIs('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Interface' }, 3);
  });

  it('reaches SQS through the NAT gateway when interface endpoints are off', () => {
    throughNat.resourceCountIs('AWS::EC2::NatGateway', 1);
    throughNat.resourcePropertiesCountIs('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Interface' }, 0);
    throughNat.resourcePropertiesCountIs(
      'AWS::EC2::VPCEndpoint',
      { ServiceName: Match.stringLikeRegexp('sqs') },
      0,
    );
  });

  it('leaves nothing for cdk-nag to flag unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('the fanOut setting', () => {
  const parse = (fanOut: unknown, extra: Record<string, unknown> = {}) =>
    parseDeployConfig({ input: { sources: { orgIds: [ORG_ID] }, fanOut, ...extra }, origin: 'test' });

  it('is off by default', () => {
    expect(
      parseDeployConfig({ input: { sources: { orgIds: [ORG_ID] } }, origin: 'test' }).fanOut,
    ).toMatchObject({
      mode: 'off',
      batchSize: 10,
      maxConcurrency: 10,
      maxConcurrencyPerOrg: 2,
    });
  });

  it('names the setting and the allowed values when a mode is unknown', () => {
    expect(() => parse({ mode: 'sometimes' })).toThrow(DeployConfigError);
    expect(() => parse({ mode: 'sometimes' })).toThrow(/fanOut\.mode/);
  });

  it('refuses a batch larger than a FIFO queue delivers', () => {
    expect(() => parse({ mode: 'on', batchSize: 11 })).toThrow(/fanOut\.batchSize/);
  });

  it('refuses more workers per organization than workers in all', () => {
    expect(() => parse({ mode: 'on', maxConcurrency: 4, maxConcurrencyPerOrg: 5 })).toThrow(
      /fanOut\.maxConcurrencyPerOrg.*fanOut\.maxConcurrency \(4\)/,
    );
  });

  it('refuses a worker timeout within the deadline margin', () => {
    expect(() =>
      parse({ mode: 'on', workerTimeoutSeconds: 30 }, { timing: { deadlineMarginSeconds: 30 } }),
    ).toThrow(/fanOut\.workerTimeoutSeconds/);
  });

  it('writes run-time settings the functions accept', () => {
    const config = parse({ mode: 'automatic', automaticAboveSources: 300 });
    expect(
      fanOutRuntimeSchema.parse({
        queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo',
        mode: config.fanOut.mode,
        automaticAboveSources: config.fanOut.automaticAboveSources,
        maxConcurrencyPerOrg: config.fanOut.maxConcurrencyPerOrg,
        schedulePeriodSeconds: config.timing.scheduleMinutes * 60,
      }).mode,
    ).toBe('automatic');
  });
});
