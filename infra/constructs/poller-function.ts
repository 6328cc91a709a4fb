import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  type IFunction,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config.js';
import type { FunctionRole } from '../lambda-bundles.js';
import { type ExtraEnvironment, pollerEnvironment } from '../poller-environment.js';
import type { CredentialsSecret } from './atlas-credentials.js';
import type { FunctionNetwork } from './poller-network.js';
import { grantTopicPublish } from './topic-publish-grant.js';

export interface PollerFunctionProps {
  config: DeployConfig;
  /**
   * The function's code, per role: a folder with the prebuilt bundle and the rule pack beside it
   * (see `functionCode`).
   */
  code: (role: FunctionRole) => string;
  table: Pick<ITable, 'tableName' | 'grant'>;
  alertTopic: Pick<ITopic, 'topicArn'>;
  /** The key the alert topic is encrypted with. */
  alertTopicKey: Pick<IKey, 'keyArn'>;
  /** The secret of the top-level settings (the connection `default`), when they are polled. */
  secret?: CredentialsSecret | undefined;
  /** The secret of each connection of `connections`, by its name. */
  connectionSecrets?: readonly ConnectionSecret[] | undefined;
  /** The VPC, subnets and security groups to run in; outside any VPC when absent. */
  network?: FunctionNetwork | undefined;
  /**
   * Which function this is (default `poller`): the fan-out `dispatcher` and `worker` are built the
   * same way from their own entry points.
   */
  role?: PollingRole;
  /**
   * Whether it polls (reads and writes the state table, publishes alerts). Default true; a fan-out
   * dispatcher that only queues sources does not: it only reads the sources' poll times.
   */
  polls?: boolean;
  /** The memory and timeout of a function with settings of its own (the audit log reader). */
  sizing?: { memoryMiB: number; timeoutSeconds: number } | undefined;
  /** More environment variables (the fan-out settings), counted in the 4 KB check. */
  environment?: ExtraEnvironment;
  /**
   * The EventBridge bus alerts go to, when a route sends to one: the name the poller puts entries
   * with (an ARN for another account's bus) and the ARN it is granted.
   */
  eventBus?: { eventBusName: string; eventBusArn: string } | undefined;
  /** The account's default Security Hub product, when a route sends findings there. */
  securityHubProductArn?: string | undefined;
}

/** One connection's secret. */
export interface ConnectionSecret {
  /** The connection's name. */
  name: string;
  secret: CredentialsSecret;
}

/** The roles built by {@link PollerFunction}: all but the push receiver, which has a construct of its own. */
export type PollingRole = Exclude<FunctionRole, 'receiver'>;

const DESCRIPTIONS: Record<PollingRole, string> = {
  poller: 'Polls the MongoDB Atlas activity feed and publishes alerts',
  dispatcher: 'Queues one message per MongoDB Atlas source for the fan-out workers',
  worker: 'Polls the MongoDB Atlas sources its queue messages name and publishes alerts',
  'audit-log':
    'Reads the MongoDB Atlas database audit logs exported to S3 through the rules and publishes alerts',
};

/**
 * The AWS managed policy with exactly the EC2 network interface actions Lambda needs to attach a
 * function to its subnets (create, describe, delete, assign and unassign addresses), and no logging
 * permissions, unlike AWSLambdaVPCAccessExecutionRole.
 */
export const ENI_MANAGEMENT_POLICY = 'service-role/AWSLambdaENIManagementAccess';

/**
 * The requests the DynamoDB state store sends: single-item reads and conditional writes, queries
 * within a partition, and batched reads of source times. Its transactions (`TransactWriteItems` of
 * conditional puts, updates and deletes, and the check of a digest's claim as its entries are
 * appended) are authorised item by item by `PutItem`, `UpdateItem`, `DeleteItem` and
 * `ConditionCheckItem`, so they need no action of their own. No scans, batch writes, streams or table
 * management.
 */
export const STATE_TABLE_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

/** What the poller sends to a bus its routes name: entries, nothing else (no rules, no archives). */
export const EVENT_BUS_ACTIONS = ['events:PutEvents'];

/**
 * What the poller sends to Security Hub: findings of its own, imported into the account's default
 * product (the resource the action is scoped to); no reads, no updates of others' findings.
 */
export const SECURITY_HUB_ACTIONS = ['securityhub:BatchImportFindings'];

/**
 * What a dispatcher that only queues sources reads of the table: the sources' last poll times
 * (`readSourceTimes`), to queue those that waited longest first.
 */
export const SOURCE_ORDER_ACTIONS = ['dynamodb:BatchGetItem'];

