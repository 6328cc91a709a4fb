import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  FunctionUrl,
  FunctionUrlAuthType,
  type IFunction,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../../shared/poll/metric-names.js';
import { PUSH_KEY_PREFIX } from '../../shared/state/dynamodb-keys.js';
import type { DeployConfig } from '../config.js';
import type { FunctionRole } from '../lambda-bundles.js';
import { type PushConnectionReference, pushEnvironment } from '../push-environment.js';
import { pollerMetric } from './poller-metrics.js';
import { grantQueueSend } from './queue-send-grant.js';
import type { WebhookSecret } from './webhook-secret.js';

/**
 * What the receiver does with the state table: claim a push (a conditional `PutItem`) and release the
 * claim when its source could not be queued (`DeleteItem`), on items under `PUSH#` only.
 */
export const PUSH_CLAIM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem'];

/** One connection taking pushes, with the secret its webhooks sign with. */
export interface PushReceiverConnection {
  name: string;
  sources: PushConnectionReference['sources'];
  secret: WebhookSecret;
}

export interface PushReceiverProps {
  config: DeployConfig;
  /** The function's code, per role (see `functionCode`). */
  code: (role: FunctionRole) => string;
  table: Pick<ITable, 'tableName' | 'tableArn'>;
  /** The fan-out source queue and the key it is encrypted with. */
  queue: Pick<IQueue, 'queueUrl' | 'queueArn'>;
  key: Pick<IKey, 'keyArn'>;
  connections: readonly PushReceiverConnection[];
  /** Where its alarms (and their return to OK) go: the operations topic. */
  alarmTopic: ITopic;
}

/**
 * The push receiver: a Lambda function behind a function URL with auth NONE (Atlas's webhooks cannot
 * sign with SigV4; their HMAC signature is checked by the function, see `PushReceiver`), its reserved
 * concurrency bounding what a flood can cost. Its role may write its own logs, read the connections'
 * webhook secrets, put and delete the state table's push claims (items whose partition key starts
 * with `PUSH#`, an IAM condition on `dynamodb:LeadingKeys`) and send to the fan-out queue: nothing
 * else, so a fault in it can neither read Atlas credentials nor publish an alert. It runs outside any
 * VPC: it calls AWS services only, never Atlas.
 */
export class PushReceiverFunction extends Construct {
  readonly function: IFunction;
  readonly url: FunctionUrl;
  readonly logGroup: LogGroup;
  readonly role: Role;
  /** `PushFailed` (a signed push answered 503) and `PushReceiverErrors` (an invocation failed). */
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: PushReceiverProps) {
    super(scope, id);
    const { config } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: config.poller.logRetentionDays as RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The atlas-audit-alerts push receiver',
    });
    logGroup.grantWrite(role);
    for (const { secret } of props.connections) secret.grantRead(role);
    role.addToPolicy(
      new PolicyStatement({
        actions: PUSH_CLAIM_ACTIONS,
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PUSH_KEY_PREFIX}*`] } },
      }),
    );
    grantQueueSend({ grantee: role, queue: props.queue, key: props.key });

    const reserved = config.push.reservedConcurrency;
    const receiver = new LambdaFunction(this, 'Function', {
      description: 'Verifies MongoDB Atlas webhook pushes and queues their source for a poll now',
      code: Code.fromAsset(props.code('receiver')),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      ...(reserved === false ? {} : { reservedConcurrentExecutions: reserved }),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[config.poller.logLevel],
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: pushEnvironment({
        config,
        tableName: props.table.tableName,
        queueUrl: props.queue.queueUrl,
        connections: props.connections.map(({ name, sources, secret }) => ({
          name,
          sources,
          secretArn: secret.secretArn,
          longestSecretArn: secret.longestSecretArn,
        })),
        toJsonString: (value) => Stack.of(this).toJsonString(value),
      }),
    });
    this.url = new FunctionUrl(this, 'Url', { function: receiver, authType: FunctionUrlAuthType.NONE });

    const period = Duration.minutes(5);
    const action = new SnsAction(props.alarmTopic);
    this.alarms = [
      new Alarm(this, 'PushFailed', {
        metric: pollerMetric({
          name: MetricName.pushRequests,
          statistic: 'Sum',
          period,
          dimensions: { outcome: 'failed' },
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription:
          "The push receiver answered 503 to a signed push: it could not read the connection's webhook secret, write the push's claim to the state table, or queue its source (its log group names which). The scheduled ticks still read the event.",
      }),
      new Alarm(this, 'PushReceiverErrors', {
        metric: receiver.metricErrors({ period, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription:
          'The push receiver failed an invocation: its settings (ATLAS_AUDIT_ALERTS_PUSH) are unusable at start, or it timed out. Its log group says why.',
      }),
    ];
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.function = receiver;
    this.logGroup = logGroup;
    this.role = role;
  }
}
