import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AtlasClient } from '../../shared/atlas/index.js';
import type { Clock } from '../../shared/clock.js';
import { type Logger, silentLogger } from '../../shared/logger.js';
import {
  ConnectionUnavailableError,
  DEFAULT_CONNECTION,
  type EffectiveConnection,
  type TickSummary,
} from '../../shared/poll/index.js';
import { AtlasClientCache } from './atlas-client-cache.js';
import { type CredentialsProvider, SecretsManagerCredentials } from './secret-credentials.js';

/** What a connection's client is built from: where it is, and where its credentials are. */
export type ConnectionTarget = Pick<EffectiveConnection, 'name' | 'flavor' | 'baseUrl' | 'secretArn'>;

/** One connection's credentials, read from its secret, and the client built with them. */
export interface ConnectionEntry {
  readonly credentials: CredentialsProvider;
  /** Builds a new client only when the credentials change. */
  readonly clients: AtlasClientCache;
}

/** Options of {@link ConnectionClients}. */
export interface ConnectionClientsOptions {
  /** Created once per container by the caller; reads every connection's secret. */
  secretsManager: SecretsManagerClient;
  clock: Clock;
  logger?: Logger;
}

/**
 * The Atlas client of each connection, kept for the life of the container: each connection has its
 * own credentials, read from its own secret (see `SecretsManagerCredentials`: every few minutes, and
 * at once after {@link invalidate}), and its own client, with its own digest nonce, OAuth token, pacing
 * and open connections, rebuilt only when its credentials change.
 *
 * @example
 * ```ts
 * const clients = new ConnectionClients({ secretsManager, clock }); // module scope
 * await runTick({ atlas: (connection) => clients.clientFor(connection), ... }, { config });
 * ```
 */
export class ConnectionClients {
  readonly #options: ConnectionClientsOptions;
  readonly #logger: Logger;
  readonly #entries = new Map<string, { target: ConnectionTarget; entry: ConnectionEntry }>();

  constructor(options: ConnectionClientsOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The credentials and client cache of `target`, made on first use. */
  entry(target: ConnectionTarget): ConnectionEntry {
    // A name keeps its entry as long as where it points does not change.
    const key = JSON.stringify([target.name, target.secretArn, target.baseUrl, target.flavor]);
    const known = this.#entries.get(key);
    if (known !== undefined) return known.entry;
    const { secretsManager, clock } = this.#options;
    const logger = this.#logger;
    const entry: ConnectionEntry = {
      credentials:
        target.secretArn === undefined
          ? new NoSecret(target.name)
          : new SecretsManagerCredentials({
              client: secretsManager,
              secretArn: target.secretArn,
              clock,
              logger,
            }),
      clients: new AtlasClientCache({
        client: { baseUrl: target.baseUrl, flavor: target.flavor, clock, logger },
        logger,
      }),
    };
    this.#entries.set(key, { target, entry });
    return entry;
  }

  /**
   * The client of `connection`, with its current credentials.
   *
   * @throws {CredentialsSecretError} (rejects) when its secret cannot be read or does not hold
   *   credentials; `AtlasConfigError` when its base URL or credentials are unusable;
   *   `ConnectionUnavailableError` when the configuration names no secret for it.
   */
  async clientFor(connection: ConnectionTarget): Promise<AtlasClient> {
    const { credentials, clients } = this.entry(connection);
    return clients.clientFor(await credentials.credentials());
  }

  /** Forgets the credentials of the connections named, so their secrets are read again next time. */
  invalidate(names: Iterable<string>): void {
    const refused = new Set(names);
    for (const { target, entry } of this.#entries.values()) {
      if (refused.has(target.name)) entry.credentials.invalidate();
    }
  }

  /** Closes every client. */
  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map(({ entry }) => entry.clients.close()));
  }
}

/** The credentials of a connection the configuration gives no secret: there are none to read. */
class NoSecret implements CredentialsProvider {
  readonly #name: string;

  constructor(name: string) {
    this.#name = name;
  }

  credentials(): Promise<never> {
    return Promise.reject(
      new ConnectionUnavailableError(
        `connection "${this.#name}" has no credentials secret in the function's configuration: deploy the stack again, which names one for every connection it polls`,
      ),
    );
  }

  invalidate(): void {}
}

/**
 * The connections Atlas refused this tick (401 or 403), whose credentials must be read again: those
 * of the sources, inventories and project discoveries that failed so. A discovery is its
 * organization's, so its connection is the one that polls that organization.
 *
 * @example
 * ```ts
 * clients.invalidate(refusedConnections(summary, effectiveConnections(config)));
 * ```
 */
export function refusedConnections(
  summary: Pick<TickSummary, 'sources' | 'discovery'>,
  connections: readonly Pick<EffectiveConnection, 'name' | 'sources'>[],
): Set<string> {
  const refused = new Set<string>();
  const isRefusal = (status: number | undefined): boolean => status === 401 || status === 403;
  for (const source of summary.sources) {
    const sourceRefused = source.status === 'failed' && isRefusal(source.httpStatus);
    const inventoryRefused = source.inventory?.status === 'failed' && isRefusal(source.inventory.httpStatus);
    if (sourceRefused || inventoryRefused) refused.add(source.connection ?? DEFAULT_CONNECTION);
  }
  for (const discovery of summary.discovery) {
    if (discovery.status !== 'failed' || !isRefusal(discovery.httpStatus)) continue;
    // A discovery names its connection unless it is `default`; earlier summaries named none.
    const { orgId } = discovery;
    const owner =
      discovery.connection ??
      (orgId === undefined
        ? DEFAULT_CONNECTION
        : connections.find((connection) => connection.sources.orgIds.includes(orgId))?.name);
    if (owner !== undefined) refused.add(owner);
  }
  return refused;
}
