import { join } from 'node:path';
import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, Stage } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import { planDigests } from '../shared/routes/digest-route.js';
import { planRoutes } from '../shared/routes/route-plan.js';
import { accountDestinationPolicies, CREATED_BUS } from './account-destinations.js';
import type { AuditLogSettings } from './audit-log-settings.js';
import { type DeployConfig, type DeployConfigInput, parseDeployConfig } from './config.js';
import { AlertTopic } from './constructs/alert-topic.js';
import { AtlasCredentials } from './constructs/atlas-credentials.js';
import { AuditLogBucket } from './constructs/audit-log-bucket.js';
import { AuditLogReceiver } from './constructs/audit-log-receiver.js';
import { FanOutMonitoring } from './constructs/fan-out-monitoring.js';
import { FanOutQueue } from './constructs/fan-out-queue.js';
import { OperationsAlarms } from './constructs/operations-alarms.js';
import { OperationsDashboard } from './constructs/operations-dashboard.js';
import { OperationsTopic } from './constructs/operations-topic.js';
import { PollSchedule } from './constructs/poll-schedule.js';
import { PollerFunction, type PollerFunctionProps } from './constructs/poller-function.js';
import { PollerNetwork } from './constructs/poller-network.js';
import { PushReceiverFunction } from './constructs/push-receiver.js';
import { grantQueueSend } from './constructs/queue-send-grant.js';
import { SlackDelivery } from './constructs/slack-delivery.js';
import { StateTable } from './constructs/state-table.js';
import { SubscriptionDeadLetters } from './constructs/subscription-dead-letters.js';
import { WebhookSecret } from './constructs/webhook-secret.js';
import { DEFAULT_ROUTE, deliveryRoutes } from './delivery-routes.js';
import { connectionIdPart, type DeployedConnection, deployedConnections } from './deploy-connections.js';
import { DeployConfigError, InfraError } from './errors.js';
import { fanOutEnvironment } from './fan-out-environment.js';
import type { FunctionRole } from './lambda-bundles.js';
import { functionCode } from './lambda-code.js';
import { resolveNetworkPlan } from './network-plan.js';
import { buildRulePackFile, type RulePackFile } from './rule-pack-file.js';
import { refuseNothingToPoll, warnAboutGaps, warnAboutRules } from './synth-checks.js';

/**
 * The deploy settings, as typed props: the same settings, with the same defaults and the same checks,
 * as the `atlasAuditAlerts` object in `cdk.json` or a configuration file (see
 * `infra/examples/config.example.yaml`), except `stackName` and `env`, which belong to the stack you
 * put the construct in.
 */
export type AtlasAuditAlertsSettings = Omit<DeployConfigInput, 'stackName' | 'env'>;

export interface AtlasAuditAlertsProps extends AtlasAuditAlertsSettings {
  /**
   * The folder the paths in `rules.directories` are relative to. Default: the current directory, the
   * one `cdk synth` runs in (where `cdk.json` is).
   */
  readonly baseDirectory?: string | undefined;
  /**
   * The prefix of the names the construct gives (the Slack channel configurations, a created event bus).
   * Default: the stack's name. Set it when the stack holds two of these constructs.
   */
  readonly namePrefix?: string | undefined;
}

