import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { PollerConfig } from '../../shared/poll/index.js';

/** The clients of the destinations the poller delivers to itself, created only for those it uses. */
export interface DestinationClients {
  eventBridge?: EventBridgeClient;
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
  return config.destinations?.eventBridge === undefined ? {} : { eventBridge: new EventBridgeClient({}) };
}
