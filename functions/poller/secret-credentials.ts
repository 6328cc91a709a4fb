import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AtlasCredentials } from '../../shared/atlas/index.js';
import type { Clock } from '../../shared/clock.js';
import { type Logger, silentLogger } from '../../shared/logger.js';
import { CredentialsSecretError, CredentialsSecretUnreadableError } from './errors.js';

/** How long credentials read from the secret are used before it is read again. */
export const DEFAULT_CREDENTIALS_TTL_MS = 5 * 60_000;

/** Where the poller gets its Atlas credentials: a port, so tests and other runtimes can supply their own. */
export interface CredentialsProvider {
  /**
   * The current credentials.
   *
   * @throws {CredentialsSecretError} when there are none to use.
   */
  credentials(): Promise<AtlasCredentials>;
  /** Forgets what was read, so the next call reads the secret again (after Atlas refused the credentials). */
  invalidate(): void;
}

/** Options of {@link SecretsManagerCredentials}. */
export interface SecretsManagerCredentialsOptions {
  /** Created once per container by the caller. */
  client: SecretsManagerClient;
  /** The complete ARN of the secret. */
  secretArn: string;
  clock: Clock;
  /** How long one read is used. Default 5 minutes. */
  ttlMs?: number;
  logger?: Logger;
}

interface CachedCredentials {
  credentials: AtlasCredentials;
  readAt: number;
}

/**
 * The Atlas credentials held in a Secrets Manager secret as JSON: `{"publicKey", "privateKey"}` (an API
 * key, HTTP Digest) or `{"clientId", "clientSecret"}` (a service account, OAuth). Read once and used for
 * `ttlMs`, so a tick every minute costs one `GetSecretValue` every few minutes; after a rotation the new
 * values are picked up within that time, or at once after {@link invalidate}. When Secrets Manager
 * cannot be reached but credentials were read before, those are used again (with a warning) rather than
 * stopping the poller.
 *
 * @example
 * ```ts
 * const provider = new SecretsManagerCredentials({ client: new SecretsManagerClient({}), secretArn, clock: systemClock });
 * const atlas = new AtlasClient({ credentials: await provider.credentials() });
 * ```
 */
export class SecretsManagerCredentials implements CredentialsProvider {
  readonly #client: SecretsManagerClient;
  readonly #secretArn: string;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  #cached: CachedCredentials | undefined;
  #fresh = false;
  #reading: Promise<AtlasCredentials> | undefined;

