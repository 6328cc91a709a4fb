import type { Logger } from '../../shared/logger.js';
import type { ConnectionClients as TickConnectionClients } from '../../shared/poll/index.js';
import type { ConnectionClients, ConnectionTarget } from './connection-clients.js';
import { describeError } from './poller-runtime.js';

/**
 * Reads every connection's credentials (each secret is read every few minutes) and builds its
 * client, all at once. A connection whose secret cannot be read fails its own sources in the tick;
 * when none can be reached, nothing could be polled, and the first connection's error is thrown, as
 * a deployment of one connection has always done, so the invocation fails and its alarm fires.
 * Returns each connection's client for `runTick` and `listTickSources`: those reached, or any
 * other connection's, reached when asked for.
 *
 * @example
 * ```ts
 * const atlas = await reachConnections(effectiveConnections(config), runtime.connections, logger);
 * await runTick({ atlas, ... }, { config });
 * ```
 */
export async function reachConnections(
  polled: readonly ConnectionTarget[],
  connections: ConnectionClients,
  logger: Logger,
): Promise<TickConnectionClients> {
  const clients = new Map(polled.map((connection) => [connection.name, connections.clientFor(connection)]));
  const settled = await Promise.allSettled(clients.values());
  const failures = settled.flatMap((result, index) =>
    result.status === 'rejected' ? [{ connection: polled[index], error: result.reason as unknown }] : [],
  );
  const [first] = failures;
  const reached: TickConnectionClients = (connection) =>
    clients.get(connection.name) ?? connections.clientFor(connection);
  if (first === undefined || failures.length < polled.length) return reached;
  if (polled.length > 1) {
    for (const { connection, error } of failures) {
      logger.error('Connection unavailable: its credentials or client could not be had', {
        connection: connection?.name,
        ...describeError(error),
      });
    }
  }
  throw first.error;
}
