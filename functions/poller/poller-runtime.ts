import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecurityHubClient } from '@aws-sdk/client-securityhub';
import type { SNSClient } from '@aws-sdk/client-sns';
import { type Clock, systemClock } from '../../shared/clock.js';
import type { LogAttributes, Logger } from '../../shared/logger.js';
import { SnsDigestPublisher } from '../../shared/notify/digest-publisher.js';
import type { FormatContext } from '../../shared/notify/format-context.js';
import {
  type ConsoleLinkOptions,
  EventBridgeNotifier,
  type EventBridgeNotifierOptions,
  SecurityHubNotifier,
  SnsNotifier,
} from '../../shared/notify/index.js';
import { buildMessageAttributes } from '../../shared/notify/message-attributes.js';
import { digestDestination } from '../../shared/poll/digest-destination.js';
import {
  type AlertDestination,
  DiscoveryCache,
  type MetricsSink,
  NameCache,
  SECURITY_HUB_DEFAULT_PRODUCT,
  sourceHealthDetails,
  type TickSummary,
} from '../../shared/poll/index.js';
import type { TickDependencies } from '../../shared/poll/tick-types.js';
import { routedDestination } from '../../shared/routes/account-destination.js';
import { type DigestPlan, digestTakes } from '../../shared/routes/digest-route.js';
import { createRuleEngine, type RuleEngine } from '../../shared/rules/engine.js';
import type { RulePack } from '../../shared/rules/rule-pack.js';
import { DynamoDbStateStore } from '../../shared/state/index.js';
import { ConnectionClients } from './connection-clients.js';
import { PollerConfigError } from './errors.js';
import type { LambdaPollerConfig } from './lambda-config.js';
import { powertoolsMetricsSink } from './powertools-metrics-sink.js';
import { sharedLogger } from './shared-logger.js';

export { sharedLogger };

/** What {@link createPollerRuntime} builds from: the clients are created once per container. */
export interface PollerRuntimeOptions {
  config: LambdaPollerConfig;
  /** The validated rules (in the Lambda, `loadBundledRulePack()`). */
  pack: RulePack;
  dynamoDb: DynamoDBClient;
  sns: SNSClient;
  /** Needed when a route sends to EventBridge (see `destinationClients`). */
  eventBridge?: EventBridgeClient | undefined;
  /** Needed when a route sends to Security Hub (see `destinationClients`). */
  securityHub?: SecurityHubClient | undefined;
  secretsManager: SecretsManagerClient;
  logger: PowertoolsLogger;
  metrics: Metrics;
  /** Default: the system clock. */
  clock?: Clock;
}

/** Everything a function that polls keeps for the life of its container. */
export interface PollerRuntime {
  clock: Clock;
  /** Powertools' Logger behind the interface `shared/` writes to. */
  logger: Logger;
  store: DynamoDbStateStore;
  /** Built over `store`, so suppressions and thresholds persist. */
  engine: RuleEngine;
  notifier: SnsNotifier;
  /**
   * The destinations beside the topic the routes send to (an EventBridge bus, Security Hub), and the
   * routes' digests, which collect their alerts in the store.
   */
  destinations: AlertDestination[];
  /** The routes' digests, sent at the end of a tick (see `TickDependencies.digests`); absent without any. */
  digests?: NonNullable<TickDependencies['digests']>;
  /**
   * Puts a tick's source health changes on the EventBridge bus, when a route sends there (see
   * `sourceHealthDetails`); does nothing otherwise. Never throws.
   */
  publishHealth(summary: TickSummary): Promise<void>;
  /**
   * Each connection's credentials (read from its own secret; the top-level settings' from
   * `config.secretArn`, as the connection `default`) and its client, rebuilt only when they change.
   */
  connections: ConnectionClients;
  discoveryCache: DiscoveryCache;
  /** Organization and project names for alerts, kept while the container is warm. */
  names: NameCache;
  /** The tick's metrics as Powertools EMF. */
  sink: MetricsSink;
}

/**
 * Builds what the poller, the fan-out dispatcher and the fan-out worker share: the state store on the
 * table, the rule engine over it, the SNS notifier, each connection's credentials (from its own
 * secret) and Atlas client cache, and the project discovery cache. Nothing is called until a tick runs.
 *
 * @example
 * ```ts
 * const runtime = createPollerRuntime({ config, pack, dynamoDb, sns, secretsManager, logger, metrics });
 * const atlas = await runtime.connections.clientFor(effectiveConnections(config)[0]);
 * ```
 */
