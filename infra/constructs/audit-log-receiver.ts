import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type Dashboard,
  GraphWidget,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName, type MetricNameValue } from '../../shared/poll/metric-names.js';
import { auditLogEnvironment } from '../audit-log-environment.js';
import type { AuditLogSettings } from '../audit-log-settings.js';
import { type AuditLogBucket, objectsFinding } from './audit-log-bucket.js';
import { PollerFunction, type PollerFunctionProps } from './poller-function.js';
import { pollerMetric } from './poller-metrics.js';

/** The audit log function's memory: a chunk, a line and a batch of 500 events at a time, and the rules. */
export const AUDIT_LOG_MEMORY_MIB = 512;
/** Its timeout: an object of 1 GiB streams through in well under this. */
export const AUDIT_LOG_TIMEOUT_SECONDS = 300;
/** Messages (each an S3 notification, usually of one object) per invocation. */
export const AUDIT_LOG_BATCH_SIZE = 5;
/** Invocations at once: what a burst of objects can cost at most, and the state table's share. */
export const AUDIT_LOG_MAX_CONCURRENCY = 5;
/** Deliveries of a message before it moves to the dead-letter queue. */
export const AUDIT_LOG_MAX_RECEIVES = 5;

/** The id CDK gives the stack's one bucket notifications handler. */
const BUCKET_NOTIFICATIONS_HANDLER = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

/** What the function does with the buckets: read objects, nothing else. */
export const AUDIT_LOG_READ_ACTIONS = ['s3:GetObject'];

/** One connection's bucket, and the projects that export to it. */
export interface AuditLogReceiverBucket {
  connection: string;
  bucket: AuditLogBucket;
  projects: AuditLogSettings['projects'];
}

export interface AuditLogReceiverProps {
  /** The poller's function props: the function runs with the poller's settings, table and topic. */
  functionProps: PollerFunctionProps;
  buckets: readonly AuditLogReceiverBucket[];
  /** Where its alarms (and their return to OK) go: the operations topic. */
  alarmTopic: ITopic;
  /** The deployment's dashboard, which gets a row for the audit logs. */
  dashboard: Dashboard;
}

/**
 * Receives the objects Atlas exports: each bucket notifies new objects (`s3:ObjectCreated:*`) to one
 * queue, encrypted with a key of its own and refusing requests without TLS, whose messages a function
 * reads in batches with per-message failures (`ReportBatchItemFailures`); a message that fails
 * {@link AUDIT_LOG_MAX_RECEIVES} times moves to the dead-letter queue, kept 14 days. The function runs
 * with the poller's settings and grants (its secrets, the state table, the alert topic and
 * destinations) and may read objects of the buckets, nothing more of them. Alarms: a message in the
 * dead-letter queue, the function failing, and a message waiting longer than a quarter of an hour.
 * A dashboard row: lines read and malformed, objects not settled, the function's invocations and
 * errors, and the queue's oldest message and dead letters.
 */
