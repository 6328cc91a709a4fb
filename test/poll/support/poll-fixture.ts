import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AtlasClient, type AtlasEvent } from '../../../shared/atlas/index.js';
import type { Logger } from '../../../shared/logger.js';
import {
  type AlertDestination,
  DiscoveryCache,
  NameCache,
  type PollerConfig,
  type PollerConfigInput,
  pollerConfigSchema,
  runTick,
  type TickOptions,
  type TickSummary,
} from '../../../shared/poll/index.js';
import type { TickDependencies } from '../../../shared/poll/tick-types.js';
import {
  createRuleEngine,
  loadRulePack,
  MemoryCounterStore,
  type RuleEngine,
  type RulePack,
} from '../../../shared/rules/index.js';
import {
  createStateTable,
  DynamoDbStateStore,
  FileStateStore,
  type StateStore,
} from '../../../shared/state/index.js';
import { type AtlasSimulator, type SeedData, startSimulator } from '../../../simulator/index.js';
import { RecordingNotifier } from './recording-notifier.js';
import { TestClock } from './test-clock.js';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Ids of the seed the tick tests run against. */
export const ids = {
  org: '6650a1b2c3d4e5f601000001',
  otherOrg: '6650a1b2c3d4e5f601000002',
  project: '6650a1b2c3d4e5f602000011',
  secondProject: '6650a1b2c3d4e5f602000012',
  foreignProject: '6650a1b2c3d4e5f602000021',
  pollerKey: '6650a1b2c3d4e5f603000001',
  readOnlyKey: '6650a1b2c3d4e5f603000002',
} as const;

/** Throwaway credentials of the poller's key in the test seed. */
export const pollerKey = { publicKey: 'pollerky', privateKey: 'fake-private-key-for-tests' } as const;

/**
 * The poller's Atlas client for a test server: {@link pollerKey}, the test clock, and retries without
 * random jitter.
 */
export function pollerAtlasClient(baseUrl: string, clock: TestClock): AtlasClient {
  return new AtlasClient({
    baseUrl,
    credentials: { kind: 'digest', ...pollerKey },
    clock: clock.instant(),
    random: () => 0.5,
  });
}

/** Two orgs; the poller's key owns the first only, so the second's sources answer 403. */
export function pollSeed(extraKeys: SeedData['apiKeys'] = []): SeedData {
  return {
    orgs: [
      { id: ids.org, name: 'Acme' },
      { id: ids.otherOrg, name: 'Elsewhere' },
    ],
    projects: [
      { id: ids.project, name: 'payments', orgId: ids.org },
      { id: ids.secondProject, name: 'analytics', orgId: ids.org },
      { id: ids.foreignProject, name: 'foreign', orgId: ids.otherOrg },
    ],
    apiKeys: [
      {
        id: ids.pollerKey,
        desc: 'audit poller',
        ...pollerKey,
        roles: [{ orgId: ids.org, roleName: 'ORG_OWNER' }],
        accessList: [{ cidrBlock: '127.0.0.1/32' }],
      },
      {
        id: ids.readOnlyKey,
        desc: 'dashboards',
        publicKey: 'dashbrds',
        privateKey: 'fake-private-key-dashboards',
        roles: [{ orgId: ids.org, roleName: 'ORG_READ_ONLY' }],
        accessList: [{ cidrBlock: '203.0.113.0/24' }],
      },
      ...extraKeys,
    ],
    users: [{ id: '6650a1b2c3d4e5f604000001', username: 'ana@example.com' }],
  };
}

let rulePack: Promise<RulePack> | undefined;

/** The default rule pack, loaded once per test file. */
export function defaultRulePack(): Promise<RulePack> {
  rulePack ??= loadRulePack({ paths: [fileURLToPath(new URL('../../../rules/', import.meta.url))] });
  return rulePack;
}

/** A state store for one test, and what closes it. */
export type StoreFactory = (clock: TestClock) => Promise<StateStore>;