/**
 * atlas-audit-alerts in your own CDK app: the scheduled poller of the MongoDB Atlas (or Ops Manager)
 * activity feed with its secrets and state table, the alert topic with its email, Slack, EventBridge and
 * Security Hub deliveries, and the operations topic, alarms and dashboard; with `auditLogs`, the
 * buckets Atlas exports database audit logs to, the role it assumes, and the queue and function that
 * read them through the rules.
 *
 * The props are validated as the configuration file is, the rule layers are loaded, validated and
 * compiled at synth, and the functions' code is the package's prebuilt bundles with the rule pack
 * beside them: your app needs no bundling step for it. Warnings (no alert destination, rule warnings
 * that do not fail) are synth warnings on the construct.
 *
 * @throws {DeployConfigError} listing every wrong or unknown setting with its path.
 * @throws {NothingToPollError} when it names no organization and no project without `sources.allowNone`.
 * @throws {RuleLoadError} when a rule file is invalid: the message lists file:line:column for each problem.
 * @throws {RulePackTooLargeError} when the rules, loaded, would not fit the function's memory.
 * @throws {PollerEnvironmentTooLargeError} when the poller's configuration would not fit Lambda's limit.
 * @example
 * ```ts
 * const stack = new Stack(app, 'AtlasAuditAlerts');
 * new AtlasAuditAlerts(stack, 'AuditAlerts', {
 *   sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
 *   alerts: { emails: ['security@example.com'] },
 *   rules: { directories: ['builtin', 'atlas-rules'] },
 * });
 * ```
 */
export class AtlasAuditAlerts extends Construct {
  /** The validated settings, with their defaults. */
  readonly config: DeployConfig;
  /** The rule pack compiled at synth: its rule count, size and the warnings that did not fail. */
  readonly rulePack: RulePackFile;
  /** Alerts are published here; subscribe more endpoints to it. */
  readonly alertTopic: AlertTopic['topic'];
  /** The stack's alarms are published here. */
  readonly operationsTopic: OperationsTopic['topic'];
  /** The function the schedule starts: the poller, or with fan-out the dispatcher. */
  readonly pollerFunction: PollerFunction['function'];
  /** The state table (watermarks, claims, snapshots). */
  readonly stateTable: StateTable['table'];
  /** The push receiver's function URL, with `push.enabled`: Atlas webhooks post to it. */
  readonly pushUrl: string | undefined;

