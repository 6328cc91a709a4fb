import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert, Severity } from '../../shared/notify/alert.js';
import { buildMessageAttributes } from '../../shared/notify/message-attributes.js';
import { filterPolicyMatches } from '../../shared/routes/filter-policy-match.js';
import { synthesizeDeployment } from './support/deployment.js';
import { createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

const EXAMPLE = join(PROJECT_ROOT, 'infra/examples/routes.yaml');
const DATA_TEAM_PROJECT = '6a5b4c3d2e1f009988776655';

interface SubscriptionResource {
  Properties: { Protocol: string; Endpoint: unknown; FilterPolicy?: Record<string, unknown> };
}

/** An alert as the poller builds it, reduced to what its message attributes read. */
function alertOf(options: {
  severity: Severity;
  tags?: string[];
  groupId?: string;
  projectName?: string;
}): Pick<Alert, 'severity' | 'ruleId' | 'events' | 'tags' | 'context'> {
  return {
    severity: options.severity,
    ruleId: 'some-rule',
    tags: options.tags ?? [],
    events: [
      {
        id: '65a1c0de0000000000000001',
        eventTypeName: 'SOME_EVENT',
        ...(options.groupId === undefined ? {} : { groupId: options.groupId }),
      },
    ],
    context: {
      orgId: '5f4e3d2c1b0a998877665544',
      orgName: 'Example Corp',
      ...(options.projectName === undefined ? {} : { projectName: options.projectName }),
    },
  };
}

describe('the routes example: the default route and two teams', () => {
  const workspace = createTestWorkspace();
  let template: Template;
  let subscriptions: SubscriptionResource[];

  beforeAll(async () => {
    ({ template } = await synthesizeDeployment({
      workspace,
      name: 'routes',
      settings: {},
      context: { config: EXAMPLE },
    }));
    subscriptions = Object.values(
      template.findResources('AWS::SNS::Subscription') as Record<string, SubscriptionResource>,
    );
  });
  afterAll(() => workspace.remove());

  /** The alert topic's subscriptions: email addresses, and the Slack queues. */
  const alertSubscriptions = () =>
    subscriptions.filter(
      (subscription) =>
        subscription.Properties.Protocol === 'sqs' ||
        (subscription.Properties.Protocol === 'email' &&
          subscription.Properties.Endpoint !== 'platform@example.com'),
    );

  const endpointOf = (subscription: SubscriptionResource): string =>
    subscription.Properties.Protocol === 'email' ? String(subscription.Properties.Endpoint) : 'slack';

  it('gives each destination one subscription whose filter policy is its route match', () => {
    const policies = Object.fromEntries(
      alertSubscriptions().map((subscription) => [
        endpointOf(subscription),
        subscription.Properties.FilterPolicy,
      ]),
    );

    // The default route's daily digest (info and low) shares the topic: its own subscriptions take
    // its digest messages, and every other policy keeps a severity floor no digest message meets.
    expect(policies).toEqual({
      'secops@example.com': {
        $or: [{ severityRank: [{ numeric: ['>=', 4] }] }, { digest: ['default'] }],
      },
      slack: {
        groupName: ['payments-prod', 'payments-staging'],
        severityRank: [{ numeric: ['>=', 3] }],
      },
      'data-team@example.com': {
        $or: [
          { groupId: [DATA_TEAM_PROJECT], severityRank: [{ numeric: ['>=', 1] }], tags: ['data-explorer'] },
          { groupName: ['analytics'], severityRank: [{ numeric: ['>=', 1] }], tags: ['data-explorer'] },
        ],
      },
    });
  });

  it('posts to the payments channel through a Chatbot configuration of its own, with its alarms', () => {
    template.hasResourceProperties('AWS::Chatbot::SlackChannelConfiguration', {
      ConfigurationName: 'AtlasAuditAlerts-payments',
      SlackWorkspaceId: 'T012AB3CD',
      SlackChannelId: 'C0PAYMENTS1',
    });
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));

    for (const id of [
      'SlackPaymentsDeliveryFailed',
      'SlackPaymentsNotificationsFailed',
      'SlackPaymentsSubscriptionDeadLetters',
    ]) {
      expect(alarms.some((logicalId) => logicalId.includes(id))).toBe(true);
    }
  });

  it.each([
    {
      alert: alertOf({ severity: 'critical', projectName: 'payments-prod' }),
      reaches: ['secops@example.com', 'slack'],
    },
    { alert: alertOf({ severity: 'medium', projectName: 'payments-staging' }), reaches: ['slack'] },
    { alert: alertOf({ severity: 'low', projectName: 'payments-prod' }), reaches: [] },
    {
      alert: alertOf({ severity: 'low', projectName: 'analytics', tags: ['data-explorer'] }),
      reaches: ['data-team@example.com'],
    },
    {
      alert: alertOf({ severity: 'high', groupId: DATA_TEAM_PROJECT, tags: ['data-explorer', 'impact'] }),
      reaches: ['secops@example.com', 'data-team@example.com'],
    },
    { alert: alertOf({ severity: 'medium', projectName: 'analytics' }), reaches: [] },
  ])('delivers a $alert.severity alert of $alert.context.projectName to $reaches', ({ alert, reaches }) => {
    const attributes = buildMessageAttributes(alert);

    const reached = alertSubscriptions()
      .filter((subscription) => filterPolicyMatches(subscription.Properties.FilterPolicy, attributes))
      .map(endpointOf);

    expect(reached.sort()).toEqual([...reaches].sort());
  });
});
