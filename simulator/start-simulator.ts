import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AtlasEvent } from '../shared/atlas/types.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import {
  type GenerateAccessLogsOptions,
  type GeneratedAccessLogs,
  generateAccessLogs,
} from './access-log-generator.js';
import { AlertPusher, type SimulatorPushes } from './alert-pusher.js';
import { Authenticator } from './authenticator.js';
import type { DigestAlgorithm } from './digest-response.js';
import { SimulatorEventError, SimulatorOptionsError, SimulatorStartError } from './errors.js';
import { type GeneratedEvents, type GenerateEventsOptions, generateEvents } from './event-generator.js';
import type { StoredEvent } from './event-log.js';
import { FaultInjector } from './fault-injector.js';
import type { FaultPlan } from './fault-plan.js';
import { NonceRegistry } from './nonce-registry.js';
import { OAuthTokenStore } from './oauth-tokens.js';
import { createObjectIdGenerator } from './object-id.js';
import { RequestCounters, type SimulatorCounters } from './request-counters.js';
import { createRequestHandler, SIMULATOR_RATE_LIMIT } from './request-handler.js';
import { resolveSeed } from './seed-loader.js';
import {
  clusterSchema,
  type SeedAccessListEntry,
  type SeedClusterInput,
  type SeedData,
  type SeedProjectAccessListEntry,
  type SeedRole,
} from './seed-schema.js';
import {
  type EventScope,
  keepsAccessHistory,
  type NewAccessLog,
  type NewEvent,
  SimulatorData,
} from './simulator-data.js';

/** How to start the simulator. Every option has a default suited to tests. */
export interface SimulatorOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Seed data inline, or the path of a seed JSON file. Default: `simulator/default-seed.json`. */
  seed?: SeedData | string;
  /** The clock for nonce and token expiry, event times and fault latency. Default: the system clock. */
  clock?: Clock;
  /** How long a digest nonce stays valid, in milliseconds. Default 300,000 (5 minutes). */
  nonceTtlMs?: number;
  /** How long an OAuth access token lives, in seconds. Default 3,600. */
  tokenTtlSeconds?: number;
  /** Faults to inject from the start (see `setFaults`). Default: none. */
  faults?: FaultPlan;
  /**
   * An extra API key (with Organization Owner on every organization), or a new private key for the
   * seeded key with this public key. Give both or neither. It becomes `credentials`.
   */
  publicKey?: string;
  privateKey?: string;
  /** Algorithms offered in 401 challenges, one `WWW-Authenticate` header each. Default `['MD5']`. */
  challengeAlgorithms?: readonly DigestAlgorithm[];
  /** Refuse (403 `IP_ADDRESS_NOT_ON_ACCESS_LIST`) callers outside the key's access list. Default false. */
  enforceAccessList?: boolean;
  /**
   * Serve API requests that carry no `Authorization` header as if `credentials` had signed them: no
   * challenge, no digest. Only for measuring the HTTP ceiling of a client (the digest benchmark);
   * requests that carry credentials are still checked as usual. A digest client cannot fetch a
   * challenge meanwhile (its bare first request is served), so turn it on only around such a
   * measurement (see `setUnauthenticatedAccess`). Default false: every API request must authenticate.
   */
  unauthenticatedAccess?: boolean;
  /**
   * Requests per principal and minute that `RateLimit-Limit` announces (and `RateLimit-Remaining`
   * counts down from); the simulator only announces it, 429s come from the fault plan. Default 100.
   */
  rateLimitPerMinute?: number;
  /** v2 versions (`YYYY-MM-DD`) answered 410 `VERSION_GONE`. Default: none. */
  retiredApiVersions?: readonly string[];
  /** Receives one debug line per request and errors. Default: silent. */
  logger?: Logger;
  /**
   * Post alerts by itself, as Atlas does: for each event `addEvent` / `addEvents` add to a project
   * whose type an enabled alert configuration of that project matches, one alert per `WEBHOOK`
   * notification, signed with the notification's `webhookSecret` (or the project Webhook
   * integration's secret) and posted to its `webhookUrl` (or the integration's URL) after `delayMs`
   * (default 0). Only the configured URLs are posted to; seeded and generated events are not.
   * `true` is `{}`. Default false: the simulator posts nothing. See `pushes`.
   */
  pushAlerts?: boolean | { delayMs?: number };
}

