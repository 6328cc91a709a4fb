import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readLambdaConfig } from '../../functions/poller/lambda-config.js';
import { effectiveConnections } from '../../shared/poll/connections.js';
import { POLLER_CONFIG_ENV } from '../../shared/poll/poller-config.js';
import { synthesizeDeployment } from './support/deployment.js';
import { unacknowledgedFindings } from './support/nag.js';
import { egressRulesOf } from './support/security-groups.js';
import {
  policyStatementsOf,
  resolveReferences,
  singleLogicalId,
  type TemplateResource,
} from './support/template.js';
import { createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

/** A synth takes seconds on a quiet machine; the hooks allow for a busy one. */
const SYNTH_TIMEOUT_MS = 180_000;
const EXAMPLE = join(PROJECT_ROOT, 'infra/examples/connections.yaml');
const ROUTES_EXAMPLE = join(PROJECT_ROOT, 'infra/examples/routes.yaml');
const DEVELOPMENT_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-development-AbCdEf';
const DEVELOPMENT_KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const LAMBDA_PRINCIPAL = {
  AssumeRolePolicyDocument: {
    Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
  },
};

/** The secrets the stack creates, by the connection their description names. */
function createdSecrets(template: Template): Record<string, string> {
  const secrets = template.findResources('AWS::SecretsManager::Secret') as Record<string, TemplateResource>;
  return Object.fromEntries(
    Object.entries(secrets).map(([id, secret]) => [
      /the connection ([a-z0-9-]+) /.exec(String(secret.Properties.Description))?.[1] ?? '(top level)',
      id,
    ]),
  );
}

/** The poller configuration of `functionResource`, its references resolved to plausible values. */
function deployedConfig(functionResource: TemplateResource, secrets: Record<string, string>) {
  const names = Object.fromEntries(Object.entries(secrets).map(([name, id]) => [id, name]));
  const json = resolveReferences(
    functionResource.Properties.Environment.Variables[POLLER_CONFIG_ENV],
    (reference) => {
      const connection = names[reference];
      if (connection !== undefined) {
        return `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${reference}-AbCdEfGhIjKl-AbCdEf`;
      }
      if (reference.includes('Table')) return 'AtlasAuditAlerts-StateTable-ABC123';
      if (reference.includes('Topic'))
        return 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-Alerts-ABC123';
      throw new Error(`The configuration refers to ${reference}`);
    },
  );
  return { json, config: readLambdaConfig({ env: { [POLLER_CONFIG_ENV]: json } }) };
}

describe('the connections example: two Atlas organizations and an Ops Manager, with the routes example', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let app: App;
  let secrets: Record<string, string>;

  beforeAll(async () => {
    ({ template, app } = await synthesizeDeployment({
      workspace,
      name: 'connections',
      settings: {},
      context: { config: EXAMPLE },
    }));
    secrets = createdSecrets(template);
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('creates a secret for each connection that names none, and none for the unused top-level settings', () => {
    expect(Object.keys(secrets).sort()).toEqual(['datacenter', 'production']);
    for (const id of Object.values(secrets)) {
      expect(template.toJSON().Resources[id].Properties).toMatchObject({
        GenerateSecretString: { SecretStringTemplate: '{}', GenerateStringKey: 'replaceMe' },
      });
      expect(template.toJSON().Resources[id].Properties).not.toHaveProperty('SecretString');
    }
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp(
        '^Ops Manager API credentials of the connection datacenter \\(https://opsmanager.example.com:8443\\)',
      ),
    });
  });

  it('lets the poller read the three secrets, and decrypt the one with a key of its own through Secrets Manager only', () => {
    const roleId = singleLogicalId(template, 'AWS::IAM::Role', LAMBDA_PRINCIPAL);

    const statements = policyStatementsOf(template, roleId);

    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      Resource: expect.arrayContaining([
        { Ref: secrets.production },
        DEVELOPMENT_SECRET,
        { Ref: secrets.datacenter },
      ]),
    });
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: DEVELOPMENT_KEY,
      Condition: {
        StringEquals: {
          'kms:ViaService': {
            'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
          },
        },
      },
    });
    expect(JSON.stringify(statements).match(/secretsmanager:GetSecretValue/g)).toHaveLength(1);
  });

  it("writes each connection's settings and secret into the poller's configuration, which the handler accepts", () => {
    const functionResource = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { [POLLER_CONFIG_ENV]: Match.anyValue() } } },
      }),
    )[0] as TemplateResource;

    const { config } = deployedConfig(functionResource, secrets);

    expect(config.secretArn).toBeUndefined();
    expect(
      effectiveConnections(config).map(({ name, flavor, baseUrl, secretArn, timing, inventory }) => ({
        name,
        flavor,
        baseUrl,
        secretArn,
        overlapSeconds: timing.overlapSeconds,
        baselineFindings: inventory.baselineFindings,
      })),
    ).toEqual([
      {
        name: 'production',
        flavor: 'atlas-v2',
        baseUrl: 'https://cloud.mongodb.com',
        secretArn: expect.stringContaining(`:secret:${secrets.production}-`),
        overlapSeconds: 900,
        baselineFindings: true,
      },
      {
        name: 'development',
        flavor: 'atlas-v2',
        baseUrl: 'https://cloud.mongodb.com',
        secretArn: DEVELOPMENT_SECRET,
        overlapSeconds: 900,
        baselineFindings: false,
      },
      {
        name: 'datacenter',
        flavor: 'ops-manager',
        baseUrl: 'https://opsmanager.example.com:8443',
        secretArn: expect.stringContaining(`:secret:${secrets.datacenter}-`),
        overlapSeconds: 1800,
        baselineFindings: true,
      },
    ]);
  });

  it('names each secret to fill in as an output of its own', () => {
    template.hasOutput('CredentialsSecretArnProduction', {
      Value: { Ref: secrets.production },
      Description: Match.stringLikeRegexp('connection production'),
    });
    template.hasOutput('CredentialsSecretArnDevelopment', { Value: DEVELOPMENT_SECRET });
    template.hasOutput('CredentialsSecretArnDatacenter', { Value: { Ref: secrets.datacenter } });
    expect(Object.keys(template.findOutputs('CredentialsSecretArn'))).toEqual([]);
  });

  it(
    'routes alerts as the routes example does, since its alerts and routes are the same',
    async () => {
      const routes = await synthesizeDeployment({
        workspace,
        name: 'routes',
        settings: {},
        context: { config: ROUTES_EXAMPLE },
      });
      const policies = (found: Template) =>
        Object.values(found.findResources('AWS::SNS::Subscription') as Record<string, TemplateResource>)
          .map(({ Properties: { Protocol, Endpoint, FilterPolicy } }) =>
            JSON.stringify({
              Protocol,
              Endpoint: typeof Endpoint === 'string' ? Endpoint : 'queue',
              FilterPolicy,
            }),
          )
          .sort();

      const example = parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
      const routesExample = parse(readFileSync(ROUTES_EXAMPLE, 'utf8')) as Record<string, unknown>;

      expect(example.routes).toEqual(routesExample.routes);
      expect(example.alerts).toEqual(routesExample.alerts);
      expect(policies(template)).toEqual(policies(routes.template));
    },
    SYNTH_TIMEOUT_MS,
  );

  it("alarms on each connection's failing sources, by its name, and on no connection it does not poll", () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'SourceErrors' },
    }) as Record<string, TemplateResource>;
    const byConnection = Object.fromEntries(
      Object.entries(alarms).map(([id, alarm]) => [
        (alarm.Properties.Dimensions as Array<{ Name: string; Value: string }>).find(
          (dimension) => dimension.Name === 'connection',
        )?.Value,
        { id, properties: alarm.Properties },
      ]),
    );

    expect(Object.keys(byConnection).sort()).toEqual(['datacenter', 'development', 'production']);
    expect(byConnection.production?.id).toMatch(/^AlarmsConnectionSourceErrorsProduction/);
    expect(byConnection.datacenter?.properties).toMatchObject({
      Namespace: 'AtlasAuditAlerts',
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmDescription: expect.stringMatching(
        /^Sources of connection datacenter failed two schedule periods running/,
      ),
    });
  });

  it('finds no unacknowledged cdk-nag finding', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });
});

