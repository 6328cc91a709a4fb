import type { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { DeployConfigError } from '../../infra/errors.js';
import { PUSH_CONFIG_ENV, pushRuntimeSchema } from '../../shared/push/index.js';
import { synthesizeDeployment } from './support/deployment.js';
import { unacknowledgedFindings } from './support/nag.js';
import { policyStatementsOf, resolveReferences, resourceOf, singleLogicalId } from './support/template.js';
import { createTestWorkspace, VALID_RULE_FILE } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';
const PROJECT_ID = '6a1b2c3d4e5f60718293a4b5';
const PROD_ORG_ID = '5f4e3d2c1b0a998877665500';
const PROD_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod-atlas-webhook-AbCdEf';
const PROD_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const RECEIVER = /Verifies MongoDB Atlas webhook pushes/;

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

function roleOf(template: Template, description: RegExp): string {
  const fn = resourceOf(template, 'AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp(description.source),
  });
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

function statementsOf(template: Template, description: RegExp): Statement[] {
  return policyStatementsOf(template, roleOf(template, description)) as Statement[];
}

const actionsOf = (statements: readonly Statement[]): string[] =>
  statements
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .sort();

describe('AuditAlertsStack with push', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;
  let stack: Stack;
  let receiverId: string;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app, stack } = await synthesizeDeployment({
      workspace,
      name: 'push',
      settings: {
        sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID] },
        connections: [
          {
            name: 'prod',
            sources: { orgIds: [PROD_ORG_ID], allProjectsOfOrgs: true },
            webhookSecret: { secretArn: PROD_SECRET_ARN, kmsKeyArn: PROD_KEY_ARN },
            timing: { lagSeconds: 20 },
          },
        ],
        alerts: { emails: ['secops@example.com'] },
        operations: { emails: ['platform@example.com'] },
        rules: { directories: [rules] },
        fanOut: { mode: 'automatic' },
        push: { enabled: true },
      },
    }));
    receiverId = singleLogicalId(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(RECEIVER.source),
    });
  }, 600_000);
  afterAll(() => workspace.remove());

  it('gives the receiver a function URL with auth NONE, which anyone may invoke only through the URL', () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [receiverId, 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionName: { 'Fn::GetAtt': [receiverId, 'Arn'] },
      Principal: '*',
      FunctionUrlAuthType: 'NONE',
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [receiverId, 'Arn'] },
      Principal: '*',
      InvokedViaFunctionUrl: true,
    });
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (permission) => JSON.stringify(permission).includes(receiverId),
    );
    expect(permissions).toHaveLength(2);
  });

  it('bounds the receiver: reserved concurrency 2, a 10-second timeout, outside any VPC, on Node 24 arm64', () => {
    const receiver = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(RECEIVER.source),
    });

    expect(receiver.Properties).toMatchObject({
      ReservedConcurrentExecutions: 2,
      Timeout: 10,
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
    expect(receiver.Properties).not.toHaveProperty('VpcConfig');
  });

  it('lets the receiver read the webhook secrets, write push claims and send to the queue, and nothing else', () => {
    const statements = statementsOf(template, RECEIVER);
    const actions = actionsOf(statements);

    expect([...new Set(actions)]).toEqual(
      [
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ]
        .concat(['sqs:SendMessage'])
        .sort(),
    );
    const claims = statements.find((statement) => actionsOf([statement]).includes('dynamodb:PutItem'));
    expect(claims?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PUSH#*'] } });
    const createdSecretId = singleLogicalId(template, 'AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('Webhook integrations of the connection default'),
    });
    const secretResources = statements
      .filter((statement) => actionsOf([statement]).includes('secretsmanager:GetSecretValue'))
      .flatMap((statement) => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]))
      .map((resource) => JSON.stringify(resource));
    expect(secretResources.sort()).toEqual(
      [JSON.stringify({ Ref: createdSecretId }), JSON.stringify(PROD_SECRET_ARN)].sort(),
    );
    // The prod secret's own key, only through Secrets Manager.
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 'kms:Decrypt',
        Resource: PROD_KEY_ARN,
        Condition: { StringEquals: { 'kms:ViaService': expect.anything() } },
      }),
    );
    // Never the Atlas credentials (one secret per connection).
    const credentials = Object.keys(
      template.findResources('AWS::SecretsManager::Secret', {
        Properties: { Description: Match.stringLikeRegexp('API credentials') },
      }),
    );
    expect(credentials).toHaveLength(2);
    for (const id of credentials) expect(JSON.stringify(statements)).not.toContain(id);
  });

  it('creates the default connection its webhook secret, 40 random characters, with no value in the template', () => {
    const secret = resourceOf(template, 'AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('Webhook integrations of the connection default'),
    });

    expect(secret.Properties.GenerateSecretString).toEqual({ PasswordLength: 40, ExcludePunctuation: true });
    expect(secret.Properties).not.toHaveProperty('SecretString');
  });

  it('lets no other function read a webhook secret', () => {
    const createdSecretId = singleLogicalId(template, 'AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('Webhook integrations of the connection default'),
    });
    for (const other of [/Queues one message per/, /sources its queue messages name/]) {
      const text = JSON.stringify(statementsOf(template, other));
      expect(text).not.toContain(createdSecretId);
      expect(text).not.toContain(PROD_SECRET_ARN);
    }
  });

  it("writes the receiver's settings: the table, the queue, each connection's sources and secret", () => {
    const receiver = resourceOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(RECEIVER.source),
    });
    const value = (receiver.Properties.Environment as { Variables: Record<string, unknown> }).Variables[
      PUSH_CONFIG_ENV
    ];
    const text = resolveReferences(value, (reference) =>
      reference.includes('Secret')
        ? 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:created-AbCdEf'
        : reference,
    );
    const settings = pushRuntimeSchema.parse(JSON.parse(text));

    expect(settings.connections).toEqual([
      expect.objectContaining({
        name: 'default',
        sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID], allProjectsOfOrgs: false },
      }),
      expect.objectContaining({
        name: 'prod',
        secretArn: PROD_SECRET_ARN,
        sources: { orgIds: [PROD_ORG_ID], projectIds: [], allProjectsOfOrgs: true },
      }),
    ]);
    expect(settings).toMatchObject({ maxAgeSeconds: 3_600, coalesceSeconds: 10, secretTtlSeconds: 300 });
  });

  it("outputs each connection's webhook URL and secret", () => {
    const urlId = singleLogicalId(template, 'AWS::Lambda::Url', {});

    template.hasOutput('PushWebhookUrl', { Value: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } });
    template.hasOutput('PushWebhookUrlProd', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [urlId, 'FunctionUrl'] }, 'prod']] },
    });
    template.hasOutput('WebhookSecretArnProd', { Value: PROD_SECRET_ARN });
    template.hasOutput('WebhookSecretArn', Match.anyValue());
  });

  it('alarms to the operations topic when a signed push could not be taken, and when the receiver fails', () => {
    const operationsTopicId = singleLogicalId(template, 'AWS::SNS::Topic', {
      DisplayName: 'Atlas audit alerts: operations',
    });

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'PushRequests',
      Namespace: 'AtlasAuditAlerts',
      Dimensions: Match.arrayWith([{ Name: 'outcome', Value: 'failed' }]),
      Statistic: 'Sum',
      Threshold: 1,
      AlarmActions: [{ Ref: operationsTopicId }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: receiverId } }],
      AlarmActions: [{ Ref: operationsTopicId }],
    });
  });

  it('warns of no window lag: a poll a push wakes reads to now, whatever the lag', () => {
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('lagSeconds'));

    expect(warnings).toEqual([]);
  });

  it('leaves nothing for cdk-nag to flag unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('the push setting', () => {
  const parse = (input: Record<string, unknown>) =>
    parseDeployConfig({ input: { sources: { orgIds: [ORG_ID] }, ...input }, origin: 'test' });

  it('is off by default, with reserved concurrency 2 once on', () => {
    expect(parse({}).push).toMatchObject({ enabled: false, reservedConcurrency: 2, maxAgeSeconds: 3_600 });
  });

  it('refuses push without the fan-out queue, and says what to set', () => {
    expect(() => parse({ push: { enabled: true } })).toThrow(DeployConfigError);
    expect(() => parse({ push: { enabled: true } })).toThrow(
      /push\.enabled: needs the fan-out queue.*fanOut\.mode to automatic/,
    );
    expect(parse({ push: { enabled: true }, fanOut: { mode: 'automatic' } }).push.enabled).toBe(true);
  });

  it("refuses a webhook secret's key without the secret", () => {
    expect(() =>
      parse({ push: { enabled: true, webhookSecret: { kmsKeyArn: PROD_KEY_ARN } }, fanOut: { mode: 'on' } }),
    ).toThrow(/push\.webhookSecret\.kmsKeyArn: only applies to an existing secret/);
    expect(() =>
      parse({
        fanOut: { mode: 'on' },
        connections: [
          { name: 'prod', sources: { orgIds: [PROD_ORG_ID] }, webhookSecret: { secretArn: 'prod-secret' } },
        ],
      }),
    ).toThrow(/connections\[0\]\.webhookSecret\.secretArn: must be the complete ARN/);
  });

  it('refuses a reserved concurrency of 0, which would stop the receiver, and takes false for none', () => {
    expect(() => parse({ push: { reservedConcurrency: 0 } })).toThrow(/push\.reservedConcurrency/);
    expect(parse({ push: { reservedConcurrency: false } }).push.reservedConcurrency).toBe(false);
  });
});