/** A file store in a fresh temporary folder. */
export function fileStoreFactory(): StoreFactory {
  return async (clock) => {
    const dir = await mkdtemp(join(tmpdir(), 'poll-tick-'));
    const store = await FileStateStore.open({ path: join(dir, 'state.json'), clock });
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    };
    return store;
  };
}

/** A DynamoDB store on a fresh table of DynamoDB Local. */
export function dynamoDbStoreFactory(client: () => DynamoDBClient): StoreFactory {
  return async (clock) => {
    const tableName = `poll-${Math.random().toString(36).slice(2)}`;
    await createStateTable({ client: client(), tableName, timeToLive: false });
    return new DynamoDbStateStore({ client: client(), tableName, clock });
  };
}

/** Options of {@link startPollFixture}. */
export interface PollFixtureOptions {
  store: StoreFactory;
  seed?: SeedData;
  /** Over the fixture's defaults; a function is given the simulator's base URL (for connections). */
  config?: PollerConfigInput | ((baseUrl: string) => PollerConfigInput);
  /** The rules the tick evaluates. Default: the default rule pack. */
  pack?: RulePack;
  /** Where the tick logs. Default: silent. */
  logger?: Logger;
  /**
   * Atlas's clock minus the poller's, in milliseconds (default 0): the simulator's `Date` header and
   * the times it stamps run this far from the test clock.
   */
  atlasClockOffsetMs?: number;
  /** Destinations the tick delivers to beside the recording notifier, built on the fixture's clock. */
  destinations?: (clock: TestClock) => readonly AlertDestination[];
  /** The routes' digests and their destinations, over the fixture's store. */
  digests?: (
    clock: TestClock,
    store: StateStore,
  ) => { destinations: readonly AlertDestination[]; digests: NonNullable<TickDependencies['digests']> };
}

/** What the simulator logs after answering a request. */
export interface SimulatorRequest {
  method: string;
  path: string;
  status: number;
}