/** A service account as tests put it into a running simulator (throwaway values only). */
export interface SimulatorServiceAccount {
  clientId: string;
  clientSecret: string;
  name: string;
  description?: string;
  roles: readonly SeedRole[];
  accessList: readonly SeedAccessListEntry[];
}

/** A cluster of the simulator's data, as tests and benchmarks see it. */
export interface SimulatorCluster {
  readonly groupId: string;
  readonly name: string;
  /** Its three member hosts: what `hostname` of its access history names. */
  readonly hosts: readonly string[];
  /** Whether it keeps database access history: dedicated tiers do, shared tiers and Flex do not. */
  readonly accessHistory: boolean;
}

/** One line of access history as the API serves it (`MongoDBAccessLogs`). */
export interface SimulatorAccessLog {
  readonly authResult: boolean;
  readonly authSource: string;
  readonly failureReason: string | null;
  readonly groupId: string;
  readonly hostname: string;
  readonly ipAddress: string;
  readonly logLine: string;
  readonly timestamp: string;
  readonly username: string;
}

/** A running simulator. */
export interface AtlasSimulator {
  /** `http://127.0.0.1:PORT`: the host part of every API base URL. */
  readonly baseUrl: string;
  /** The API key clients should use (throwaway test values). */
  readonly credentials: { readonly publicKey: string; readonly privateKey: string };
  /** The first service account of the seed, if it has one (throwaway test values). */
  readonly serviceAccount: { readonly clientId: string; readonly clientSecret: string } | undefined;
  readonly orgIds: readonly string[];
  /** Every project, including those `generateEvents` created. */
  readonly projectIds: readonly string[];
  /** The organizations with their names. */
  readonly orgs: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  /** The projects with their names and organizations, including generated ones. */
  readonly projects: ReadonlyArray<{ readonly id: string; readonly name: string; readonly orgId: string }>;
  /** When the simulator started, on its clock: seeded `secondsAgo` times count back from it. */
  readonly startedAt: number;
  /** A snapshot of the request counters. */
  readonly counters: SimulatorCounters;
  /**
   * The alerts the simulator posted by itself (`pushAlerts`): counts of sent, failed, cancelled and
   * pending posts, and `settled()` to wait for the pending ones.
   */
  readonly pushes: SimulatorPushes;
  /**
   * Adds one event to a project or an organization and returns it as the API serves it (v2 `self`
   * link). `created` may be in the past (a late event) and may equal other events' (ties are listed
   * by id, greater first). Throws `SimulatorEventError` for an unknown scope, bad date or duplicate id.
   */
  addEvent(scope: EventScope, event: NewEvent): AtlasEvent;
  /** Adds several events to one scope at once, all or none. */
  addEvents(scope: EventScope, events: readonly NewEvent[]): AtlasEvent[];
  /**
   * Adds a service account or replaces the one with the same client id (roles, access list, name):
   * an inventory change as an administrator would make it. Roles are `{ orgId, roleName }`.
   */
  putServiceAccount(account: SimulatorServiceAccount): void;
  /** Deletes a service account; returns whether it existed. */
  removeServiceAccount(clientId: string): boolean;
  /** Replaces a project's IP access list. Throws `SimulatorEventError` for an unknown project. */
  setProjectAccessList(groupId: string, entries: readonly SeedProjectAccessListEntry[]): void;
  /** Every cluster of every project, in project order and then in the order they were added. */
  readonly clusters: readonly SimulatorCluster[];
  /**
   * Adds a cluster to a project, as the seed writes one (`name`, `providerSettings`, optionally
   * `clusterType`, `connectionStrings.standardSrv` and `accessLogs`). Throws `SimulatorEventError` for
   * an unknown project, a name it already has, or a cluster the seed schema refuses.
   */
  addCluster(groupId: string, cluster: SeedClusterInput): SimulatorCluster;
  /**
   * Adds authentication attempts to a dedicated cluster's access history, all or none, and returns
   * them as the API serves them. A `timestamp` in the past makes a line that appears late: a reader
   * that already read that range sees it only by reading it again. Throws `SimulatorEventError` for
   * an unknown project or cluster, a shared-tier or Flex cluster, or a line that is not valid.
   */
  addAccessLogs(groupId: string, clusterName: string, lines: readonly NewAccessLog[]): SimulatorAccessLog[];
  /** Adds many routine authentication attempts to one cluster quickly and reproducibly (benchmarks). */
  generateAccessLogs(options: GenerateAccessLogsOptions): GeneratedAccessLogs;
  /** Adds many generated project events quickly and reproducibly (benchmarks). */
  generateEvents(options: GenerateEventsOptions): GeneratedEvents;
  /** Replaces the fault plan (its schedule and PRNG start over); no argument removes all faults. */
  setFaults(plan?: FaultPlan): void;
  /** Turns `unauthenticatedAccess` on or off from the next request. */
  setUnauthenticatedAccess(enabled: boolean): void;
  /** Expires every digest nonce: the next digest request is answered 401 `stale=true`. */
  expireNonces(): void;
  /** Revokes every OAuth token: the next bearer request is answered 401. */
  revokeTokens(): void;
  resetCounters(): void;
  /** Cancels pending alert posts, closes the server and every open connection. Safe to call twice. */
  stop(): Promise<void>;
}

