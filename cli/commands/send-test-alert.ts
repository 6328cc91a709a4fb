import { SNSClient } from '@aws-sdk/client-sns';
import { type Command, Option } from 'commander';
import { type Clock, systemClock } from '../../shared/clock.js';
import {
  type Alert,
  ConsoleNotifier,
  type Notifier,
  type PublishResult,
  SEVERITIES,
  type Severity,
  SnsNotifier,
} from '../../shared/notify/index.js';
import { CommandFailed, ExitCode, type ExitCodeValue, UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';

/** The rule id a test alert carries: what a subscription filter on `ruleId` can leave out. */
export const TEST_ALERT_RULE_ID = 'send-test-alert';
/** The event type of a test alert's one event, in its `eventTypeName` message attribute. */
export const TEST_ALERT_EVENT_TYPE = 'ATLAS_AUDIT_ALERTS_TEST';
/** Who a test alert says acted: the command that sent it. */
export const TEST_ALERT_ACTOR = 'send-test-alert';

/** The severity a test alert goes out with by default: at or above the stack's default email and Slack minimums. */
const DEFAULT_SEVERITY: Severity = 'high';

/** An SNS topic ARN; its fourth field is the topic's region. */
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:[A-Za-z0-9_-]{1,256}$/;

interface SendTestAlertOptions {
  topic?: string;
  severity: Severity;
  dryRun?: boolean;
}

/** What `send-test-alert` publishes with; tests mock the SDK client. */
export interface SendTestAlertDependencies {
  /** Creates the SNS client for the topic's region (default: the SDK's, with the environment's credentials). */
  snsClient?: (region: string) => SNSClient;
  clock?: Clock;
}

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
 * Registers `send-test-alert`: publishes one test alert to a deployed alert topic through the SNS
 * notifier the poller uses (the same entry, the same validation, the same retries), so that a new
 * deployment can show that email and Slack receive alerts. `--dry-run` prints the entry as the console
 * notifier does and sends nothing.
 *
 * @example
 * ```sh
 * atlas-audit-alerts send-test-alert --topic arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertTopic
 * ```
 */
export function registerSendTestAlertCommand(
  program: Command,
  io?: PollCommandIo,
  dependencies: SendTestAlertDependencies = {},
): void {
  program
    .command('send-test-alert')
    .description(
      'Publish one test alert to the deployed alert topic, built and checked as real alerts are, to prove email and Slack receive them.',
    )
    .option('--topic <arn>', 'the alert topic: the AlertTopicArn output of the stack')
    .addOption(
      new Option('--severity <level>', 'the severity it goes out with: subscriptions filter on it')
        .choices([...SEVERITIES])
        .default(DEFAULT_SEVERITY),
    )
    .option('--dry-run', 'print the email and the Slack message it would send, and send nothing')
    .addHelpText(
      'after',
      `
The alert is titled "Test alert: no action needed" and carries rule id ${TEST_ALERT_RULE_ID}. It reaches
every subscription whose filter takes its severity: the stack's email subscriptions take
emailMinSeverity and above (default medium), its Slack channel minSeverity and above (default
low). SNS is called in the topic's region, with the AWS credentials of the environment
(AWS_PROFILE...); they need sns:Publish on the topic, and kms:GenerateDataKey and kms:Decrypt on
its key.

Examples:
  atlas-audit-alerts send-test-alert --topic arn:aws:sns:eu-west-1:123456789012:AtlasAuditAlerts-AlertTopic
  atlas-audit-alerts send-test-alert --topic "$TOPIC_ARN" --severity critical`,
    )
    .action(async (options: SendTestAlertOptions) => {
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
    });
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