/** A simulator, a client, a store, the default rules and a recording notifier, on one test clock. */
export interface PollFixture {
  sim: AtlasSimulator;
  clock: TestClock;
  atlas: AtlasClient;
  store: StateStore;
  engine: RuleEngine;
  pack: RulePack;
  notifier: RecordingNotifier;
  config: PollerConfig;
  discoveryCache: DiscoveryCache;
  /** The container's names, kept across the fixture's ticks: `clear()` it for a cold start. */
  names: NameCache;
  /**
   * Called after the simulator answered each request, before the client reads the answer: tests set
   * it to change the simulator (or the clock) between two pages.
   */
  onRequest: ((request: SimulatorRequest) => void) | undefined;
  /** Runs one tick with the fixture's dependencies. */
  tick(options?: Partial<TickOptions>): Promise<TickSummary>;
  /** A new client on the simulator (a second worker). */
  newClient(): AtlasClient;
  /**
   * Replaces the simulator with one started from `seed` (the way to change API keys, which the
   * simulator serves as seeded), and the tick's client with one pointed at it. Events are not kept.
   */
  restartSimulator(seed: SeedData): Promise<void>;
  /** What a perfect run would alert on these events: fingerprints from a fresh engine, in memory. */
  expectedFingerprints(events: readonly AtlasEvent[]): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts everything one tick test needs. The Atlas client retries at once (its sleeps take no time);
 * the tick, the store and the simulator's event times share the test clock.
 */
export async function startPollFixture(options: PollFixtureOptions): Promise<PollFixture> {
  const clock = new TestClock();
  const hooks: { onRequest: PollFixture['onRequest'] } = { onRequest: undefined };
  const offsetMs = options.atlasClockOffsetMs ?? 0;
  const instant = clock.instant();
  const simulatorClock = { now: () => instant.now() + offsetMs, sleep: instant.sleep };
  const startSim = (seed: SeedData): Promise<AtlasSimulator> =>
    startSimulator({
      seed,
      clock: simulatorClock,
      logger: requestListener((request) => hooks.onRequest?.(request)),
    });
  let sim = await startSim(options.seed ?? pollSeed());
  const clients: AtlasClient[] = [];
  const newClient = (): AtlasClient => {
    const client = pollerAtlasClient(sim.baseUrl, clock);
    clients.push(client);
    return client;
  };
  let atlas = newClient();
  const store = await options.store(clock);
  const pack = options.pack ?? (await defaultRulePack());
  const engine = createRuleEngine({ pack, counters: store });
  const notifier = new RecordingNotifier();
  const digestSetup = options.digests?.(clock, store);
  const destinations =
    options.destinations === undefined && digestSetup === undefined
      ? undefined
      : [...(options.destinations?.(clock) ?? []), ...(digestSetup?.destinations ?? [])];
  const discoveryCache = new DiscoveryCache();
  const names = new NameCache();
  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: sim.baseUrl },
    sources: { orgIds: [ids.org], projectIds: [ids.project] },
    ...(typeof options.config === 'function' ? options.config(sim.baseUrl) : options.config),
  });
  return {
    get onRequest() {
      return hooks.onRequest;
    },
    set onRequest(listener) {
      hooks.onRequest = listener;
    },
    get sim() {
      return sim;
    },
    get atlas() {
      return atlas;
    },
    clock,
    store,
    engine,
    pack,
    notifier,
    config,
    discoveryCache,
    names,
    newClient,
    async restartSimulator(seed) {
      await sim.stop();
      sim = await startSim(seed);
      atlas = newClient();
    },
    tick: (tickOptions = {}) =>
      runTick(
        {
          atlas,
          store,
          engine,
          notifier,
          ...(destinations === undefined ? {} : { destinations }),
          ...(digestSetup === undefined ? {} : { digests: digestSetup.digests }),
          clock,
          discoveryCache,
          names,
          ...(options.logger ? { logger: options.logger } : {}),
        },
        { config, owner: 'worker-a', ...tickOptions },
      ),
    async expectedFingerprints(events) {
      const oracle = createRuleEngine({ pack, counters: new MemoryCounterStore() });
      const sorted = [...events].sort(
        (a, b) =>
          Date.parse(String(a.created)) - Date.parse(String(b.created)) ||
          String(a.id).localeCompare(String(b.id)),
      );
      return (await oracle.evaluate(sorted)).map((alert) => alert.fingerprint).sort();
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await store.close();
      await sim.stop();
    },
  };
}

/** A logger that passes each request line of the simulator to `listener`. */
function requestListener(listener: (request: SimulatorRequest) => void): Logger {
  const ignore = (): void => {};
  return {
    debug: (message, attributes) => {
      if (message !== 'simulator request' || attributes === undefined) return;
      listener({
        method: String(attributes.method),
        path: String(attributes.path),
        status: Number(attributes.status),
      });
    },
    info: ignore,
    warn: ignore,
    error: ignore,
  };
}

let eventCounter = 0;

/** A project event the default rules alert on (an access list opened to the internet). */
export function alertingEvent(
  created: number,
  extra: Partial<AtlasEvent> = {},
): AtlasEvent & { eventTypeName: string } {
  eventCounter += 1;
  return {
    eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
    created: new Date(created).toISOString().replace('.000Z', 'Z'),
    whitelistEntry: '0.0.0.0/0',
    username: `user${eventCounter}@example.com`,
    ...extra,
  };
}

/** A project event no default rule alerts on. */
export function quietEvent(created: number): AtlasEvent & { eventTypeName: string } {
  return {
    eventTypeName: 'HOST_UP',
    created: new Date(created).toISOString().replace('.000Z', 'Z'),
    hostname: 'cluster0-shard-00-00.x7kq2.mongodb.net',
  };
}
