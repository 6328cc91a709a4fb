import { AtlasClient, type AtlasClientOptions, type AtlasCredentials } from '../../shared/atlas/index.js';
import { type Logger, silentLogger } from '../../shared/logger.js';

/** Options of {@link AtlasClientCache}: every client option but the credentials. */
export interface AtlasClientCacheOptions {
  client: Omit<AtlasClientOptions, 'credentials'>;
  logger?: Logger;
}

/**
 * Keeps one Atlas client per container and builds a new one only when the credentials change (a
 * rotated key): the client holds the digest nonce, the OAuth token and open connections, all of which
 * a new client would have to win again.
 *
 * @example
 * ```ts
 * const clients = new AtlasClientCache({ client: { baseUrl, flavor } }); // module scope
 * const atlas = clients.clientFor(await credentials.credentials());
 * ```
 */
export class AtlasClientCache {
  readonly #options: Omit<AtlasClientOptions, 'credentials'>;
  readonly #logger: Logger;
  #current: { credentials: AtlasCredentials; client: AtlasClient } | undefined;

  constructor(options: AtlasClientCacheOptions) {
    this.#options = options.client;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * The client for these credentials: the current one when they are the same values, else a new one
   * (the old one is closed once its requests are done).
   *
   * @throws {AtlasConfigError} (or `AtlasInsecureUrlError`) when the options or credentials are unusable.
   */
  clientFor(credentials: AtlasCredentials): AtlasClient {
    const current = this.#current;
    if (current !== undefined && sameCredentials(current.credentials, credentials)) return current.client;
    const client = new AtlasClient({ ...this.#options, credentials });
    this.#current = { credentials, client };
    if (current !== undefined) {
      this.#logger.info('The Atlas credentials changed: connecting with the new ones', {
        kind: credentials.kind,
      });
      current.client.close().catch((error: unknown) => {
        this.#logger.warn('Closing the previous Atlas client failed', { error: String(error) });
      });
    }
    return client;
  }

  /** Closes the current client. */
  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.client.close();
  }
}

function sameCredentials(a: AtlasCredentials, b: AtlasCredentials): boolean {
  if (a.kind === 'digest' && b.kind === 'digest') {
    return a.publicKey === b.publicKey && a.privateKey === b.privateKey;
  }
  if (a.kind === 'service-account' && b.kind === 'service-account') {
    return a.clientId === b.clientId && a.clientSecret === b.clientSecret;
  }
  return false;
}