describe('a deployment with top-level sources and a connection, fanned out in a VPC', () => {
  const workspace = createTestWorkspace();
  let template: Template;

  beforeAll(async () => {
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'mixed',
      settings: {
        env: { account: '123456789012', region: 'eu-west-1' },
        sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
        connections: [
          {
            name: 'datacenter',
            flavor: 'ops-manager',
            baseUrl: 'https://opsmanager.example.com:8443',
            sources: { projectIds: ['64b5ca17f1a3d40012ab3d21'] },
          },
        ],
        network: { mode: 'create-vpc' },
        fanOut: { mode: 'on' },
        alerts: { emails: ['secops@example.com'] },
        operations: { emails: ['platform@example.com'] },
      },
    }));
  }, SYNTH_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('keeps the top-level secret as it always was, and adds one for the connection', () => {
    const ids = Object.keys(template.findResources('AWS::SecretsManager::Secret'));

    expect(ids).toHaveLength(2);
    expect(ids.filter((id) => id.startsWith('AtlasCredentialsSecret'))).toHaveLength(1);
    expect(ids.filter((id) => id.startsWith('ConnectionDatacenterCredentialsSecret'))).toHaveLength(1);
    template.hasOutput('CredentialsSecretArn', {
      Description: 'Put the Atlas credentials here: aws secretsmanager put-secret-value --secret-id <this>',
    });
  });

  it('lets the dispatcher and the worker read both secrets, as the poller would', () => {
    const secretIds = Object.keys(template.findResources('AWS::SecretsManager::Secret')).sort();
    const roles = ['Poller', 'Worker'].map((name) =>
      singleLogicalId(template, 'AWS::IAM::Role', {
        ...LAMBDA_PRINCIPAL,
        Description: `The atlas-audit-alerts ${name === 'Poller' ? 'dispatcher' : 'worker'}`,
      }),
    );

    for (const roleId of roles) {
      const read = policyStatementsOf(template, roleId).filter((statement) =>
        JSON.stringify(statement).includes('secretsmanager:GetSecretValue'),
      ) as { Resource: { Ref: string }[] }[];
      expect(read.flatMap((statement) => statement.Resource.map((resource) => resource.Ref)).sort()).toEqual(
        secretIds,
      );
    }
  });

  it("alarms on the top-level settings' sources as the connection default, beside the connection's", () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'SourceErrors' },
    }) as Record<string, TemplateResource>;
    const connections = Object.values(alarms).map(
      (alarm) =>
        (alarm.Properties.Dimensions as Array<{ Name: string; Value: string }>).find(
          (dimension) => dimension.Name === 'connection',
        )?.Value,
    );

    expect(connections.sort()).toEqual(['datacenter', 'default']);
  });

  it("opens the Ops Manager connection's port, though the top-level base URL is Atlas's", () => {
    const groupId = singleLogicalId(template, 'AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('^atlas-audit-alerts poller'),
    });

    expect(egressRulesOf(template, groupId).map((rule) => rule.FromPort)).toEqual([443, 8443]);
  });
});
