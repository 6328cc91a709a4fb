import { SNSClient } from '@aws-sdk/client-sns';
import { systemClock } from '../../shared/clock.js';
import {
  type Alert,
  ConsoleNotifier,
  type Notifier,
  type PublishResult,
  type Severity,
  SnsNotifier,
} from '../../shared/notify/index.js';
import {
  type SendTestAlertDependencies,
  type SendTestAlertOptions,
  TEST_ALERT_ACTOR,
  TEST_ALERT_EVENT_TYPE,
  TEST_ALERT_RULE_ID,
} from '../commands/send-test-alert.js';
import { CommandFailed, ExitCode, type ExitCodeValue, UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';

/** An SNS topic ARN; its fourth field is the topic's region. */
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:[A-Za-z0-9_-]{1,256}$/;

/**
 * Builds the test alert: a clearly labelled alert of its own rule and event type, as real alerts are
 * built, so it goes through the same formatting and validation, and reaches the subscriptions whose
 * severity filter takes `severity`. Its fingerprint holds the time, so two tests never thread as one.
 *
 * @example
 * ```ts
 * testAlert({ severity: 'high', now: Date.now(), topicName: 'AtlasAuditAlerts-AlertTopic' }).title;
 * // 'Test alert: no action needed'
 * ```
 */
export function testAlert(options: { severity: Severity; now: number; topicName: string }): Alert {
  const created = new Date(options.now).toISOString();
  const id = `test-${options.now}`;
  return {
    ruleId: TEST_ALERT_RULE_ID,
    ruleName: 'Test alert',
    severity: options.severity,
    title: 'Test alert: no action needed',
    summary: `A test of delivery, sent on purpose to topic ${options.topicName}: if you read this, alerts reach you here. Nothing happened in Atlas.`,
    runbook:
      'Nothing to do about this alert.\nA channel that did not get it: check its subscription to the topic and its severity filter (emailMinSeverity, Slack minSeverity).',
    tags: ['test'],
    events: [{ id, created, eventTypeName: TEST_ALERT_EVENT_TYPE, username: TEST_ALERT_ACTOR }],
    groupKey: '',
    fingerprint: `${TEST_ALERT_RULE_ID}:${id}`,
    allowMentions: false,
    raisedAt: options.now,
  };
}

/**
 * Runs `send-test-alert` (see `registerSendTestAlertCommand`): its flags, the process's streams
 * unless `io` replaces them, and the SNS client and clock of `dependencies`.
 */
export async function sendTestAlertAction(
  options: SendTestAlertOptions,
  io: PollCommandIo | undefined,
  dependencies: SendTestAlertDependencies,
): Promise<void> {
  const { stdout } = io ?? processCommandIo();
  const clock = dependencies.clock ?? systemClock;
  const topic = options.topic;
  if (topic === undefined) {
    throw new UsageError(
      'send-test-alert needs --topic: the AlertTopicArn output of the stack (aws cloudformation describe-stacks --stack-name STACK --query "Stacks[0].Outputs")',
    );
  }
  const match = TOPIC_ARN.exec(topic);
  const region = match?.[1];
  if (region === undefined) {
    throw new UsageError(
      `--topic "${topic.slice(0, 300)}" is not an SNS topic ARN: pass the AlertTopicArn output of the stack, such as arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertTopic`,
    );
  }
  const topicName = topic.slice(topic.lastIndexOf(':') + 1);
  const alert = testAlert({ severity: options.severity, now: clock.now(), topicName });
  if (options.dryRun === true) {
    const [result] = await new ConsoleNotifier({ stream: stdout, clock }).publish([alert]);
    if (result?.status !== 'sent') throw failure(result, topic);
    stdout.write(`\nDry run: nothing was sent to ${topic}.\n`);
    return;
  }
  const client = (dependencies.snsClient ?? ((name: string) => new SNSClient({ region: name })))(region);
  try {
    const notifier: Notifier = new SnsNotifier({ client, topicArn: topic, clock });
    const [result] = await notifier.publish([alert]);
    if (result?.status !== 'sent') throw failure(result, topic);
  } finally {
    client.destroy();
  }
  stdout.write(
    `Sent a ${options.severity} test alert to ${topic}: "Test alert: no action needed".\n` +
      `It reaches the subscriptions whose filter takes ${options.severity} alerts; e-mail can take a minute.\n`,
  );
}

/** The error a failed publish ends the command with: what SNS said, what to check, and its exit code. */
function failure(result: PublishResult | undefined, topic: string): CommandFailed {
  const code = result?.status === 'failed' ? result.code : 'MISSING_RESULT';
  const message = result?.status === 'failed' ? result.message : 'no result was recorded';
  const [hint, exitCode] = hintFor(code);
  return new CommandFailed(`could not publish the test alert to ${topic}: ${message}: ${hint}`, exitCode);
}

function hintFor(code: string): [string, ExitCodeValue] {
  switch (code) {
    case 'NotFound':
      return ['check the topic ARN against the AlertTopicArn output of the stack', ExitCode.notFound];
    case 'AuthorizationError':
    case 'AccessDenied':
    case 'KMSAccessDenied':
      return [
        'the AWS credentials in use need sns:Publish on the topic, and kms:GenerateDataKey and kms:Decrypt on its key',
        ExitCode.auth,
      ];
    case 'CredentialsProviderError':
      return ['no AWS credentials were found: set AWS_PROFILE, or the AWS_ACCESS_KEY_ID pair', ExitCode.auth];
    case 'Throttled':
    case 'InternalError':
    case 'TimeoutError':
      return ['SNS did not take it after 3 attempts: try again in a minute', ExitCode.network];
    default:
      return ['see the SNS error above', ExitCode.failed];
  }
}