/** Lambda drops an asynchronous invocation older than this; the range Lambda accepts is 1 minute to 6 hours. */
function maxEventAgeFor(scheduleMinutes: number): Duration {
  return Duration.minutes(Math.min(Math.max(scheduleMinutes, 1), 360));
}

/**
 * The poller Lambda: one tick over every source per invocation. One execution at a time (reserved
 * concurrency 1), no retries of a failed tick (the next scheduled one reads the same window again), and
 * an invocation still queued when the next one is due is dropped. Its role may write its own logs, read
 * its secrets (one per connection), use its table and publish to the alert topic, nothing else; metrics
 * go out as embedded metric format log lines, so no `cloudwatch:PutMetricData` is needed.
 */
export class PollerFunction extends Construct {
  readonly function: IFunction;
  readonly logGroup: LogGroup;
  /** The function's role, for the grants its own resources add (a queue). */
  readonly role: Role;

  constructor(scope: Construct, id: string, props: PollerFunctionProps) {
    super(scope, id);
    const { config } = props;
    const functionRole = props.role ?? 'poller';
    const polls = props.polls ?? true;
    // Driven by a queue: it scales with it, and failed messages are delivered again, not the invocation.
    const queueDriven = functionRole === 'worker' || functionRole === 'audit-log';
    const isWorker = functionRole === 'worker';
    const logGroup = new LogGroup(this, 'Logs', {
      retention: config.poller.logRetentionDays as RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `The atlas-audit-alerts ${functionRole}`,
    });
    logGroup.grantWrite(role);
    props.secret?.grantRead(role);
    for (const { secret } of props.connectionSecrets ?? []) secret.grantRead(role);
    if (polls) {
      props.table.grant(role, ...STATE_TABLE_ACTIONS);
      grantTopicPublish({ grantee: role, topic: props.alertTopic, key: props.alertTopicKey });
      if (props.eventBus !== undefined) {
        role.addToPolicy(
          new PolicyStatement({ actions: EVENT_BUS_ACTIONS, resources: [props.eventBus.eventBusArn] }),
        );
      }
      if (props.securityHubProductArn !== undefined) {
        role.addToPolicy(
          new PolicyStatement({ actions: SECURITY_HUB_ACTIONS, resources: [props.securityHubProductArn] }),
        );
      }
    } else {
      props.table.grant(role, ...SOURCE_ORDER_ACTIONS);
    }
    if (props.network !== undefined) {
      role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName(ENI_MANAGEMENT_POLICY));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${ENI_MANAGEMENT_POLICY}]`,
        reason:
          'Lambda needs these EC2 network interface actions to place the function in its subnets. EC2 does not scope them to resources, and AWS keeps the managed policy in step with what Lambda checks for.',
      });
    }

    const logLevel = config.poller.logLevel;
    const poller = new LambdaFunction(this, 'Function', {
      description: DESCRIPTIONS[functionRole],
      code: Code.fromAsset(props.code(functionRole)),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize:
        props.sizing?.memoryMiB ?? (isWorker ? config.fanOut.workerMemoryMiB : config.poller.memoryMiB),
      timeout: Duration.seconds(
        props.sizing?.timeoutSeconds ??
          (isWorker ? config.fanOut.workerTimeoutSeconds : config.poller.timeoutSeconds),
      ),
      // Queue-driven functions scale with the queue (the event source mapping's maximum concurrency bounds them).
      ...(config.poller.reservedConcurrency && !queueDriven ? { reservedConcurrentExecutions: 1 } : {}),
      ...(queueDriven
        ? {}
        : { retryAttempts: 0, maxEventAge: maxEventAgeFor(config.timing.scheduleMinutes) }),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: pollerEnvironment({
        config,
        resources: {
          tableName: props.table.tableName,
          topicArn: props.alertTopic.topicArn,
          secretArn: props.secret?.secretArn,
          connectionSecrets: props.connectionSecrets?.map(({ name, secret }) => ({
            name,
            secretArn: secret.secretArn,
            longestSecretArn: secret.longestSecretArn,
          })),
          eventBusName: props.eventBus?.eventBusName,
          securityHubProductArn: props.securityHubProductArn,
        },
        toJsonString: (value) => Stack.of(this).toJsonString(value),
        extra: props.environment,
      }),
      ...(props.network === undefined
        ? {}
        : {
            vpc: props.network.vpc,
            vpcSubnets: { subnets: props.network.subnets },
            securityGroups: props.network.securityGroups,
          }),
    });
    this.function = poller;
    this.logGroup = logGroup;
    this.role = role;
  }
}