export class AuditLogReceiver extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: PollerFunction;
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: AuditLogReceiverProps) {
    super(scope, id);
    // A key of its own: S3 is allowed to encrypt notifications with it, and with no other key of the stack.
    const key = new Key(this, 'QueueKey', {
      description: 'Encrypts the atlas-audit-alerts audit log notification queues',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const encryption = {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: key,
      dataKeyReuse: Duration.hours(1),
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    };
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      ...encryption,
    });
    this.queue = new Queue(this, 'Notifications', {
      // Lambda's advice for an event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(6 * AUDIT_LOG_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: AUDIT_LOG_MAX_RECEIVES },
      ...encryption,
    });
    for (const { bucket } of props.buckets) {
      bucket.bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(this.queue));
    }

    const environment = auditLogEnvironment({
      buckets: props.buckets.map(({ connection, bucket, projects }) => ({
        connection,
        bucketName: bucket.bucket.bucketName,
        projects,
      })),
      toJsonString: (value) => Stack.of(this).toJsonString(value),
    });
    this.function = new PollerFunction(this, 'Reader', {
      ...props.functionProps,
      role: 'audit-log',
      sizing: { memoryMiB: AUDIT_LOG_MEMORY_MIB, timeoutSeconds: AUDIT_LOG_TIMEOUT_SECONDS },
      environment,
    });
    const role = this.function.role;
    role.addToPolicy(
      new PolicyStatement({
        actions: AUDIT_LOG_READ_ACTIONS,
        resources: props.buckets.map(({ bucket }) => bucket.bucket.arnForObjects('*')),
      }),
    );
    for (const { bucket } of props.buckets) {
      bucket.key?.grantDecrypt(role);
      Validations.of(role).acknowledge({
        id: objectsFinding(bucket.bucket),
        reason:
          'Atlas names each object it exports (cluster, host, log type and time): the function reads the objects its notifications name, of the audit log buckets only.',
      });
    }
    // The stack's one notification handler, which CDK adds to put the buckets' notification configurations.
    const handler = Stack.of(this).node.tryFindChild(BUCKET_NOTIFICATIONS_HANDLER);
    if (handler !== undefined) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's own handler that puts the buckets' notification configuration at deploy time: it writes its logs with the managed policy AWS keeps for that, and runs only during deployments.",
      });
    }
    // The event source mapping grants what it consumes with (receive, delete, decrypt).
    this.function.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: AUDIT_LOG_BATCH_SIZE,
        maxConcurrency: AUDIT_LOG_MAX_CONCURRENCY,
        reportBatchItemFailures: true,
      }),
    );

    const period = Duration.minutes(5);
    const action = new SnsAction(props.alarmTopic);
    const specs = [
      {
        id: 'AuditLogDeadLetters',
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period,
          statistic: 'Maximum',
        }),
        threshold: 1,
        description:
          'An audit log notification failed every delivery and is in the audit log dead-letter queue: read the audit log function’s log group for its object and error. Once fixed, redrive the dead-letter queue; the claims keep alerts already sent from going out again.',
      },
      {
        id: 'AuditLogReaderErrors',
        metric: this.function.function.metricErrors({ period, statistic: 'Sum' }),
        threshold: 1,
        description:
          'The audit log function failed an invocation (its settings unusable at start, a timeout, out of memory): its whole batch comes back after the visibility timeout. Read its log group.',
      },
      {
        id: 'AuditLogBacklog',
        metric: this.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
        threshold: 15 * 60,
        description:
          'An audit log notification has waited more than 15 minutes: the function is not keeping up with the objects Atlas exports, or keeps failing them. Read its log group.',
      },
    ];
    this.alarms = specs.map((spec) => {
      const alarm = new Alarm(this, spec.id, {
        metric: spec.metric,
        threshold: spec.threshold,
        comparisonOperator:
          spec.id === 'AuditLogBacklog'
            ? ComparisonOperator.GREATER_THAN_THRESHOLD
            : ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: spec.description,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    });

    const sum = (name: MetricNameValue, label: string): Metric =>
      pollerMetric({ name, statistic: 'Sum', period, label });
    props.dashboard.addWidgets(
      new GraphWidget({
        title: 'Audit log lines',
        left: [sum(MetricName.auditLogLines, 'lines read')],
        right: [sum(MetricName.auditLogMalformedLines, 'malformed or overlong, skipped')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Audit log objects',
        left: [
          this.function.function.metricInvocations({ period, statistic: 'Sum', label: 'invocations' }),
          this.function.function.metricErrors({ period, statistic: 'Sum', label: 'errors' }),
          sum(MetricName.auditLogObjectsFailed, 'objects not settled'),
        ],
        right: [
          this.queue
            .metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' })
            .with({ label: 'oldest notification (s)' }),
          this.deadLetterQueue
            .metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' })
            .with({ label: 'dead letters' }),
        ],
        width: 12,
      }),
    );
  }
}
