import { App } from 'aws-cdk-lib';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuditAlertsStack } from '../../infra/audit-alerts-app.js';
import { DEPLOY_CONFIG_CONTEXT_KEY, type DeployConfigInput } from '../../infra/config.js';
import { NothingToPollError } from '../../infra/errors.js';
import { POLLER_CONFIG_ENV } from '../../shared/poll/poller-config.js';
import { synthesizeDeployment } from './support/deployment.js';
import { unacknowledgedFindings } from './support/nag.js';
import { policyStatementsOf, resolveReferences, resourceOf, singleLogicalId } from './support/template.js';
import { cdkJsonContext, createTestWorkspace, PROJECT_ROOT, VALID_RULE_FILE } from './support/workspace.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-audit-alerts-AbCdEf';
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const ORG_ID = '5f4e3d2c1b0a998877665544';

describe('AuditAlertsStack with an existing secret, no Slack and a disposable table', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'variant',
      settings: {
        stackName: 'AtlasAuditAlertsStaging',
        atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' },
        sources: { projectIds: ['6a5b4c3d2e1f009988776655'] },
        timing: { scheduleMinutes: 15 },
        operations: { watermarkLagAlarmMinutes: 90 },
        credentials: { secretArn: SECRET_ARN, kmsKeyArn: KEY_ARN },
        table: { removalPolicy: 'destroy' },
        poller: {
          timeoutSeconds: 300,
          memoryMiB: 512,
          logRetentionDays: 90,
          logLevel: 'WARN',
          reservedConcurrency: false,
        },
        rules: { directories: [rules] },
      },
    }));
  });
  afterAll(() => workspace.remove());

  it('creates no secret and lets the poller read the existing one and decrypt it through Secrets Manager', () => {
    const roleId = singleLogicalId(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
      },
    });

    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(policyStatementsOf(template, roleId)).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: SECRET_ARN,
        },
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: KEY_ARN,
          Condition: {
            StringEquals: {
              'kms:ViaService': {
                'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
              },
            },
          },
        },
      ]),
    );
  });

  it('hands the poller the existing secret and the Ops Manager settings', () => {
    const fn = resourceOf(template, 'AWS::Lambda::Function');

    const json = resolveReferences(
      fn.Properties.Environment.Variables[POLLER_CONFIG_ENV],
      (reference) => reference,
    );

    expect(JSON.parse(json)).toMatchObject({
      atlas: { flavor: 'ops-manager', baseUrl: 'https://opsmanager.example.com:8443' },
      sources: { orgIds: [], projectIds: ['6a5b4c3d2e1f009988776655'], allProjectsOfOrgs: false },
      secretArn: SECRET_ARN,
    });
    expect(JSON.parse(json).sources).not.toHaveProperty('allowNone');
  });

  it('deletes the table with the stack, without deletion protection', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('sizes, times and logs the function as configured, without reserving concurrency', () => {
    const fn = resourceOf(template, 'AWS::Lambda::Function');

    expect(fn.Properties).toMatchObject({
      MemorySize: 512,
      Timeout: 300,
      LoggingConfig: { ApplicationLogLevel: 'WARN' },
      Environment: { Variables: { POWERTOOLS_LOG_LEVEL: 'WARN' } },
    });
    expect(fn.Properties).not.toHaveProperty('ReservedConcurrentExecutions');
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('runs every 15 minutes and reads its heartbeat in periods of the same length', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(15 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumEventAgeInSeconds: 900 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'TickCompleted',
      Period: 900,
      EvaluationPeriods: 3,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'OldestSourceLagSeconds',
      Threshold: 90 * 60,
    });
  });

  it('has no Slack delivery, no subscriptions and no dead-letter queue when none are configured', () => {
    for (const type of [
      'AWS::Pipes::Pipe',
      'AWS::Chatbot::SlackChannelConfiguration',
      'AWS::SQS::Queue',
      'AWS::SNS::Subscription',
    ]) {
      template.resourceCountIs(type, 0);
    }
    template.resourceCountIs('AWS::KMS::Key', 1);
    // The poller's eight, and failed notifications of the two topics (to endpoints subscribed later).
    template.resourceCountIs('AWS::CloudWatch::Alarm', 10);
  });

  it('leaves cdk-nag nothing unacknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('addAuditAlertsStack', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it('refuses the cdk.json defaults, which name no source, saying what to set', async () => {
    const defaults = cdkJsonContext()[DEPLOY_CONFIG_CONTEXT_KEY] as DeployConfigInput;

    const synth = synthesizeDeployment({ workspace, name: 'defaults', settings: defaults });

    await expect(synth).rejects.toThrow(NothingToPollError);
    await expect(synth).rejects.toThrow(
      /names no Atlas organization and no project: the deployed poller would have nothing to poll and fail every tick\.[^\n]*\n {2}- sources\.orgIds: [^\n]*\n {2}- sources\.projectIds: project ids\nTo deploy before you know them, set sources\.allowNone: true/,
    );
  });

  it('synthesizes the defaults with sources.allowNone, warning that nothing is polled, delivered or operated', async () => {
    const defaults = cdkJsonContext()[DEPLOY_CONFIG_CONTEXT_KEY] as { sources: Record<string, unknown> };
    const { stack, app, template } = await synthesizeDeployment({
      workspace,
      name: 'allow-none',
      settings: { ...defaults, sources: { ...defaults.sources, allowNone: true } } as DeployConfigInput,
    });

    const warnings = Annotations.fromStack(stack);
    const fn = resourceOf(template, 'AWS::Lambda::Function');
    const written = resolveReferences(fn.Properties.Environment.Variables[POLLER_CONFIG_ENV], (ref) => ref);

    expect(JSON.parse(written).sources).toEqual({
      orgIds: [],
      projectIds: [],
      allProjectsOfOrgs: false,
      allowNone: true,
    });
    warnings.hasWarning(
      '/AtlasAuditAlerts/Default',
      Match.stringLikeRegexp('sources.allowNone is set and no Atlas org or project is configured'),
    );
    warnings.hasWarning(
      '/AtlasAuditAlerts/Default',
      Match.stringLikeRegexp('No alert email address and no Slack channel'),
    );
    warnings.hasWarning('/AtlasAuditAlerts/Default', Match.stringLikeRegexp('No operations email address'));
    expect(unacknowledgedFindings(app)).toEqual([]);
  });

  it('fails on unknown names in a user layer, shows other rule warnings, and every one with rules.strict', async () => {
    const rules = workspace.write(
      'warned.yaml',
      VALID_RULE_FILE.replace('API_KEY_CREATED', 'API_KEY_CRATED').replace(
        'id: api-key-created',
        'id: my-key-created',
      ),
    );

    // Each synth is awaited as it starts: a refusal left unawaited would be an unhandled rejection.
    await expect(
      synthesizeDeployment({
        workspace,
        name: 'rule-warnings-default',
        settings: { sources: { orgIds: [ORG_ID] }, rules: { directories: ['builtin', rules] } },
      }),
    ).rejects.toThrow(/Rule files are invalid \(1 problem\)[\s\S]*warned\.yaml:6:22: "API_KEY_CRATED"/);
    const { stack } = await synthesizeDeployment({
      workspace,
      name: 'rule-warnings',
      settings: { sources: { orgIds: [ORG_ID] }, rules: { directories: ['builtin', rules], strict: false } },
    });
    const strict = synthesizeDeployment({
      workspace,
      name: 'rule-warnings-strict',
      settings: { sources: { orgIds: [ORG_ID] }, rules: { directories: ['builtin', rules], strict: true } },
    });

    Annotations.fromStack(stack).hasWarning(
      '/AtlasAuditAlerts/Default',
      Match.stringLikeRegexp(
        'Rule files have 2 warnings \\(rules.strict: true fails synth on them\\):\\n[\\s\\S]*warned\\.yaml:6:22: warning: "API_KEY_CRATED" is not a known Atlas event type',
      ),
    );
    await expect(strict).rejects.toThrow(
      /Rule files are invalid \(2 problems\)[\s\S]*warned\.yaml:6:22: "API_KEY_CRATED"/,
    );
  });

  it('says in a synth warning when the rule layers leave the built-in pack out', async () => {
    const rules = workspace.write('mine.yaml', VALID_RULE_FILE);

    const { stack } = await synthesizeDeployment({
      workspace,
      name: 'rule-layers-without-builtin',
      settings: { sources: { orgIds: [ORG_ID] }, rules: { directories: [rules] } },
    });

    Annotations.fromStack(stack).hasWarning(
      '/AtlasAuditAlerts/Default',
      Match.stringLikeRegexp(
        '^Rule layers \\(rules.directories\\): .*mine\\.yaml: builtin is not among the rule layers .* so the \\d+ rules of the built-in pack are off',
      ),
    );
  });

  it('runs cdk-nag on every synth: a resource that breaks its rules fails the synth', async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    const app = new App({
      outdir: `${workspace.directory}/nag`,
      context: {
        ...cdkJsonContext(),
        [DEPLOY_CONFIG_CONTEXT_KEY]: { sources: { orgIds: [ORG_ID] }, rules: { directories: [rules] } },
        'aws:cdk:bundling-stacks': [],
      },
    });
    const { stack } = addAuditAlertsStack({ app, projectRoot: PROJECT_ROOT });
    new Topic(stack, 'PlainTopic');

    const synth = () => app.synth();

    expect(synth).toThrow(/AtlasAuditAlerts\/PlainTopic\/Resource[\s\S]*AwsSolutions-SNS3/);
  });
});