function randomPublicKey(): string {
  return [...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

/**
 * Starts the Atlas simulator: a node:http server speaking the Atlas Admin API (v2, v1.0) and the
 * Ops Manager public API v1.0 for events, API keys, access lists and projects, with digest and OAuth
 * authentication, roles, pagination, fault injection and counters.
 *
 * @throws {SeedValidationError} when the seed is unreadable or invalid.
 * @throws {SimulatorOptionsError} for inconsistent options (one of publicKey/privateKey, a bad fault plan).
 * @throws {SimulatorStartError} when the server cannot listen.
 * @example
 * ```ts
 * const sim = await startSimulator();
 * // curl --digest -u "$PUB:$PRIV" -H 'Accept: application/vnd.atlas.2023-01-01+json' \
 * //   "${sim.baseUrl}/api/atlas/v2/groups/${sim.projectIds[0]}/events"
 * await sim.stop();
 * ```
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<AtlasSimulator> {
  if ((options.publicKey === undefined) !== (options.privateKey === undefined)) {
    throw new SimulatorOptionsError('Give both publicKey and privateKey, or neither.');
  }
  const nonceTtlMs = options.nonceTtlMs ?? 300_000;
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3_600;
  if (!(nonceTtlMs > 0) || !(tokenTtlSeconds > 0)) {
    throw new SimulatorOptionsError(
      `nonceTtlMs and tokenTtlSeconds must be positive (got ${nonceTtlMs}, ${tokenTtlSeconds}).`,
    );
  }
  const rateLimitPerMinute = options.rateLimitPerMinute ?? SIMULATOR_RATE_LIMIT;
  if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1) {
    throw new SimulatorOptionsError(
      `rateLimitPerMinute must be a positive whole number of requests (got ${rateLimitPerMinute}).`,
    );
  }
  const pushOptions = options.pushAlerts === true ? {} : options.pushAlerts || undefined;
  const pushDelayMs = pushOptions?.delayMs ?? 0;
  if (!Number.isFinite(pushDelayMs) || pushDelayMs < 0) {
    throw new SimulatorOptionsError('pushAlerts.delayMs must be a number of milliseconds, 0 or more.');
  }
  const challengeAlgorithms = options.challengeAlgorithms ?? ['MD5'];
  if (challengeAlgorithms.length === 0) {
    throw new SimulatorOptionsError('challengeAlgorithms needs at least one algorithm, such as MD5.');
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  let faults = new FaultInjector(options.faults);
  let unauthenticatedAccess = options.unauthenticatedAccess ?? false;
  const seed = await resolveSeed(options.seed);
  const startedAt = clock.now();
  const data = new SimulatorData({ seed, startedAt, ids: createObjectIdGenerator({ seed: 0x41746c61 }) });

  let credential = data.apiKeys[0];
  if (options.publicKey !== undefined && options.privateKey !== undefined) {
    credential = data.addApiKey({
      id: data.nextId(startedAt),
      desc: 'Simulator credential',
      publicKey: options.publicKey,
      privateKey: options.privateKey,
      roles: [...data.orgs.keys()].map((orgId) => ({ orgId, roleName: 'ORG_OWNER' })),
    });
  }
  credential ??= data.addApiKey({
    id: data.nextId(startedAt),
    desc: 'Simulator credential',
    publicKey: randomPublicKey(),
    privateKey: randomUUID(),
    roles: [...data.orgs.keys()].map((orgId) => ({ orgId, roleName: 'ORG_OWNER' })),
  });
  const account = data.serviceAccounts.values().next().value;

  const nonces = new NonceRegistry({ clock, ttlMs: nonceTtlMs });
  const tokens = new OAuthTokenStore({ clock, ttlSeconds: tokenTtlSeconds });
  const counters = new RequestCounters();
  const host = options.host ?? '127.0.0.1';
  let hostPort = host;
  const server = createServer(
    createRequestHandler({
      data,
      authenticator: new Authenticator({ data, nonces, tokens }),
      nonces,
      tokens,
      counters,
      faults: () => faults,
      clock,
      logger,
      challengeAlgorithms,
      enforceAccessList: options.enforceAccessList ?? false,
      unauthenticatedPrincipal: () => (unauthenticatedAccess ? credential : undefined),
      retiredApiVersions: new Set(options.retiredApiVersions ?? []),
      fallbackHost: () => hostPort,
      rateLimitPerMinute,
    }),
  );
  // Longer than common client keep-alive timeouts (undici: 4 s), so the client closes idle sockets first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(
        new SimulatorStartError(
          `The simulator cannot listen on ${host}:${options.port ?? 0}: ${error.message}. Choose another port (0 picks a free one).`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const baseUrl = `http://${hostPort}`;

  const toApiEvent = (event: StoredEvent, scope: EventScope): AtlasEvent => {
    const path = 'groupId' in scope ? `/groups/${scope.groupId}/events` : `/orgs/${scope.orgId}/events`;
    return {
      ...structuredClone(event.body),
      ...(event.raw === undefined ? {} : { raw: structuredClone(event.raw) }),
      links: [{ href: `${baseUrl}/api/atlas/v2${path}/${encodeURIComponent(event.id)}`, rel: 'self' }],
    };
  };

  const pusher = new AlertPusher({ enabled: pushOptions !== undefined, delayMs: pushDelayMs });
  const pushFor = (scope: EventScope, events: readonly AtlasEvent[]): void => {
    const project = 'groupId' in scope ? data.projects.get(scope.groupId) : undefined;
    if (project === undefined) return;
    pusher.eventsAdded(
      project,
      events.map((event) => ({ eventTypeName: event.eventTypeName ?? '', created: event.created ?? '' })),
    );
  };

  let stopping: Promise<void> | undefined;
  logger.info('Atlas simulator started', { baseUrl, orgs: data.orgs.size, projects: data.projects.size });

  return {
    baseUrl,
    credentials: { publicKey: credential.name, privateKey: credential.secret },
    serviceAccount:
      account === undefined ? undefined : { clientId: account.name, clientSecret: account.secret },
    orgIds: [...data.orgs.keys()],
    get projectIds(): readonly string[] {
      return [...data.projects.keys()];
    },
    orgs: [...data.orgs.values()].map((org) => ({ id: org.id, name: org.name })),
    get projects(): ReadonlyArray<{ id: string; name: string; orgId: string }> {
      return [...data.projects.values()].map((project) => ({
        id: project.id,
        name: project.name,
        orgId: project.orgId,
      }));
    },
    startedAt,
    get counters(): SimulatorCounters {
      return counters.snapshot();
    },
    pushes: pusher,
    addEvent(scope, event) {
      const [stored] = data.addEvents(scope, [event], { copy: true });
      const added = toApiEvent(stored as StoredEvent, scope);
      pushFor(scope, [added]);
      return added;
    },
    addEvents(scope, events) {
      const added = data.addEvents(scope, events, { copy: true }).map((stored) => toApiEvent(stored, scope));
      pushFor(scope, added);
      return added;
    },
    generateEvents(generateOptions) {
      return generateEvents(data, generateOptions, clock.now());
    },
    get clusters(): readonly SimulatorCluster[] {
      return [...data.projects.values()].flatMap((project) =>
        [...project.clusters.values()].map((cluster) => ({
          groupId: project.id,
          name: cluster.name,
          hosts: cluster.hosts,
          accessHistory: keepsAccessHistory(cluster),
        })),
      );
    },
    addCluster(groupId, cluster) {
      const parsed = clusterSchema.safeParse(cluster);
      if (!parsed.success) {
        const issues = parsed.error.issues.map(
          (issue) => `${issue.path.join('.') || '(cluster)'}: ${issue.message}`,
        );
        throw new SimulatorEventError(`The cluster for project ${groupId} is invalid: ${issues.join('; ')}.`);
      }
      const { accessLogs, ...fields } = parsed.data;
      const record = data.addCluster(groupId, fields);
      data.addAccessLogs(
        groupId,
        record.name,
        accessLogs.map(({ secondsAgo, timestamp, ...line }) => ({
          ...line,
          timestamp: timestamp ?? Math.round(clock.now() - (secondsAgo ?? 0) * 1000),
        })),
        clock.now(),
      );
      return { groupId, name: record.name, hosts: record.hosts, accessHistory: keepsAccessHistory(record) };
    },
    addAccessLogs(groupId, clusterName, lines) {
      return data
        .addAccessLogs(groupId, clusterName, lines, clock.now())
        .map((line) => JSON.parse(line.json.toString('utf8')) as SimulatorAccessLog);
    },
    generateAccessLogs(generateOptions) {
      return generateAccessLogs(data, generateOptions, clock.now());
    },
    setFaults(plan) {
      faults = new FaultInjector(plan);
    },
    setUnauthenticatedAccess(enabled) {
      unauthenticatedAccess = enabled;
    },
    putServiceAccount(account) {
      data.putServiceAccount(account);
    },
    removeServiceAccount(clientId) {
      return data.serviceAccounts.delete(clientId);
    },
    setProjectAccessList(groupId, entries) {
      const project = data.projects.get(groupId);
      if (project === undefined) {
        throw new SimulatorEventError(`No project ${groupId} in the simulator: use one of its projectIds.`);
      }
      project.accessList = entries.map((entry) => ({ ...entry }));
    },
    expireNonces() {
      nonces.expireAll();
    },
    revokeTokens() {
      tokens.revokeAll();
    },
    resetCounters() {
      counters.reset();
    },
    stop() {
      stopping ??= Promise.all([
        pusher.stop(),
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
          server.closeAllConnections();
        }),
      ]).then(() => undefined);
      return stopping;
    },
  };
}
