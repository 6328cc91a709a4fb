import type { Clock } from '../clock.js';
import type { SourceQueue } from '../fan-out/source-queue.js';
import { type Logger, silentLogger } from '../logger.js';
import { DEFAULT_CONNECTION } from '../poll/connections.js';
import type { DeliveryClaimStore } from '../state/delivery-claims.js';
import { parsePushedAlert } from './atlas-alert.js';
import { pushQueueEntry } from './push-queue-entry.js';
import { MAX_PUSH_BODY_BYTES, type PushConnection } from './push-settings.js';
import { pushedSource } from './push-targets.js';
import type { WebhookSecrets } from './webhook-secrets.js';
import { EVENT_HEADER, SIGNATURE_HEADER, verifyWebhookSignature } from './webhook-signature.js';

/** One webhook request, as the transport (a Lambda function URL, node:http) gives it. */
export interface PushRequest {
  method: string;
  /** The URL's path: `/` for the connection `default`, `/<connection>` for another. */
  path: string;
  /** Header names in lower case; a header sent twice is refused (joined with a comma, it never verifies). */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body: bytes, or text as Lambda gives it (base64 when `base64`). */
  body: Uint8Array | { readonly text: string; readonly base64: boolean };
}

/**
 * What became of a request. Every outcome but `accepted` queues nothing; each is counted (the
 * `PushRequests` metric, by `outcome`).
 */
export type PushOutcome =
  /** A valid push: its source is queued for a poll now (or was, by another push of the same window). */
  | 'accepted'
  /** A valid push seen before (same connection, alert, event and update time): nothing queued. */
  | 'replay'
  /** Not a POST. */
  | 'method'
  /** A body over the limit (16 KB), refused before anything else is read. */
  | 'oversized'
  /** A path that names no connection taking pushes. */
  | 'unknown-connection'
  /** No signature, or one that is not the body's under the connection's secret. */
  | 'signature'
  /** Signed, but not an Atlas alert (or no `X-MMS-Event`). */
  | 'malformed'
  /** Signed, but the alert was last updated too long ago (or too far ahead): an old request replayed. */
  | 'stale'
  /** Signed, but for a project or organization the connection does not poll. */
  | 'unknown-source'
  /** The receiver could not do its part (secret, state table or queue unreachable): the sender may retry. */
  | 'failed';

/** The HTTP status of each outcome: a bare status, never a body, so a refusal tells nothing. */
export const PUSH_STATUS: Readonly<Record<PushOutcome, number>> = {
  accepted: 202,
  // A sender's retry of a push already taken is answered as taken: it must not look like a failure.
  replay: 200,
  method: 405,
  oversized: 413,
  'unknown-connection': 404,
  signature: 401,
  malformed: 400,
  stale: 422,
  'unknown-source': 422,
  failed: 503,
};

/** What the receiver answers: the status and why, for the caller's metric (never sent). */
export interface PushResult {
  status: number;
  outcome: PushOutcome;
}

/** Options of {@link PushReceiver}. */
export interface PushReceiverOptions {
  /** The connections taking pushes, each with what it polls. */
  connections: readonly Pick<PushConnection, 'name' | 'sources'>[];
  secrets: WebhookSecrets;
  /** Replay claims: the state table in the Lambda, the state file locally. */
  claims: DeliveryClaimStore;
  /** The fan-out source queue. */
  queue: Pick<SourceQueue, 'send'>;
  clock: Pick<Clock, 'now'>;
  logger?: Logger;
  /** Largest body taken, in bytes. Default 16 KB. */
  maxBodyBytes?: number;
  /** Oldest alert update taken, and how long a replay claim lives. Default 1 hour. */
  maxAgeMs?: number;
  /** How far ahead of this clock an alert's update may be (clock skew). Default 5 minutes. */
  maxSkewMs?: number;
  /** Pushes for one source within this window queue one poll. Default 10 seconds. */
  coalesceMs?: number;
}

const PATH_PATTERN = /^\/(?:([a-z][a-z0-9-]{0,31})\/?)?$/;
const EVENT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The push receiver's core, the same behind a Lambda function URL and a local HTTP server: it checks
 * a webhook request step by step, cheapest first, and queues at most one source for a poll now. It
 * never publishes anything: alerts come from the events that poll reads, with the tick's own claims,
 * so a push and the scheduled tick never send the same alert twice.
 *
 * 1. POST only; the body at most `maxBodyBytes`, measured before it is decoded.
 * 2. The path names a connection that takes pushes.
 * 3. `X-MMS-Signature` is the base64 HMAC-SHA1 of the raw body under the connection's webhook secret,
 *    compared in constant time. The secret is cached (see `CachedWebhookSecrets`), so a flood of
 *    forged requests costs no read per request, and nothing of a forged body is parsed.
 * 4. The body is an Atlas alert (ids, times) and `X-MMS-Event` names an event.
 * 5. The alert was updated within `maxAgeMs` (and not more than `maxSkewMs` ahead).
 * 6. The connection polls its project (or organization).
 * 7. The alert id, event and update time are claimed in the state store for `maxAgeMs + maxSkewMs`:
 *    a replay finds the claim; once it expires, the alert is stale.
 * 8. The source is queued (`pushQueueEntry`); when the queue refuses it, the claim is released so the
 *    sender's retry is taken.
 *
 * Each step's refusal is a bare status ({@link PUSH_STATUS}). Refusals are logged at debug level only
 * (a flood must not cost a log line a request), with the outcome and connection, never a header or
 * the body: no log line ever holds the secret or the signature.
 *
 * @example
 * ```ts
 * const receiver = new PushReceiver({ connections, secrets, claims: store, queue, clock: systemClock, logger });
 * const { status, outcome } = await receiver.receive({ method: 'POST', path: '/', headers, body });
 * ```
 */
