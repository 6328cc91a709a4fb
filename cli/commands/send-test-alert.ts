import type { SNSClient } from '@aws-sdk/client-sns';
import { type Command, Option } from 'commander';
import type { Clock } from '../../shared/clock.js';
import { SEVERITIES, type Severity } from '../../shared/notify/alert.js';
import type { PollCommandIo } from '../poll-command-io.js';

/** The rule id a test alert carries: what a subscription filter on `ruleId` can leave out. */
export const TEST_ALERT_RULE_ID = 'send-test-alert';
/** The event type of a test alert's one event, in its `eventTypeName` message attribute. */
export const TEST_ALERT_EVENT_TYPE = 'ATLAS_AUDIT_ALERTS_TEST';
/** Who a test alert says acted: the command that sent it. */
export const TEST_ALERT_ACTOR = 'send-test-alert';

/** The severity a test alert goes out with by default: at or above the stack's default email and Slack minimums. */
const DEFAULT_SEVERITY: Severity = 'high';

/** The parsed flags of `send-test-alert`. */
export interface SendTestAlertOptions {
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
      const { sendTestAlertAction } = await import('../actions/send-test-alert.js');
      await sendTestAlertAction(options, io, dependencies);
    });
}
