import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BUS_ACTIONS, SECURITY_HUB_ACTIONS } from '../../infra/constructs/poller-function.js';
import { POLLER_CONFIG_ENV } from '../../shared/poll/index.js';
import { synthesizeDeployment } from './support/deployment.js';
import { policyStatementsOf, singleLogicalId, type TemplateResource } from './support/template.js';
import { createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

const ORG_ID = '5f4e3d2c1b0a998877665544';

/** The role of the poller function. */
function pollerRoleId(template: Template): string {
  return singleLogicalId(template, 'AWS::IAM::Role', { Description: 'The atlas-audit-alerts poller' });
}

/** Every IAM action any policy of the template grants. */
function grantedActions(template: Template): string[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as TemplateResource[];
  return policies.flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>).flatMap(
      (statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]),
    ),
  );
}

/** The poller's configuration as its environment holds it, tokens left as they are. */
function pollerConfig(template: Template): Record<string, unknown> {
  const functions = Object.values(template.findResources('AWS::Lambda::Function')) as TemplateResource[];
  const poller = functions.find((fn) => fn.Properties.Description?.startsWith('Polls the MongoDB'));
  const value = poller?.Properties.Environment.Variables[POLLER_CONFIG_ENV] as unknown;
  // A configuration with tokens is an Fn::Join; its literal parts hold the JSON's shape.
  const text =
    typeof value === 'string'
      ? value
      : ((value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1] ?? [])
          .map((part) => (typeof part === 'string' ? part : 'TOKEN'))
          .join('');
  return JSON.parse(text) as Record<string, unknown>;
}

describe('a deployment that sends alerts to a bus it creates and to Security Hub', () => {
  const workspace = createTestWorkspace();
  let template: Template;

  beforeAll(async () => {
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'destinations',
      settings: {
        sources: { orgIds: [ORG_ID] },
        alerts: { emails: ['secops@example.com'], eventBridge: {} },
        eventBridge: { bus: 'create' },
        routes: [{ name: 'findings', match: { minSeverity: 'high' }, securityHub: {} }],
      },
    }));
  });
  afterAll(() => workspace.remove());

  it('creates the bus and grants the poller PutEvents on it and BatchImportFindings on the default product, nothing more', () => {
    const busId = singleLogicalId(template, 'AWS::Events::EventBus', { Name: 'AtlasAuditAlerts-alerts' });
    const statements = policyStatementsOf(template, pollerRoleId(template));

    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'events:PutEvents',
      Resource: { 'Fn::GetAtt': [busId, 'Arn'] },
    });
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'securityhub:BatchImportFindings',
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':securityhub:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':product/',
            { Ref: 'AWS::AccountId' },
            '/default',
          ],
        ],
      },
    });
    const destinationActions = grantedActions(template).filter(
      (action) => action.startsWith('events:') || action.startsWith('securityhub:'),
    );
    expect(destinationActions.sort()).toEqual([...EVENT_BUS_ACTIONS, ...SECURITY_HUB_ACTIONS].sort());
  });

  it("gives the poller each destination with its routes' filter policies", () => {
    expect(pollerConfig(template).destinations).toEqual({
      eventBridge: { busName: 'TOKEN', policies: [null] },
      securityHub: {
        productArn: 'arn:TOKEN:securityhub:TOKEN:TOKEN:product/TOKEN/default',
        policies: [{ severityRank: [{ numeric: ['>=', 4] }] }],
      },
    });
  });

  it('alarms when a destination fails, and names the bus in an output', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DestinationAlertsFailed',
      Dimensions: Match.arrayWith([{ Name: 'destination', Value: 'eventbridge' }]),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DestinationAlertsFailed',
      Dimensions: Match.arrayWith([{ Name: 'destination', Value: 'securityhub' }]),
    });
    template.hasOutput('AlertEventBusArn', Match.anyValue());
  });
});

describe('a deployment that sends to the default bus', () => {
  const workspace = createTestWorkspace();
  let template: Template;

  beforeAll(async () => {
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'default-bus',
      settings: { sources: { orgIds: [ORG_ID] }, alerts: { eventBridge: { minSeverity: 'medium' } } },
    }));
  });
  afterAll(() => workspace.remove());

  it('creates no bus and grants PutEvents on the default bus only', () => {
    template.resourceCountIs('AWS::Events::EventBus', 0);
    expect(policyStatementsOf(template, pollerRoleId(template))).toContainEqual({
      Effect: 'Allow',
      Action: 'events:PutEvents',
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':events:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':event-bus/default',
          ],
        ],
      },
    });
    expect(grantedActions(template).some((action) => action.startsWith('securityhub:'))).toBe(false);
  });
});

describe('a deployment that sends nowhere but its topic', () => {
  const workspace = createTestWorkspace();
  let template: Template;

  beforeAll(async () => {
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'topic-only',
      settings: { sources: { orgIds: [ORG_ID] }, alerts: { emails: ['secops@example.com'] } },
    }));
  });
  afterAll(() => workspace.remove());

  it('grants no EventBridge or Security Hub action and gives the poller no destination', () => {
    expect(
      grantedActions(template).filter(
        (action) => action.startsWith('events:') || action.startsWith('securityhub:'),
      ),
    ).toEqual([]);
    expect(pollerConfig(template).destinations).toBeUndefined();
  });
});

describe('the destination actions the poller role is granted', () => {
  /** The AWS SDK commands the notifiers send, by client package. */
  function commandsSent(): Array<{ service: string; command: string }> {
    const directory = join(PROJECT_ROOT, 'shared/notify');
    const files = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.ts'),
    );
    return files.flatMap((file) => {
      const source = readFileSync(join(directory, file), 'utf8');
      const service = /from '@aws-sdk\/client-(eventbridge|securityhub)'/.exec(source)?.[1];
      if (service === undefined) return [];
      return [...source.matchAll(/new ([A-Za-z]+)Command\(/g)].map((match) => ({
        service,
        command: match[1] as string,
      }));
    });
  }

  it('are exactly the commands the EventBridge and Security Hub notifiers send', () => {
    const prefix: Record<string, string> = { eventbridge: 'events', securityhub: 'securityhub' };
    const needed = [
      ...new Set(commandsSent().map(({ service, command }) => `${prefix[service]}:${command}`)),
    ];

    expect(needed).toContain('events:PutEvents');
    expect([...EVENT_BUS_ACTIONS, ...SECURITY_HUB_ACTIONS].sort()).toEqual(needed.sort());
  });
});