export class PushReceiver {
  readonly #options: PushReceiverOptions;
  readonly #connections: ReadonlyMap<string, Pick<PushConnection, 'name' | 'sources'>>;
  readonly #logger: Logger;
  readonly #maxBodyBytes: number;
  readonly #maxAgeMs: number;
  readonly #maxSkewMs: number;
  readonly #coalesceMs: number;

  constructor(options: PushReceiverOptions) {
    this.#options = options;
    this.#connections = new Map(options.connections.map((connection) => [connection.name, connection]));
    this.#logger = options.logger ?? silentLogger;
    this.#maxBodyBytes = options.maxBodyBytes ?? MAX_PUSH_BODY_BYTES;
    this.#maxAgeMs = options.maxAgeMs ?? 3_600_000;
    this.#maxSkewMs = options.maxSkewMs ?? 300_000;
    this.#coalesceMs = options.coalesceMs ?? 10_000;
  }

  /** Checks one request and queues its source when it is a valid push; never throws. */
  async receive(request: PushRequest): Promise<PushResult> {
    const result = (outcome: PushOutcome, connection?: string): PushResult => {
      if (outcome !== 'accepted' && outcome !== 'failed') {
        this.#logger.debug('push refused', { outcome, ...(connection === undefined ? {} : { connection }) });
      }
      return { status: PUSH_STATUS[outcome], outcome };
    };
    if (request.method.toUpperCase() !== 'POST') return result('method');
    const body = this.#bodyOf(request.body);
    if (body === undefined) return result('oversized');
    const match = PATH_PATTERN.exec(request.path);
    const connection = match === null ? undefined : this.#connections.get(match[1] ?? DEFAULT_CONNECTION);
    if (connection === undefined) return result('unknown-connection');
    const signature = request.headers[SIGNATURE_HEADER];
    if (signature === undefined || signature.length !== 28) return result('signature', connection.name);
    let secret: string;
    try {
      secret = await this.#options.secrets.secretOf(connection.name);
    } catch (error) {
      this.#logger.error('push not taken: the webhook secret cannot be read', {
        connection: connection.name,
        errorCode: (error as { code?: unknown }).code ?? 'UNEXPECTED_ERROR',
        error: error instanceof Error ? error.message : String(error),
      });
      return result('failed', connection.name);
    }
    if (!verifyWebhookSignature({ body, signature, secret })) return result('signature', connection.name);

    const event = request.headers[EVENT_HEADER];
    const alert = parsePushedAlert(body);
    if (alert === undefined || event === undefined || !EVENT_PATTERN.test(event)) {
      return result('malformed', connection.name);
    }
    const now = this.#options.clock.now();
    if (alert.updatedAt < now - this.#maxAgeMs || alert.updatedAt > now + this.#maxSkewMs) {
      return result('stale', connection.name);
    }
    const source = pushedSource(connection, alert);
    if (source === undefined) return result('unknown-source', connection.name);

    const attributes = {
      connection: connection.name,
      source: source.name,
      alertId: alert.id,
      event,
      ...(alert.eventTypeName === undefined ? {} : { eventTypeName: alert.eventTypeName }),
    };
    const claims = this.#options.claims;
    let claim: Awaited<ReturnType<DeliveryClaimStore['claimDelivery']>>;
    try {
      claim = await claims.claimDelivery({
        key: `${connection.name}#${alert.id}#${event}#${alert.updated}`,
        holdMs: this.#maxAgeMs + this.#maxSkewMs,
      });
    } catch (error) {
      this.#logger.error('push not taken: its replay claim could not be written', {
        ...attributes,
        errorCode: (error as { code?: unknown }).code ?? 'UNEXPECTED_ERROR',
        error: error instanceof Error ? error.message : String(error),
      });
      return result('failed', connection.name);
    }
    if (claim === undefined) return result('replay', connection.name);

    const entry = pushQueueEntry({ source, now, coalesceMs: this.#coalesceMs });
    let failure: string | undefined;
    try {
      const report = await this.#options.queue.send([entry]);
      const refused = report.failed[0];
      if (refused !== undefined) failure = `${refused.code}: ${refused.message}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure !== undefined) {
      await claims.releaseDelivery(claim).catch(() => undefined);
      this.#logger.error('push not taken: its source could not be queued', { ...attributes, error: failure });
      return result('failed', connection.name);
    }
    this.#logger.info('push queued a poll', { ...attributes, tick: entry.message.tick });
    return result('accepted', connection.name);
  }

  /** The body as bytes, or `undefined` when it is larger than the limit (measured before decoding). */
  #bodyOf(body: PushRequest['body']): Uint8Array | undefined {
    const max = this.#maxBodyBytes;
    if (body instanceof Uint8Array) return body.byteLength > max ? undefined : body;
    if (body.base64) {
      // Four characters of base64 hold three bytes: a longer text cannot decode to `max` bytes or fewer.
      if (body.text.length > Math.ceil(max / 3) * 4 + 4) return undefined;
      const bytes = Buffer.from(body.text, 'base64');
      return bytes.byteLength > max ? undefined : bytes;
    }
    // A UTF-8 character takes at least one byte: a text longer than `max` characters is over it.
    if (body.text.length > max || Buffer.byteLength(body.text) > max) return undefined;
    return Buffer.from(body.text, 'utf8');
  }
}