  constructor(scope: Construct, id: string, props: AtlasAuditAlertsProps) {
    super(scope, id);
    const { baseDirectory = process.cwd(), namePrefix, ...settings } = props;
    const stack = Stack.of(this);
    const config = validateSettings(settings, namePrefix ?? stack.stackName, this.node.path);
    this.config = config;
    refuseNothingToPoll(config);
    const outdir = join(Stage.of(this)?.outdir ?? process.cwd(), 'atlas-audit-alerts', this.node.addr);
    const rulePack = buildRulePackFile({
      paths: config.rules.directories,
      baseDirectory,
      outputDirectory: outdir,
      strict: config.rules.strict,
      memory:
        config.fanOut.mode !== 'off' && config.fanOut.workerMemoryMiB < config.poller.memoryMiB
          ? { memoryMiB: config.fanOut.workerMemoryMiB, setting: 'fanOut.workerMemoryMiB' }
          : { memoryMiB: config.poller.memoryMiB, setting: 'poller.memoryMiB' },
    });
    this.rulePack = rulePack;
    const code = (role: FunctionRole): string =>
      functionCode({ role, rulePackFile: rulePack.path, outputDirectory: join(outdir, 'functions') });
    const schedulePeriod = Duration.minutes(config.timing.scheduleMinutes);

    const key = new Key(this, 'MessagingKey', {
      description: 'Encrypts the atlas-audit-alerts topics and queues',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const credentials = this.#credentials();
    const state = new StateTable(this, 'State', {
      removalPolicy: config.table.removalPolicy,
      deletionProtection: config.table.deletionProtection ?? config.table.removalPolicy === 'retain',
    });
    const deadLetters = new SubscriptionDeadLetters(this, 'SubscriptionDeadLetters');
    // One subscription per destination, whose filter policy is its routes' together.
    const plan = planRoutes(deliveryRoutes(config));
    const alerts = new AlertTopic(this, 'Alerts', {
      key,
      emails: plan.destinations.flatMap(({ destination, filterPolicy }) =>
        destination.kind === 'email' ? [{ address: destination.address, filterPolicy }] : [],
      ),
      deadLetters,
    });
    const slackDeliveries = plan.destinations.flatMap(({ destination, filterPolicy, routes }) => {
      if (destination.kind !== 'slack') return [];
      // The default route's channel keeps the names it has always had; another is named by its first route.
      const route = routes[0] ?? DEFAULT_ROUTE;
      const id = route === DEFAULT_ROUTE ? 'Slack' : `Slack${pascalCase(route)}`;
      return [
        {
          id,
          delivery: new SlackDelivery(this, id, {
            alertTopic: alerts.topic,
            configurationName: `${config.stackName}-${route === DEFAULT_ROUTE ? 'alerts' : route}`,
            workspaceId: destination.workspaceId,
            channelId: destination.channelId,
            filterPolicy,
            deadLetters,
            deadLetterId: `${id}SubscriptionDeadLetters`,
          }),
        },
      ];
    });

    const networkPlan = resolveNetworkPlan({
      network: config.network,
      atlasBaseUrls: deployedConnections(config).map((connection) => connection.baseUrl),
    });
    const network =
      networkPlan.mode === 'public'
        ? undefined
        : new PollerNetwork(this, 'Network', {
            plan: networkPlan,
            flowLogRetentionDays: config.poller.logRetentionDays,
            sqsEndpoint: config.fanOut.mode !== 'off',
            s3Endpoint: [
              config.auditLogs,
              ...config.connections.map((connection) => connection.auditLogs),
            ].some((settings) => settings?.enabled === true),
          });

    const destinations = accountDestinationPolicies(config);
    const eventBus = destinations.eventBridge === undefined ? undefined : this.#eventBus();
    const securityHubProductArn =
      destinations.securityHub === undefined
        ? undefined
        : `arn:${Aws.PARTITION}:securityhub:${Aws.REGION}:${Aws.ACCOUNT_ID}:product/${Aws.ACCOUNT_ID}/default`;
    const functionProps = {
      config,
      eventBus,
      securityHubProductArn,
      code,
      table: state.table,
      alertTopic: alerts.topic,
      alertTopicKey: key,
      secret: credentials.find(({ connection }) => connection.legacy)?.secret,
      connectionSecrets: credentials.flatMap(({ connection, secret }) =>
        connection.legacy ? [] : [{ name: connection.name, secret }],
      ),
      network: network?.functionNetwork,
    };
    const fanOutMode = config.fanOut.mode;
    const fanOut = fanOutMode === 'off' ? undefined : this.#fanOut(functionProps, key, fanOutMode);
    // With fan-out the schedule starts the dispatcher, which the operations alarms then watch.
    const poller = fanOut?.dispatcher ?? new PollerFunction(this, 'Poller', functionProps);
    new PollSchedule(this, 'Schedule', { poller: poller.function, every: schedulePeriod });

    const operations = new OperationsTopic(this, 'Operations', {
      key,
      emails: config.operations.emails,
      deadLetters,
    });
    const alarms = new OperationsAlarms(this, 'Alarms', {
      poller: poller.function,
      topic: operations.topic,
      schedulePeriod,
      watermarkLagThreshold: Duration.minutes(config.operations.watermarkLagAlarmMinutes),
      slack: slackDeliveries.map(({ id, delivery }) => ({
        id,
        deadLetterQueue: delivery.deadLetterQueue,
        topic: delivery.topic,
      })),
      notificationTopics: { alerts: alerts.topic, operations: operations.topic },
      destinations: (['eventBridge', 'securityHub'] as const).filter(
        (kind) => destinations[kind] !== undefined,
      ),
      subscriptionDeadLetters: deadLetters.queues,
      digests: planDigests(deliveryRoutes(config)).length > 0,
      ...(config.connections.length === 0
        ? {}
        : { connections: credentials.map(({ connection }) => connection.name) }),
    });
    const dashboard = new OperationsDashboard(this, 'Dashboard', {
      poller: poller.function,
      schedulePeriod,
      alarms: alarms.alarms,
    });

    if (fanOut !== undefined) {
      new FanOutMonitoring(this, 'FanOutMonitoring', {
        queue: fanOut.queue.queue,
        deadLetterQueue: fanOut.queue.deadLetterQueue,
        worker: fanOut.worker.function,
        topic: operations.topic,
        dashboard: dashboard.dashboard,
        schedulePeriod,
      });
      new CfnOutput(this, 'FanOutQueueUrl', { value: fanOut.queue.queue.queueUrl });
      new CfnOutput(this, 'FanOutDeadLetterQueueUrl', { value: fanOut.queue.deadLetterQueue.queueUrl });
      new CfnOutput(this, 'WorkerFunctionName', { value: fanOut.worker.function.functionName });
    }

    for (const { connection, secret } of credentials) {
      const top = connection.name === DEFAULT_CONNECTION;
      new CfnOutput(
        this,
        top ? 'CredentialsSecretArn' : `CredentialsSecretArn${connectionIdPart(connection.name)}`,
        {
          description: connection.legacy
            ? 'Put the Atlas credentials here: aws secretsmanager put-secret-value --secret-id <this>'
            : `Put the credentials of the connection ${connection.name} here: aws secretsmanager put-secret-value --secret-id <this>`,
          value: secret.secretArn,
        },
      );
    }
    new CfnOutput(this, 'AlertTopicArn', {
      description: 'Alerts are published here; subscribe more endpoints to it',
      value: alerts.topic.topicArn,
    });
    new CfnOutput(this, 'OperationsTopicArn', {
      description: 'The stack alarms are published here',
      value: operations.topic.topicArn,
    });
    if (eventBus !== undefined) {
      new CfnOutput(this, 'AlertEventBusArn', {
        description:
          'Alerts are put on this EventBridge bus (source io.github.atlas-audit-alerts): add rules to it',
        value: eventBus.eventBusArn,
      });
    }
    this.pushUrl = undefined;
    if (config.push.enabled) {
      if (fanOut === undefined) {
        throw new InfraError(
          'push.enabled needs the fan-out queue: the deploy configuration refuses fanOut.mode off',
        );
      }
      const receiver = this.#push({
        code,
        table: state.table,
        queue: fanOut.queue.queue,
        key,
        connections: credentials.map(({ connection }) => connection),
        alarmTopic: operations.topic,
      });
      this.pushUrl = receiver.url.url;
    }
    this.#auditLogs({
      functionProps,
      connections: credentials.map(({ connection }) => connection),
      alarmTopic: operations.topic,
      dashboard: dashboard.dashboard,
    });
    new CfnOutput(this, 'PollerFunctionName', { value: poller.function.functionName });
    new CfnOutput(this, 'PollerLogGroupName', {
      description: "The poller's logs, a summary line per tick: aws logs tail <this> --follow",
      value: poller.logGroup.logGroupName,
    });
    new CfnOutput(this, 'StateTableName', {
      description: 'The state table: atlas-audit-alerts status --state dynamodb:<this>',
      value: state.table.tableName,
    });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName });
    this.alertTopic = alerts.topic;
    this.operationsTopic = operations.topic;
    this.pollerFunction = poller.function;
    this.stateTable = state.table;
    warnAboutGaps(this, config);
    warnAboutRules(this, rulePack);
    if (network?.egressAddresses !== undefined) {
      new CfnOutput(this, 'EgressIpAddresses', {
        description:
          "The poller's requests leave from these addresses: put each on the Atlas API key's or service account's access list",
        value: Fn.join(',', network.egressAddresses),
      });
    }
  }

  /**
   * The bus alerts go to (`eventBridge.bus`): the account's `default` bus, one the stack creates
   * (`create`), or an existing one by name or ARN. The poller puts entries by name on a bus of its own
   * account and by ARN on another account's.
   */
  #eventBus(): { eventBusName: string; eventBusArn: string } {
    const bus = this.config.eventBridge?.bus ?? 'default';
    if (bus === CREATED_BUS) {
      const created = new EventBus(this, 'AlertBus', { eventBusName: `${this.config.stackName}-alerts` });
      return { eventBusName: created.eventBusName, eventBusArn: created.eventBusArn };
    }
    if (bus.startsWith('arn:')) return { eventBusName: bus, eventBusArn: bus };
    return {
      eventBusName: bus,
      eventBusArn: Stack.of(this).formatArn({ service: 'events', resource: 'event-bus', resourceName: bus }),
    };
  }

  /**
   * One secret per connection polled, created unless the configuration names an existing one. The
   * top-level settings' secret, and that of a connection named `default` (the same settings moved
   * into `connections`), keep the construct id the secret has always had, so neither is replaced.
   */
  #credentials(): { connection: DeployedConnection; secret: AtlasCredentials }[] {
    return deployedConnections(this.config).map((connection) => {
      const id =
        connection.name === DEFAULT_CONNECTION
          ? 'AtlasCredentials'
          : `Connection${connectionIdPart(connection.name)}Credentials`;
      const secret = new AtlasCredentials(this, id, {
        ...connection.credentials,
        connection: connection.legacy ? undefined : connection,
      });
      return { connection, secret };
    });
  }

  /**
   * The push receiver, with one webhook secret per connection (created unless the configuration names
   * an existing one), and its URLs: the function URL itself for the connection `default`, the URL and
   * the connection's name as its path for another.
   */
  #push(options: {
    code: (role: FunctionRole) => string;
    table: StateTable['table'];
    queue: FanOutQueue['queue'];
    key: Key;
    connections: readonly DeployedConnection[];
    alarmTopic: OperationsTopic['topic'];
  }): PushReceiverFunction {
    const config = this.config;
    const connections = options.connections.map((connection) => {
      const top = connection.name === DEFAULT_CONNECTION;
      const settings = connection.legacy
        ? config.push.webhookSecret
        : (config.connections.find((candidate) => candidate.name === connection.name)?.webhookSecret ?? {});
      const part = top ? '' : connectionIdPart(connection.name);
      const secret = new WebhookSecret(this, top ? 'WebhookSecret' : `Connection${part}WebhookSecret`, {
        connection: connection.name,
        ...settings,
      });
      return { name: connection.name, sources: connection.sources, secret, part };
    });
    const receiver = new PushReceiverFunction(this, 'PushReceiver', {
      config,
      code: options.code,
      table: options.table,
      queue: options.queue,
      key: options.key,
      connections,
      alarmTopic: options.alarmTopic,
    });
    for (const { name, secret, part } of connections) {
      new CfnOutput(this, `PushWebhookUrl${part}`, {
        description: `The URL of the Atlas Webhook integrations of the connection ${name}: each project's integration posts here`,
        value: part === '' ? receiver.url.url : Fn.join('', [receiver.url.url, name]),
      });
      new CfnOutput(this, `WebhookSecretArn${part}`, {
        description: `The secret the Atlas Webhook integrations of the connection ${name} sign with: aws secretsmanager get-secret-value --secret-id <this>`,
        value: secret.secretArn,
      });
    }
    return receiver;
  }

  /**
   * The audit log exports of the connections whose `auditLogs` are enabled: a bucket and the role
   * Atlas assumes for each (outputs `AuditLogBucketName` and `AuditLogRoleArn`, with the connection's
   * name part for one of `connections`), and one queue and function that read every bucket's new
   * objects. Nothing when no connection enables them.
   */
  #auditLogs(options: {
    functionProps: PollerFunctionProps;
    connections: readonly DeployedConnection[];
    alarmTopic: OperationsTopic['topic'];
    dashboard: OperationsDashboard['dashboard'];
  }): AuditLogReceiver | undefined {
    const config = this.config;
    const buckets = options.connections.flatMap((connection) => {
      const settings: AuditLogSettings | undefined = connection.legacy
        ? config.auditLogs
        : config.connections.find((candidate) => candidate.name === connection.name)?.auditLogs;
      if (settings === undefined || !settings.enabled) return [];
      const part = connection.name === DEFAULT_CONNECTION ? '' : connectionIdPart(connection.name);
      const bucket = new AuditLogBucket(this, part === '' ? 'AuditLogs' : `Connection${part}AuditLogs`, {
        connection: connection.name,
        settings,
      });
      new CfnOutput(this, `AuditLogBucketName${part}`, {
        description: `The bucket the connection ${connection.name}'s projects export their audit logs to: the bucketName of each project's log integration`,
        value: bucket.bucket.bucketName,
      });
      new CfnOutput(this, `AuditLogRoleArn${part}`, {
        description: `The role Atlas assumes to write them: authorize it as each project's cloud provider access role (atlas cloudProviders accessRoles aws authorize <roleId> --iamAssumedRoleArn <this>)`,
        value: bucket.atlasRole.roleArn,
      });
      return [{ connection: connection.name, bucket, projects: settings.projects }];
    });
    if (buckets.length === 0) return undefined;
    return new AuditLogReceiver(this, 'AuditLogReceiver', {
      functionProps: options.functionProps,
      buckets,
      alarmTopic: options.alarmTopic,
      dashboard: options.dashboard,
    });
  }

  /**
   * The fan-out: the source queue, the dispatcher the schedule starts (it polls too in `automatic`
   * mode, for ticks with few sources) and the workers the queue drives through an event source
   * mapping with per-message failures, its batch size and its maximum concurrency.
   */
  #fanOut(
    functionProps: PollerFunctionProps,
    key: Key,
    mode: 'on' | 'automatic',
  ): { queue: FanOutQueue; dispatcher: PollerFunction; worker: PollerFunction } {
    const settings = this.config.fanOut;
    const queue = new FanOutQueue(this, 'FanOut', { settings, key });
    const environment = fanOutEnvironment({
      settings: { ...settings, mode },
      queueUrl: queue.queue.queueUrl,
      schedulePeriodSeconds: this.config.timing.scheduleMinutes * 60,
      toJsonString: (value) => Stack.of(this).toJsonString(value),
    });
    // The name stays "Poller": the dispatcher takes the poller's place in the schedule and alarms.
    const dispatcher = new PollerFunction(this, 'Poller', {
      ...functionProps,
      role: 'dispatcher',
      polls: mode === 'automatic',
      environment,
    });
    grantQueueSend({ grantee: dispatcher.role, queue: queue.queue, key });
    const worker = new PollerFunction(this, 'Worker', { ...functionProps, role: 'worker', environment });
    // The event source mapping grants the worker what it consumes with, ChangeMessageVisibility
    // included: the worker delays a rate-limited source's message with it.
    worker.function.addEventSource(
      new SqsEventSource(queue.queue, {
        batchSize: settings.batchSize,
        maxConcurrency: settings.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    return { queue, dispatcher, worker };
  }
}

/** `payments-team` as a construct id part: `PaymentsTeam`. */
function pascalCase(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The props as the deploy configuration: checked by the same schema, with the same messages, as the
 * configuration file; the stack's name (or `namePrefix`) names what the construct names.
 */
function validateSettings(
  settings: AtlasAuditAlertsSettings,
  namePrefix: string,
  path: string,
): DeployConfig {
  const misplaced = (['stackName', 'env'] as const).filter((key) => key in settings);
  if (misplaced.length > 0) {
    const message = `${misplaced.join(' and ')} belong${misplaced.length === 1 ? 's' : ''} to the stack: give ${misplaced.length === 1 ? 'it' : 'them'} to the Stack you put the construct in (new Stack(app, name, { env }))`;
    throw new DeployConfigError(
      `The props of AtlasAuditAlerts at ${path} are invalid (${misplaced.length === 1 ? '1 setting' : `${misplaced.length} settings`}):\n${misplaced.map((key) => `  - ${key}: ${message}`).join('\n')}`,
      { problems: misplaced.map((key) => ({ path: key, message })) },
    );
  }
  return parseDeployConfig({
    input: { ...settings, stackName: namePrefix },
    origin: `the props of AtlasAuditAlerts at ${path}`,
  });
}
