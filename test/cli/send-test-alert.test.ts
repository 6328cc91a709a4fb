import { tmpdir } from 'node:os';
import {
  AuthorizationErrorException,
  NotFoundException,
  PublishBatchCommand,
  type PublishBatchCommandInput,
  type PublishBatchResponse,
  SNSClient,
  ThrottledException,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerSendTestAlertCommand, TEST_ALERT_RULE_ID } from '../../cli/commands/send-test-alert.js';
import type { PollCommandIo } from '../../cli/poll-command-io.js';
import { chatbotNotificationSchema } from '../../shared/notify/chatbot-notification.js';
import { validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { ManualClock } from '../notify/support/manual-clock.js';
import { runPollCommand } from './poll-command-harness.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertTopic';
const NOW = Date.parse('2026-11-22T06:17:00Z');
const sns = mockClient(SNSClient);

/** The regions the command created its SNS clients for. */
let regions: string[] = [];

function register(program: Command, io: PollCommandIo): void {
  registerSendTestAlertCommand(program, io, {
    clock: new ManualClock(NOW),
    snsClient: (region) => {
      regions.push(region);
      return new SNSClient({ region });
    },
  });
}

function sendTestAlert(args: readonly string[]) {
  return runPollCommand(['send-test-alert', ...args], { register, env: {}, cwd: tmpdir() });
}

function acceptAll(input: PublishBatchCommandInput): PublishBatchResponse {
  return {
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({ Id: entry.Id, MessageId: 'm1' })),
  };
}

beforeEach(() => {
  sns.reset();
  regions = [];
});

afterEach(() => {
  sns.reset();
});

describe('atlas-audit-alerts send-test-alert', () => {
  it('publishes one clearly labelled test alert to the topic, in its region, built and checked as real alerts are', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);

    // Act
    const run = await sendTestAlert(['--topic', TOPIC]);

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(regions).toEqual(['eu-west-1']);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    const input = sns.commandCalls(PublishBatchCommand)[0]?.args[0].input;
    expect(input?.TopicArn).toBe(TOPIC);
    const [entry] = input?.PublishBatchRequestEntries ?? [];
    expect(entry).toBeDefined();
    if (entry === undefined) return;
    expect(validateSnsEntry(entry as Parameters<typeof validateSnsEntry>[0])).toMatchObject({ valid: true });
    expect(entry.Subject).toBe('[HIGH] Test alert: no action needed (by send-test-alert)');
    expect(entry.MessageAttributes).toMatchObject({
      severity: { DataType: 'String', StringValue: 'high' },
      severityRank: { DataType: 'Number', StringValue: '4' },
      ruleId: { DataType: 'String', StringValue: TEST_ALERT_RULE_ID },
      eventTypeName: { DataType: 'String', StringValue: 'ATLAS_AUDIT_ALERTS_TEST' },
    });
    const message = JSON.parse(entry.Message ?? '{}') as { default: string; email: string };
    const slack = chatbotNotificationSchema.parse(JSON.parse(message.default));
    expect(slack.content.title).toBe(':red_circle: [HIGH] Test alert: no action needed (by send-test-alert)');
    expect(message.email).toContain('Nothing happened in Atlas.');
    expect(message.email).toContain('When:      2026-11-22 06:17:00 UTC\n');
    expect(run.stdout).toBe(
      `Sent a high test alert to ${TOPIC}: "Test alert: no action needed".\n` +
        'It reaches the subscriptions whose filter takes high alerts; e-mail can take a minute.\n',
    );
  });

  it('sends the severity asked for, so a subscription with a higher minimum gets it too', async () => {
    // Prepare
    sns.on(PublishBatchCommand).callsFake(acceptAll);

    // Act
    const run = await sendTestAlert(['--topic', TOPIC, '--severity', 'critical']);

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const [entry] = sns.commandCalls(PublishBatchCommand)[0]?.args[0].input.PublishBatchRequestEntries ?? [];
    expect(entry?.Subject).toMatch(/^\[CRITICAL\] Test alert/);
    expect(entry?.MessageAttributes?.severityRank?.StringValue).toBe('5');
  });

  it('prints what it would send with --dry-run, and calls no AWS service', async () => {
    // Act
    const run = await sendTestAlert(['--topic', TOPIC, '--dry-run']);

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 0);
    expect(regions).toEqual([]);
    expect(run.stdout).toContain('Subject: [HIGH] Test alert: no action needed (by send-test-alert)\n');
    expect(run.stdout).toContain('┌─ Slack (AWS Chatbot)');
    expect(run.stdout).toMatch(/Dry run: nothing was sent to arn:aws:sns:eu-west-1:\S+\.\n$/);
  });

  it('refuses a missing or malformed topic before calling AWS, saying where to find the right one', async () => {
    // Act
    const missing = await sendTestAlert([]);
    const malformed = await sendTestAlert(['--topic', 'AtlasAuditAlerts-AlertTopic']);
    const severity = await sendTestAlert(['--topic', TOPIC, '--severity', 'urgent']);

    // Assess
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('send-test-alert needs --topic: the AlertTopicArn output of the stack');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--topic "AtlasAuditAlerts-AlertTopic" is not an SNS topic ARN');
    expect(severity.code).toBe(2);
    expect(severity.stderr).toContain("argument 'urgent' is invalid");
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 0);
  });

  it.each([
    [
      'an unknown topic',
      new NotFoundException({ message: 'Topic does not exist', $metadata: {} }),
      4,
      'check the topic ARN against the AlertTopicArn output of the stack',
    ],
    [
      'credentials without sns:Publish',
      new AuthorizationErrorException({ message: 'not authorized to perform SNS:Publish', $metadata: {} }),
      3,
      'need sns:Publish on the topic, and kms:GenerateDataKey and kms:Decrypt on its key',
    ],
    [
      'SNS throttling every attempt',
      new ThrottledException({ message: 'Rate exceeded', $metadata: {} }),
      5,
      'SNS did not take it after 3 attempts',
    ],
  ])('fails with what SNS said and what to check for %s', async (_, error, code, hint) => {
    // Prepare
    sns.on(PublishBatchCommand).rejects(error);

    // Act
    const run = await sendTestAlert(['--topic', TOPIC]);

    // Assess
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(`^atlas-audit-alerts: could not publish the test alert to ${TOPIC}: `),
    );
    expect(run.stderr).toContain(error.message);
    expect(run.stderr).toContain(hint);
  });
});