  /** @throws RangeError when `ttlMs` is negative or not a number. */
  constructor(options: SecretsManagerCredentialsOptions) {
    const ttlMs = options.ttlMs ?? DEFAULT_CREDENTIALS_TTL_MS;
    if (!Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new RangeError(`credentials ttlMs must be a non-negative number of milliseconds, got ${ttlMs}`);
    }
    this.#client = options.client;
    this.#secretArn = options.secretArn;
    this.#clock = options.clock;
    this.#ttlMs = ttlMs;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * The credentials, read from the secret when the last read is older than the TTL.
   *
   * @throws {CredentialsSecretUnreadableError} when Secrets Manager refuses or fails the read and no
   *   earlier read can stand in.
   * @throws {CredentialsSecretError} when the secret holds the stack's placeholder or any other shape.
   */
  credentials(): Promise<AtlasCredentials> {
    const cached = this.#cached;
    if (cached !== undefined && this.#fresh && this.#clock.now() - cached.readAt < this.#ttlMs) {
      return Promise.resolve(cached.credentials);
    }
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  invalidate(): void {
    this.#fresh = false;
  }

  async #read(): Promise<AtlasCredentials> {
    let secretString: string | undefined;
    let binary = false;
    try {
      const output = await this.#client.send(new GetSecretValueCommand({ SecretId: this.#secretArn }));
      secretString = output.SecretString;
      binary = output.SecretBinary !== undefined;
    } catch (error) {
      const unreadable = unreadableError(this.#secretArn, error);
      if (this.#cached === undefined) throw unreadable;
      // The values were good minutes ago: polling on with them beats stopping for a Secrets Manager blip.
      this.#logger.warn('Reading the credentials secret failed; using the credentials read before', {
        secretArn: this.#secretArn,
        errorCode: unreadable.code,
        error: unreadable.message,
        readAt: new Date(this.#cached.readAt).toISOString(),
      });
      return this.#cached.credentials;
    }
    const credentials = parseCredentialsSecret({ secretArn: this.#secretArn, secretString, binary });
    this.#cached = { credentials, readAt: this.#clock.now() };
    this.#fresh = true;
    return credentials;
  }
}

/** Options of {@link parseCredentialsSecret}. */
export interface ParseCredentialsSecretOptions {
  /** Named in error messages. */
  secretArn: string;
  /** The secret's `SecretString`; `undefined` when it has none. */
  secretString: string | undefined;
  /** Whether the secret holds `SecretBinary` instead. */
  binary?: boolean;
}

/**
 * Reads Atlas credentials from a secret's text: `{"publicKey", "privateKey"}` or `{"clientId",
 * "clientSecret"}`, non-empty strings, exactly one pair. Other keys are ignored.
 *
 * @throws {CredentialsSecretError} for the stack's placeholder (`{"replaceMe": …}`), text that is not a
 *   JSON object, half a pair, both pairs, or neither; the message names the secret and the command that
 *   puts credentials in, and never holds a value from the secret.
 * @example
 * ```ts
 * parseCredentialsSecret({ secretArn, secretString: '{"publicKey":"abcdefgh","privateKey":"…"}' });
 * // { kind: 'digest', publicKey: 'abcdefgh', privateKey: '…' }
 * ```
 */
export function parseCredentialsSecret(options: ParseCredentialsSecretOptions): AtlasCredentials {
  const { secretArn, secretString } = options;
  const fix = `put the credentials in: aws secretsmanager put-secret-value --secret-id ${secretArn} --secret-string '{"publicKey":"…","privateKey":"…"}' (an API key) or '{"clientId":"…","clientSecret":"…"}' (a service account)`;
  if (secretString === undefined) {
    throw new CredentialsSecretError(
      `The Atlas credentials secret ${secretArn} ${options.binary ? 'holds binary data' : 'has no value'}, not JSON text: ${fix}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(secretString) as unknown;
  } catch {
    // Neither the parser's message nor its error is kept: both quote the secret's text.
    throw new CredentialsSecretError(`The Atlas credentials secret ${secretArn} is not JSON: ${fix}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CredentialsSecretError(
      `The Atlas credentials secret ${secretArn} is not a JSON object: ${fix}`,
    );
  }
  const fields = json as Record<string, unknown>;
  const text = (name: string): string | undefined => {
    const value = fields[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const has = (name: string): boolean => fields[name] !== undefined;
  const digest = has('publicKey') || has('privateKey');
  const service = has('clientId') || has('clientSecret');
  if (digest && service) {
    throw new CredentialsSecretError(
      `The Atlas credentials secret ${secretArn} holds both an API key (publicKey, privateKey) and a service account (clientId, clientSecret): keep one pair`,
    );
  }
  if (digest || service) {
    const [first, second] = digest
      ? (['publicKey', 'privateKey'] as const)
      : (['clientId', 'clientSecret'] as const);
    const a = text(first);
    const b = text(second);
    if (a === undefined || b === undefined) {
      const bad = [a === undefined ? first : undefined, b === undefined ? second : undefined].filter(
        (name) => name !== undefined,
      );
      throw new CredentialsSecretError(
        `The Atlas credentials secret ${secretArn} has no usable ${bad.join(' or ')} (missing, empty or not a string): ${fix}`,
      );
    }
    return digest
      ? { kind: 'digest', publicKey: a, privateKey: b }
      : { kind: 'service-account', clientId: a, clientSecret: b };
  }
  if (has('replaceMe')) {
    throw new CredentialsSecretError(
      `The Atlas credentials secret ${secretArn} still holds the placeholder the stack created: ${fix}`,
    );
  }
  throw new CredentialsSecretError(
    `The Atlas credentials secret ${secretArn} holds neither publicKey and privateKey nor clientId and clientSecret: ${fix}`,
  );
}

const UNREADABLE_HINTS: Readonly<Record<string, string>> = {
  AccessDeniedException:
    "the function's role must be allowed secretsmanager:GetSecretValue on it (and kms:Decrypt on its key, if it has one of its own)",
  ResourceNotFoundException:
    'the secret does not exist or has no current value: create it, or correct the secret ARN in the deploy configuration',
  DecryptionFailure:
    "Secrets Manager cannot decrypt it: the function's role needs kms:Decrypt on the secret's key",
  InvalidRequestException:
    'the secret is scheduled for deletion or not usable: restore it or point the stack at another',
};

function unreadableError(secretArn: string, error: unknown): CredentialsSecretUnreadableError {
  const name = error instanceof Error ? error.name : 'Error';
  const hint =
    UNREADABLE_HINTS[name] ?? 'Secrets Manager or the network failed: the next invocation tries again';
  return new CredentialsSecretUnreadableError(
    `Reading the Atlas credentials secret ${secretArn} failed (${name}): ${hint}`,
    { cause: error },
  );
}