export function createPollerRuntime(options: PollerRuntimeOptions): PollerRuntime {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = sharedLogger(options.logger);
  const store = new DynamoDbStateStore({
    client: options.dynamoDb,
    tableName: config.tableName,
    clock,
    logger,
  });
  const connections = new ConnectionClients({ secretsManager: options.secretsManager, clock, logger });
  const consoles = {
    console: { flavor: config.atlas.flavor, baseUrl: config.atlas.baseUrl },
    connectionConsoles: connectionConsoles(config),
  };
  return {
    clock,
    logger,
    store,
    engine: createRuleEngine({ pack: options.pack, counters: store, firstSeen: store, logger, clock }),
    notifier: new SnsNotifier({
      client: options.sns,
      topicArn: config.topicArn,
      clock,
      ...consoles,
      logger,
    }),
    ...withDigests(accountDestinations(options, { clock, logger, ...consoles }), options, {
      store,
      clock,
      consoles,
    }),
    connections,
    discoveryCache: new DiscoveryCache(),
    names: new NameCache(),
    sink: powertoolsMetricsSink(options.metrics),
  };
}

/**
 * The destinations the configuration's routes send to beside the topic, each with its notifier.
 *
 * @throws {PollerConfigError} when a destination is configured but its client was not given.
 */
function accountDestinations(
  options: PollerRuntimeOptions,
  shared: { clock: Clock; logger: Logger } & Pick<
    EventBridgeNotifierOptions,
    'console' | 'connectionConsoles'
  >,
): Pick<PollerRuntime, 'destinations' | 'publishHealth'> {
  const settings = options.config.destinations;
  const destinations: AlertDestination[] = [];
  let publishHealth: PollerRuntime['publishHealth'] = async () => {};
  if (settings?.eventBridge !== undefined) {
    if (options.eventBridge === undefined) {
      throw new PollerConfigError('a route sends to EventBridge but the function has no EventBridge client');
    }
    const notifier = new EventBridgeNotifier({
      client: options.eventBridge,
      busName: settings.eventBridge.busName,
      ...shared,
    });
    destinations.push(
      routedDestination({ kind: 'eventBridge', notifier, policies: settings.eventBridge.policies }),
    );
    publishHealth = async (summary) => {
      const details = sourceHealthDetails(summary);
      if (details.length === 0) return;
      const { sent, failed } = await notifier.publishHealth(details);
      shared.logger.info('source health changes put on the bus', { sent, failed });
    };
  }
  if (settings?.securityHub !== undefined) {
    if (options.securityHub === undefined) {
      throw new PollerConfigError(
        'a route sends to Security Hub but the function has no Security Hub client',
      );
    }
    const product = SECURITY_HUB_DEFAULT_PRODUCT.exec(settings.securityHub.productArn);
    const [, partition, region, accountId] = product ?? [];
    if (partition === undefined || region === undefined || accountId === undefined) {
      throw new PollerConfigError(
        `${settings.securityHub.productArn.slice(0, 200)} is not the ARN of an account's default Security Hub product`,
      );
    }
    const notifier = new SecurityHubNotifier({
      client: options.securityHub,
      accountId,
      region,
      partition,
      ...shared,
    });
    destinations.push(
      routedDestination({ kind: 'securityHub', notifier, policies: settings.securityHub.policies }),
    );
  }
  return { destinations, publishHealth };
}

/** The account destinations, with a destination per route digest, and what sends the digests. */
function withDigests(
  account: Pick<PollerRuntime, 'destinations' | 'publishHealth'>,
  options: PollerRuntimeOptions,
  shared: {
    store: DynamoDbStateStore;
    clock: Clock;
    consoles: Pick<FormatContext, 'console' | 'connectionConsoles'>;
  },
): Pick<PollerRuntime, 'destinations' | 'publishHealth' | 'digests'> {
  const digests = options.config.digests ?? [];
  if (digests.length === 0) return account;
  const destinations = [
    ...account.destinations,
    ...digests.map((plan) =>
      digestDestination({
        route: plan.route,
        every: plan.every,
        accepts: (alert) => digestTakes(plan as DigestPlan, buildMessageAttributes(alert)),
        store: shared.store,
        clock: shared.clock,
        console: shared.consoles,
      }),
    ),
  ];
  return {
    ...account,
    destinations,
    digests: {
      routes: digests.map(({ route, every }) => ({ route, every })),
      store: shared.store,
      publisher: new SnsDigestPublisher({ client: options.sns, topicArn: options.config.topicArn }),
    },
  };
}

/** An error as log attributes: name, stable code when it has one, message. */
export function describeError(error: unknown): LogAttributes {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    errorName: error.name,
    ...(typeof code === 'string' ? { errorCode: code } : {}),
    error: error.message,
  };
}

/** Each connection's console, by name, for the links of its alerts (an Ops Manager's own host). */
function connectionConsoles(config: LambdaPollerConfig): Map<string, ConsoleLinkOptions> {
  return new Map(
    (config.connections ?? []).map((connection) => [
      connection.name,
      { flavor: connection.flavor, baseUrl: connection.baseUrl },
    ]),
  );
}
