import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecurityHubClient } from '@aws-sdk/client-securityhub';
import type { PollerConfig } from '../../shared/poll/index.js';

/** The clients of the destinations the poller delivers to itself, created only for those it uses. */
export interface DestinationClients {
  eventBridge?: EventBridgeClient;
  securityHub?: SecurityHubClient;
}

/**
 * One client per destination the configuration's routes send to, for a function's module scope: a
 * deployment that sends nowhere but its topic creates none.
 *
 * @example
 * ```ts
 * createPollerHandler({ config, ...destinationClients(config), dynamoDb, sns, ... });
 * ```
 */
export function destinationClients(config: Pick<PollerConfig, 'destinations'>): DestinationClients {
  const { eventBridge, securityHub } = config.destinations ?? {};
  return {
    ...(eventBridge === undefined ? {} : { eventBridge: new EventBridgeClient({}) }),
    ...(securityHub === undefined ? {} : { securityHub: new SecurityHubClient({}) }),
  };
}
