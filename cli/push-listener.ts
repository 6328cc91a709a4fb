import { type Clock, systemClock } from '../shared/clock.js';
// The modules themselves, not the fan-out's door: it brings the SQS client, which the package does
// not depend on.
import { ConfiguredSources } from '../shared/fan-out/configured-sources.js';
import { InMemorySourceQueue } from '../shared/fan-out/in-memory-source-queue.js';
import { messageSource, parseSourceMessage } from '../shared/fan-out/source-message.js';
import type { Logger } from '../shared/logger.js';
import type {
  ConnectionClients,
  DiscoveryCache,
  EffectiveConnection,
  PollSource,
} from '../shared/poll/index.js';
import {
  CachedWebhookSecrets,
  type PushOutcome,
  PushReceiver,
  type PushServer,
  startPushServer,
} from '../shared/push/index.js';
import type { DeliveryClaimStore, StateStore } from '../shared/state/index.js';
import { UsageError } from './errors.js';

/** The environment variable holding the webhook secret a local receiver verifies pushes with. */
export const WEBHOOK_SECRET_ENV = 'ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET';

/**
 * Reads `--push-listen`: `HOST:PORT`, or `PORT` alone for `127.0.0.1`. `[::1]:PORT` for IPv6.
 *
 * @throws UsageError naming the value and the form expected.
 * @example
 * ```ts
 * parseListenAddress('127.0.0.1:8787'); // { host: '127.0.0.1', port: 8787 }
 * ```
 */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (match === null || !Number.isInteger(port) || port > 65_535) {
    throw new UsageError(
      `--push-listen ${JSON.stringify(value)} is not an address to listen on: give HOST:PORT (127.0.0.1:8787) or a PORT`,
    );
  }
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/** Options of {@link openPushListener}. */
export interface PushListenerOptions {
  /** `--push-listen`. */
  address: string;
  /** The run's connections: each takes pushes at `/` (`default`) or `/<name>`. */
  connections: readonly EffectiveConnection[];
  env: Readonly<Record<string, string | undefined>>;
  /** The run's state store: it keeps the replay claims. */
  store: StateStore;
  /** The run's Atlas clients, to check a pushed project of an organization polled whole. */
  atlas: ConnectionClients;
  discoveryCache: DiscoveryCache;
  /** Called when a push queued a source: the run's wait should end. */
  onQueued: () => void;
  logger: Logger;
  clock?: Clock;
}

/** A local push receiver: the sources pushes queued, taken by the run between its ticks. */
export interface PushListener {
  readonly url: string;
  /** Sources queued and not yet taken. */
  readonly pending: number;
  /** Requests by outcome since it opened, for the run's report. */
  readonly outcomes: Readonly<Partial<Record<PushOutcome, number>>>;
  /**
   * Takes every queued source the run polls (a project of an organization polled whole is checked
   * against Atlas's list first, as a fan-out worker does), each once.
   */
  take(): Promise<PollSource[]>;
  close(): Promise<void>;
}

/**
 * Opens the push receiver of `run --push-listen`: `PushReceiver` behind a bounded local HTTP server
 * (`startPushServer`), with the webhook secret from `ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET` (for every
 * connection), the run's state store for replay claims, and an in-memory FIFO queue in place of the
 * fan-out queue, so a burst of pushes for one source is one poll as in AWS.
 *
 * @throws UsageError when the secret is not set or the state store keeps no delivery claims.
 * @example
 * ```ts
 * const push = await openPushListener({ address: '127.0.0.1:8787', connections, env, store, atlas,
 *   discoveryCache, onQueued: () => stop.wakeUp(), logger });
 * const sources = await push.take();
 * ```
 */
export async function openPushListener(options: PushListenerOptions): Promise<PushListener> {
  const { host, port } = parseListenAddress(options.address);
  const secret = options.env[WEBHOOK_SECRET_ENV];
  if (secret === undefined || secret === '') {
    throw new UsageError(
      `--push-listen needs the webhook secret the Atlas Webhook integrations sign with: set ${WEBHOOK_SECRET_ENV}`,
    );
  }
  const store = options.store as StateStore & Partial<DeliveryClaimStore>;
  if (typeof store.claimDelivery !== 'function' || typeof store.releaseDelivery !== 'function') {
    throw new UsageError('--push-listen needs a state store that keeps delivery claims: file: or dynamodb:');
  }
  const claims = store as StateStore & DeliveryClaimStore;
  const clock = options.clock ?? systemClock;
  const queue = new InMemorySourceQueue({ clock });
  const outcomes: Partial<Record<PushOutcome, number>> = {};
  const receiver = new PushReceiver({
    connections: options.connections.map(({ name, sources }) => ({ name, sources })),
    secrets: new CachedWebhookSecrets({ clock, ttlMs: Number.POSITIVE_INFINITY, read: async () => secret }),
    claims,
    queue,
    clock,
    logger: options.logger,
  });
  let server: PushServer;
  try {
    server = await startPushServer({
      receiver,
      host,
      port,
      logger: options.logger,
      onResult: (result) => {
        outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
        if (result.outcome === 'accepted') options.onQueued();
      },
    });
  } catch (error) {
    throw new UsageError(
      `--push-listen ${options.address}: cannot listen there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      { cause: error },
    );
  }
  const byName = new Map(options.connections.map((connection) => [connection.name, connection]));
  return {
    url: server.url,
    get pending() {
      return queue.depth;
    },
    outcomes,
    async take() {
      const event = queue.receive(Number.MAX_SAFE_INTEGER);
      queue.complete(event, { batchItemFailures: [] });
      const configured = new ConfiguredSources({
        connections: options.connections,
        atlas: (name) => {
          const connection = byName.get(name);
          if (connection === undefined) throw new Error(`connection "${name}" is not configured`);
          return options.atlas(connection);
        },
        cache: options.discoveryCache,
        clock,
      });
      const sources: PollSource[] = [];
      for (const record of event.Records) {
        const message = parseSourceMessage(record.body);
        const standing = await configured.standing(message);
        if (standing.status === 'configured') sources.push(messageSource(message));
        else options.logger.warn('a pushed source is not polled by this run', { reason: standing.reason });
      }
      return sources;
    },
    close: () => server.close(),
  };
}
