import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { WebhookSecretError } from './errors.js';

/** Where the receiver gets a connection's webhook secret: a port, Secrets Manager in the Lambda. */
export interface WebhookSecrets {
  /**
   * The connection's current webhook secret.
   *
   * @throws {WebhookSecretError} when there is none to use.
   */
  secretOf(connection: string): Promise<string>;
}

/** Options of {@link CachedWebhookSecrets}. */
export interface CachedWebhookSecretsOptions {
  /** Reads a connection's secret from where it is kept (one `GetSecretValue` in the Lambda). */
  read: (connection: string) => Promise<string>;
  clock: Pick<Clock, 'now'>;
  /** How long one read is used. */
  ttlMs: number;
  /**
   * How long a failed read is not tried again, when no earlier read can stand in: requests meanwhile
   * fail at once. Default 30 seconds.
   */
  retryAfterMs?: number;
  logger?: Logger;
}

interface Entry {
  secret: string | undefined;
  readAt: number;
  failedAt?: number;
  failure?: WebhookSecretError;
  reading?: Promise<string>;
}

/**
 * Webhook secrets read once per connection and kept for `ttlMs`, so a flood of requests (forged or
 * not) costs at most one read per connection per TTL: concurrent requests share one read, and a
 * failed read is not tried again for `retryAfterMs` (a secret read before stands in meanwhile, with a
 * warning). After a rotation the new secret is used within the TTL; pushes signed with it are refused
 * until then, and the scheduled poll still reads their events.
 *
 * @example
 * ```ts
 * const secrets = new CachedWebhookSecrets({ read: (name) => readFromSecretsManager(name), clock, ttlMs: 300_000 });
 * const secret = await secrets.secretOf('default');
 * ```
 */
export class CachedWebhookSecrets implements WebhookSecrets {
  readonly #options: CachedWebhookSecretsOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: CachedWebhookSecretsOptions) {
    this.#options = options;
  }

  secretOf(connection: string): Promise<string> {
    const now = this.#options.clock.now();
    let entry = this.#entries.get(connection);
    if (entry === undefined) {
      entry = { secret: undefined, readAt: Number.NEGATIVE_INFINITY };
      this.#entries.set(connection, entry);
    }
    if (entry.secret !== undefined && now - entry.readAt < this.#options.ttlMs) {
      return Promise.resolve(entry.secret);
    }
    if (entry.reading !== undefined) return entry.reading;
    const retryAfterMs = this.#options.retryAfterMs ?? 30_000;
    if (entry.failedAt !== undefined && now - entry.failedAt < retryAfterMs) {
      return entry.secret === undefined
        ? Promise.reject(entry.failure as WebhookSecretError)
        : Promise.resolve(entry.secret);
    }
    const current = entry;
    current.reading = this.#read(connection, current).finally(() => {
      delete current.reading;
    });
    return current.reading;
  }

  async #read(connection: string, entry: Entry): Promise<string> {
    try {
      const secret = await this.#options.read(connection);
      if (secret.length === 0) {
        throw new WebhookSecretError(
          `the webhook secret of connection ${connection} is empty: put the secret of the Atlas Webhook integration into it`,
        );
      }
      entry.secret = secret;
      entry.readAt = this.#options.clock.now();
      delete entry.failedAt;
      delete entry.failure;
      return secret;
    } catch (error) {
      const failure =
        error instanceof WebhookSecretError
          ? error
          : new WebhookSecretError(
              `the webhook secret of connection ${connection} could not be read: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
      entry.failedAt = this.#options.clock.now();
      entry.failure = failure;
      if (entry.secret === undefined) throw failure;
      (this.#options.logger ?? silentLogger).warn(
        'Reading a webhook secret failed; using the one read before',
        { connection, errorCode: failure.code, error: failure.message },
      );
      return entry.secret;
    }
  }
}
