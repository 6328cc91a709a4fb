import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BatchGetItemCommand, DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AtlasClient, type AtlasEvent, MAX_ACCESS_LOG_LINES } from '../../../shared/atlas/index.js';
import type { Logger } from '../../../shared/logger.js';
import { OutboxNotifier, validateSnsEntry } from '../../../shared/notify/index.js';
import {
  DiscoveryCache,
  type PollerConfig,
  pollerConfigSchema,
  runTick,
  type TickSummary,
} from '../../../shared/poll/index.js';
import { DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS } from '../../../shared/poll/poll-settings.js';
import {
  buildAccessHistoryEvent,
  createRuleEngine,
  MemoryCounterStore,
  type RulePack,
} from '../../../shared/rules/index.js';
import {
  createStateTable,
  DynamoDbStateStore,
  FileStateStore,
  type StateStore,
  stateTableSchema,
} from '../../../shared/state/index.js';
import {
  type AtlasSimulator,
  FAULT_KINDS,
  type FaultKind,
  type FaultPlan,
  type NewAccessLog,
  type NewEvent,
  type SimulatorAccessLog,
  startSimulator,
} from '../../../simulator/index.js';
import { createPrng } from '../../../simulator/prng.js';
import { ids, pollerKey, pollSeed } from '../../poll/support/poll-fixture.js';
import { TestClock } from '../../poll/support/test-clock.js';
import {
  CHAOS_CLUSTERS,
  ChaosAccessLogFactory,
  type ChaosCluster,
  chaosSeedWithClusters,
  clusterSourceName,
} from './chaos-access-history.js';
import { ChaosEventFactory, type ChaosScope } from './chaos-events.js';
import { FaultyNotifier } from './faulty-notifier.js';
import { ObservedAtlasClient } from './observed-atlas-client.js';
import { ObservedStore } from './observed-store.js';
import { timePassingClock } from './time-passing-clock.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const START = Date.UTC(2025, 5, 2, 12, 0, 0);
const OVERLAP_SECONDS = 600;
const LAG_SECONDS = 30;
const LOOKBACK_SECONDS = 3_600;
const MARGIN_SECONDS = 20;
/** Longer than an alert claim (5 minutes) and a lease taken without a deadline (15 minutes). */
const SETTLE_PAUSE_MS = 16 * MINUTE;
const SETTLE_TICKS = 2;

/** The faults of a chaos run that are not the simulator's own. */
export const RUN_FAULT_KINDS = [
  /** Whole seconds holding several events, listed in another order than they sort in. */
  'sameSecondTie',
  /** An event that shows up after the tick that read its second, inside the overlap. */
  'lateEvent',
  /** An event added while a source's events are read (between two pages when the window has several). */
  'addedDuringRead',
  /** Every digest nonce expired between two ticks. */
  'nonceExpiry',
  /** An alert the notifier failed (retryable). */
  'publishFailure',
  /** A publish call the notifier failed whole. */
  'publishOutage',
  /** Time jumped close to the tick's deadline in the middle of a read. */
  'deadlineCut',
  /** DynamoDB Local stopped during a tick and started again after it. */
  'dynamoRestart',
  /** A line of a cluster's access history that shows up after the tick that read its time, inside the overlap. */
  'lateLine',
  /**
   * A line that shows up older than the overlap but within the settle time, in a cluster whose
   * history had listed nothing: an empty answer meant "not yet".
   */
  'settleLateLine',
  /** Lines of one host at one millisecond. */
  'sameInstantLines',
  /** A line added to a cluster's history while it is read. */
  'lineAddedDuringRead',
  /** An access-history answer that held as many lines as asked for: the window is read shorter. */
  'fullAnswer',
  /** An access-history read answered 429 or 5xx. */
  'accessHistoryError',
  /** A listing of a project's clusters answered 429 or 5xx. */
  'clusterListingError',
  /** A fault tick whose simulator faults hit only access-history reads and cluster listings. */
  'accessHistoryOnlyFaults',
  /** Time jumped close to the tick's deadline right after an access-history answer. */
  'accessHistoryDeadlineCut',
] as const;

export type ChaosFaultKind = FaultKind | (typeof RUN_FAULT_KINDS)[number];

/** Every fault kind a chaos run counts, the simulator's first. */
export const CHAOS_FAULT_KINDS: readonly ChaosFaultKind[] = [...FAULT_KINDS, ...RUN_FAULT_KINDS];

/** What the chaos runs of one process share. */
export interface ChaosEnvironment {
  /** A client of the run's own DynamoDB Local. */
  dynamo: DynamoDBClient;
  /** Stops that DynamoDB Local (its data stays on disk). */
  stopDynamo(): Promise<void>;
  /** Starts it again, with its data, on the same port. */
  restartDynamo(): Promise<void>;
  /** The default rule pack, with the suite's layer for access history. */
  pack: RulePack;
  /** Where the outbox files go. */
  workDir: string;
}

/** The state store implementations a seed runs on: the Lambda's, and the command line's. */
export type ChaosStoreKind = 'dynamodb' | 'file';

/** Options of {@link runChaosSeed}. */
export interface ChaosSeedOptions {
  seed: number;
  /**
   * Stop DynamoDB Local in the middle of one fault tick, and start it again after that tick. The seed
   * then runs on the DynamoDB store.
   */
  restartDynamo?: boolean;
  /** Default: DynamoDB for one seed in three (1, 4, 7...), the file store for the others. */
  store?: ChaosStoreKind;
  /**
   * Sources polled at once. Default 1: the seed then sends the same requests in the same order every
   * time, so it replays exactly. More tries interleavings too, but which ones depends on timing.
   */
  concurrency?: number;
  /**
   * Makes the notifier report a share of the alerts as sent without delivering them: a broken
   * notifier, to show that the checks catch one. Default 0.
   */
  notifierLieRate?: number;
  /**
   * Also read the access history of the dedicated clusters of the polled projects, and write lines
   * to it. Default: drawn from the seed, three seeds in four; the others run the events alone,
   * exactly as they did before access history existed.
   */
  accessHistory?: boolean;
  /**
   * The settle time of empty access-history answers the poller runs with, in place of the one the
   * run's late lines are written for: a poller that gives up on empty stretches too early, to show
   * that the checks catch one. Default: the same.
   */
  pollerSettleSeconds?: number;
}

/** Whether a seed reads access history (see {@link ChaosSeedOptions.accessHistory}). */
export function accessHistoryOf(options: ChaosSeedOptions): boolean {
  return options.accessHistory ?? accessHistoryPrng(options.seed)() < 0.75;
}

/** The PRNG of a seed's access-history draws, apart from its events' so these stay as they were. */
function accessHistoryPrng(seed: number): () => number {
  return createPrng(seed * 104_729 + 11);
}

/** The store a seed runs on. */
export function storeKindOf(options: ChaosSeedOptions): ChaosStoreKind {
  if (options.restartDynamo) return 'dynamodb';
  return options.store ?? (options.seed % 3 === 1 ? 'dynamodb' : 'file');
}

/** What one seed did and found. */
export interface ChaosSeedReport {
  seed: number;
  store: ChaosStoreKind;
  /** Whether the seed read clusters' access history. */
  accessHistory: boolean;
  ticks: number;
  faults: Record<ChaosFaultKind, number>;
  /** Alerts a perfect run raises on every event the simulator holds for the polled sources. */
  alertsExpected: number;
  /** Of those, the alerts on lines of clusters' access history. */
  accessHistoryAlertsExpected: number;
  /**
   * Alerts on events created before their source's first walk starts (the initial lookback before
   * the first tick that named the source: a cluster first listed late, after its listing failed).
   * Not owed, so not expected; not wrong either when delivered, since a first walk pinned before
   * its turn reads one overlap more.
   */
  alertsNotOwed: number;
  /** Deliveries, repeats included. */
  alertsPublished: number;
  /** Deliveries beyond the first of an alert. */
  duplicates: number;
  /** Of `duplicates`, those of alerts whose `markAlertSent` failed after the publish: the documented window. */
  duplicatesInMarkWindow: number;
  /** Expected alerts never delivered (fingerprints). */
  lost: string[];
  /** Delivered alerts no event explains (fingerprints). */
  unexpected: string[];
  /** Each time a watermark moved past an alert not yet delivered, or moved back. */
  watermarkViolations: string[];
  unhandledRejections: string[];
  /** Ticks that threw instead of reporting their failures in the summary. */
  tickErrors: string[];
  /** Sources not `ok` after the faults stopped and the clean ticks ran. */
  unsettled: string[];
  /** Outbox entries the SNS entry validator refuses. */
  invalidEntries: string[];
  /** Events added that the simulator does not list at the end, or the reverse. */
  modelMismatches: string[];
  /** Shared-tier or Flex clusters a tick polled or read: they keep no access history. */
  leftOutPolled: string[];
}

/**
 * What is wrong in a seed's report, one line each: empty when the seed passed. A duplicate is wrong
 * unless it is one of the documented window (the publish succeeded, recording it failed).
 */
export function seedProblems(report: ChaosSeedReport): string[] {
  const problems: string[] = [];
  const list = (label: string, items: readonly string[]): void => {
    if (items.length > 0) problems.push(`${label} (${items.length}): ${items.slice(0, 5).join('; ')}`);
  };
  list('lost alerts', report.lost);
  list('unexpected alerts', report.unexpected);
  const unexplained = report.duplicates - report.duplicatesInMarkWindow;
  if (unexplained > 0)
    problems.push(`${unexplained} alert(s) sent twice outside the publish/mark-sent window`);
  list('watermark violations', report.watermarkViolations);
  list('unhandled rejections', report.unhandledRejections);
  list('ticks that threw', report.tickErrors);
  list('sources not settled', report.unsettled);
  list('invalid SNS entries', report.invalidEntries);
  list('simulator and model disagree', report.modelMismatches);
  list('clusters without access history polled', report.leftOutPolled);
  return problems;
}

/** One event the run added, as the checks need it. */
interface ModelEvent {
  id: string;
  source: string;
  created: number;
  /** The first tick that began after it was added: the first that must find it. */
  visibleFromTick: number;
  fingerprints: string[];
}

let tableCounter = 0;

/**
 * Runs one seed of the chaos suite: a simulator, a DynamoDB store on a fresh table of the run's
 * DynamoDB Local, the default rules and the outbox notifier, all on one test clock; then a few ticks
 * of real `runTick` under faults drawn from the seed, then clean ticks until things settle; then
 * every check. Never throws for what it finds: the report says it.
 *
 * The faults: the simulator's (429 with and without `Retry-After`, 500, 502, 503, 504, connection
 * resets, truncated bodies, latency spikes that make time pass, expired nonces), events that show up
 * late inside the overlap, same-second ties, events added while a source is read (a first-tick backlog
 * of several pages makes that happen between pages), a notifier that fails some alerts and some
 * whole calls, ticks whose time runs out in the middle of a read, and (with `restartDynamo`)
 * DynamoDB Local stopped during a tick and started again after it.
 *
 * With access history (three seeds in four), the polled projects hold dedicated clusters, a
 * shared-tier and a Flex one, and the ticks read each dedicated cluster as a source of its own,
 * under the same faults (and, on some ticks, faults on access-history reads and cluster listings
 * alone), with lines added as events are: recent ones, a first-tick backlog that overflows one
 * answer when the window's room is small, lines that show up late inside the overlap, lines that show
 * up past the overlap but within the settle time in a cluster whose history listed nothing so far,
 * lines of one host at one millisecond, and lines added while a cluster is read.
 *
 * The checks: every expected alert (the rule pack run over every event and line the simulator lists
 * at the end, from where its source's first walk starts, by a fresh engine) was delivered; nothing else was; nothing twice; after every cursor
 * commit and every tick no watermark is past an alert not yet delivered, nor moved back; no unhandled
 * rejection; no tick threw; every source ends `ok`, each dedicated cluster among them; no shared-tier
 * or Flex cluster is ever polled or read; every entry written passes the SNS validator.
 *
 * The same seed draws the same faults and events: sources are polled one at a time (unless
 * `concurrency` says otherwise), and the database stops at the same store call. One exception: a
 * request the poller abandons while the simulator still holds it (a window read ahead whose window
 * before did not settle, a call the deadline aborted) may reach the simulator before or after the
 * next one, and draw the other's fault; about one seed in two hundred with access history takes
 * another path now and then. The checks are the same on every path.
 */
export async function runChaosSeed(
  env: ChaosEnvironment,
  options: ChaosSeedOptions,
): Promise<ChaosSeedReport> {
  const run = new ChaosRun(env, options);
  try {
    return await run.execute();
  } finally {
    await run.close();
  }
}

class ChaosRun {
  readonly #env: ChaosEnvironment;
  readonly #seed: number;
  readonly #restartDynamo: boolean;
  readonly #concurrency: number;
  readonly #notifierLieRate: number;
  readonly #random: () => number;
  /** Draws for access history alone, so that a seed without it draws its events as before. */
  readonly #accessRandom: () => number;
  readonly #accessHistory: boolean;
  readonly #pollerSettleSeconds: number | undefined;
  /** The settle time the late lines are written for; the poller's unless `pollerSettleSeconds`. */
  #settleSeconds = DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS;
  readonly #lines: ChaosAccessLogFactory;
  /** The dedicated clusters of the polled projects, by source name. */
  readonly #clusters = new Map<string, ChaosCluster>();
  /** Clusters that get no lines but late ones past the overlap, while their history is empty. */
  readonly #quietClusters = new Set<string>();
  /** Clusters whose history holds a line. */
  readonly #clustersWithLines = new Set<string>();
  /** When the first tick that named each source (polled it, or meant to) began. */
  readonly #firstNamed = new Map<string, number>();
  /** When the tick that runs, or ran last, began. */
  #tickStartedAt = START;
  readonly #clock = new TestClock(START);
  readonly #events: ChaosEventFactory;
  readonly #model = new Map<string, ModelEvent>();
  /** Each source's watermark as last seen, and the tick that moved it there. */
  readonly #watermarks = new Map<string, { watermark: number; tick: number }>();
  readonly #oracle: ReturnType<typeof createRuleEngine>;
  readonly #storeKind: ChaosStoreKind;
  /** The DynamoDB table, or the state file. */
  readonly #tableName: string;
  readonly #statePath: string;
  readonly #outboxPath: string;
  readonly #report: ChaosSeedReport;
  #sim: AtlasSimulator | undefined;
  #atlas: ObservedAtlasClient | undefined;
  #store: ObservedStore | undefined;
  #tableCreated = false;
  #notifier: FaultyNotifier | undefined;
  /** Settles once the oracle has evaluated every event added so far. */
  #evaluated: Promise<void> = Promise.resolve();
  #tick = 0;
  /** The request hook of the tick that is running. */
  #onRequest: ((path: string, status: number) => void) | undefined;

  constructor(env: ChaosEnvironment, options: ChaosSeedOptions) {
    this.#env = env;
    this.#seed = options.seed;
    this.#restartDynamo = options.restartDynamo ?? false;
    this.#concurrency = options.concurrency ?? 1;
    this.#notifierLieRate = options.notifierLieRate ?? 0;
    this.#random = createPrng(options.seed * 7_919 + 1);
    this.#events = new ChaosEventFactory(options.seed, this.#random);
    this.#accessHistory = accessHistoryOf(options);
    this.#accessRandom = accessHistoryPrng(options.seed);
    // The first draw of the stream is the one accessHistoryOf made.
    this.#accessRandom();
    this.#lines = new ChaosAccessLogFactory(options.seed, this.#accessRandom);
    this.#pollerSettleSeconds = options.pollerSettleSeconds;
    this.#oracle = createRuleEngine({ pack: env.pack, counters: new MemoryCounterStore() });
    tableCounter += 1;
    this.#tableName = `chaos-${process.pid}-${tableCounter}-seed-${options.seed}`;
    this.#statePath = join(env.workDir, `state-${process.pid}-${tableCounter}.json`);
    this.#outboxPath = join(env.workDir, `outbox-${process.pid}-${tableCounter}.jsonl`);
    this.#storeKind = storeKindOf(options);
    this.#report = {
      seed: options.seed,
      store: this.#storeKind,
      accessHistory: this.#accessHistory,
      ticks: 0,
      faults: Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 0])) as Record<
        ChaosFaultKind,
        number
      >,
      alertsExpected: 0,
      accessHistoryAlertsExpected: 0,
      alertsNotOwed: 0,
      alertsPublished: 0,
      duplicates: 0,
      duplicatesInMarkWindow: 0,
      lost: [],
      unexpected: [],
      watermarkViolations: [],
      unhandledRejections: [],
      tickErrors: [],
      unsettled: [],
      invalidEntries: [],
      modelMismatches: [],
      leftOutPolled: [],
    };
  }

  async execute(): Promise<ChaosSeedReport> {
    const report = this.#report;
    const onUnhandled = (reason: unknown): void => {
      report.unhandledRejections.push(describe(reason));
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      await this.#runTicks();
      // Give a rejection nobody awaited the turn of the event loop it needs to be reported.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    return report;
  }

  async close(): Promise<void> {
    await this.#atlas?.close();
    await this.#sim?.stop();
    await this.#store?.close().catch(() => {});
    await rm(this.#outboxPath, { force: true });
    await rm(this.#statePath, { force: true });
    if (this.#tableCreated) {
      await this.#env.dynamo.send(new DeleteTableCommand({ TableName: this.#tableName })).catch(() => {});
    }
  }

  async #runTicks(): Promise<void> {
    const random = this.#random;
    const clock = this.#clock;
    const time = timePassingClock(clock);
    const sim = await startSimulator({
      // Clusters only where they are read: their ids would shift the ids of the events otherwise.
      seed: this.#accessHistory ? chaosSeedWithClusters() : pollSeed(),
      clock: time,
      logger: this.#requestLogger(),
    });
    this.#sim = sim;
    const store = new ObservedStore(await this.#openStore());
    this.#store = store;
    store.onCommit = (source, watermark) => this.#checkWatermark(source, watermark, 'at a commit');
    const engine = createRuleEngine({ pack: this.#env.pack, counters: store });
    const notifier = new FaultyNotifier(
      new OutboxNotifier({ path: this.#outboxPath, clock }),
      createPrng(this.#seed * 31 + 7),
    );
    this.#notifier = notifier;
    notifier.lieRate = this.#notifierLieRate;
    const atlas = new ObservedAtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...pollerKey },
      clock: time,
      random: createPrng(this.#seed * 131 + 3),
    });
    this.#atlas = atlas;
    const discoveryCache = new DiscoveryCache();
    const config = this.#config(sim.baseUrl);
    const polled = this.#polledSources(config);

    const runOne = async (deadline: number | undefined): Promise<TickSummary | undefined> => {
      this.#tick += 1;
      this.#report.ticks = this.#tick;
      this.#tickStartedAt = clock.now();
      try {
        const summary = await runTick(
          { atlas, store, engine, notifier, clock, discoveryCache },
          { config, owner: `chaos-seed-${this.#seed}`, ...(deadline === undefined ? {} : { deadline }) },
        );
        for (const outcome of summary.sources) {
          if (!this.#firstNamed.has(outcome.source))
            this.#firstNamed.set(outcome.source, this.#tickStartedAt);
          if (outcome.kind === 'cluster' && !this.#clusters.has(outcome.source)) {
            this.#report.leftOutPolled.push(`tick ${this.#tick} polled ${outcome.source}`);
          }
        }
        return summary;
      } catch (error) {
        this.#report.tickErrors.push(`tick ${this.#tick}: ${describe(error)}`);
        return undefined;
      }
    };

    // Faults.
    const faultTicks = 3 + Math.floor(random() * 2);
    const restartAt = this.#restartDynamo ? 2 + Math.floor(random() * (faultTicks - 2)) : 0;
    for (let index = 1; index <= faultTicks; index += 1) {
      clock.advance((30 + Math.floor(random() * 210)) * SECOND);
      this.#addEvents(index === 1);
      if (this.#accessHistory) this.#addLines(index === 1);
      await this.#evaluated;
      if (random() < 0.3) {
        sim.expireNonces();
        this.#count('nonceExpiry');
      }
      sim.setFaults(this.#accessHistoryFaults(this.#faultPlan(index)));
      notifier.alertFailureRate = random() < 0.6 ? random() * 0.3 : 0;
      notifier.outageRate = random() < 0.3 ? random() * 0.3 : 0;
      const deadline = random() < 0.4 ? clock.now() + 60 * SECOND : undefined;
      this.#onRequest = this.#faultHook(deadline);
      if (index === restartAt) {
        store.planStop(store.calls + 2 + Math.floor(random() * 12), () => this.#env.stopDynamo());
      }
      await runOne(deadline);
      this.#onRequest = undefined;
      if (index === restartAt || store.stopped) await this.#restartIfStopped(store);
      await this.#checkCursors(polled, `after tick ${this.#tick}`);
    }

    // Settle: no faults, nothing new; long enough for claims and leases left behind to lapse.
    sim.setFaults();
    notifier.alertFailureRate = 0;
    notifier.outageRate = 0;
    clock.advance(SETTLE_PAUSE_MS);
    let last: TickSummary | undefined;
    for (let index = 0; index < SETTLE_TICKS; index += 1) {
      clock.advance(MINUTE);
      last = await runOne(undefined);
      await this.#checkCursors(polled, `after tick ${this.#tick}`);
    }
    for (const outcome of last?.sources ?? []) {
      if (outcome.id === ids.foreignProject) continue;
      if (outcome.status !== 'ok') {
        this.#report.unsettled.push(
          `${outcome.source}: ${outcome.status} ${outcome.reason ?? outcome.errorCode ?? ''}`.trim(),
        );
      }
    }
    const settled = new Set(last?.sources.map((outcome) => outcome.source));
    for (const source of this.#clusters.keys()) {
      if (!settled.has(source)) this.#report.unsettled.push(`${source}: not polled by the last tick`);
    }

    await this.#assess(notifier, store, polled);
  }

  async #openStore(): Promise<StateStore> {
    const clock = this.#clock;
    if (this.#storeKind === 'file') return FileStateStore.open({ path: this.#statePath, clock });
    await createStateTable({ client: this.#env.dynamo, tableName: this.#tableName, timeToLive: false });
    this.#tableCreated = true;
    return new DynamoDbStateStore({ client: this.#env.dynamo, tableName: this.#tableName, clock });
  }

  /**
   * Starts DynamoDB Local again once its planned stop ran; stops and starts it now when the tick made
   * fewer store calls than planned.
   */
  async #restartIfStopped(store: ObservedStore): Promise<void> {
    if (!store.stopped) {
      if (!store.stopPending) return;
      store.cancelStop();
      await this.#env.stopDynamo();
    }
    await this.#env.restartDynamo();
    store.stopped = false;
    this.#count('dynamoRestart');
  }

  #config(baseUrl: string): PollerConfig {
    const random = this.#random;
    const discover = random() < 0.3;
    const foreign = random() < 0.3;
    const projectIds: string[] = discover ? [] : [ids.project, ids.secondProject];
    if (foreign) projectIds.push(ids.foreignProject);
    const maxWindow = random() < 0.3 ? { maxWindowSeconds: 600 } : {};
    const maxEvents = random() < 0.3 ? { maxEventsPerWindow: 500 } : {};
    const access = this.#accessHistory
      ? this.#accessHistorySettings()
      : { sources: {}, timing: {}, tick: {} };
    return pollerConfigSchema.parse({
      atlas: { baseUrl },
      sources: {
        orgIds: [ids.org],
        projectIds,
        allProjectsOfOrgs: discover,
        ...access.sources,
      },
      timing: {
        overlapSeconds: OVERLAP_SECONDS,
        lagSeconds: LAG_SECONDS,
        initialLookbackSeconds: LOOKBACK_SECONDS,
        deadlineMarginSeconds: MARGIN_SECONDS,
        ...maxWindow,
        ...access.timing,
      },
      concurrency: this.#concurrency,
      ...maxEvents,
      ...access.tick,
    });
  }

  /**
   * What a seed with access history adds to the configuration, drawn from its own PRNG: the settle
   * time (the default, or 20 minutes), by chance the least memory there is (windows of at most 1,000
   * events, which a backlog overflows), and which dedicated clusters stay quiet.
   */
  #accessHistorySettings(): { sources: object; timing: object; tick: object } {
    const random = this.#accessRandom;
    if (random() < 0.5) this.#settleSeconds = 1_200;
    const settleSeconds = this.#pollerSettleSeconds ?? this.#settleSeconds;
    const tick = random() < 0.3 ? { maxEventsInMemory: 2_000 } : {};
    for (const cluster of CHAOS_CLUSTERS) {
      if (!cluster.dedicated || cluster.groupId === ids.foreignProject) continue;
      const source = clusterSourceName(cluster);
      this.#clusters.set(source, cluster);
      if (random() < 0.35) this.#quietClusters.add(source);
    }
    return {
      sources: { accessHistory: true },
      timing:
        settleSeconds === DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS
          ? {}
          : { accessHistorySettleSeconds: settleSeconds },
      tick,
    };
  }

  /** The sources whose events the poller's key may read, by name. */
  #polledSources(config: PollerConfig): string[] {
    const projects = config.sources.allProjectsOfOrgs
      ? [ids.project, ids.secondProject]
      : config.sources.projectIds.filter((id) => id !== ids.foreignProject);
    return [`org:${ids.org}`, ...projects.map((id) => `project:${id}`), ...this.#clusters.keys()];
  }

  #scopes(): ChaosScope[] {
    return [
      { kind: 'org', orgId: ids.org },
      { kind: 'project', groupId: ids.project, orgId: ids.org },
      { kind: 'project', groupId: ids.secondProject, orgId: ids.org },
    ];
  }

  #pickScope(): ChaosScope {
    const scopes = this.#scopes();
    return scopes[Math.floor(this.#random() * scopes.length)] as ChaosScope;
  }

  /** New events for the tick about to run: recent ones, and by chance a backlog, late events and ties. */
  #addEvents(first: boolean): void {
    const random = this.#random;
    const now = this.#clock.now();
    const fresh = Math.floor(random() * 4);
    for (let index = 0; index < fresh; index += 1) {
      const scope = this.#pickScope();
      this.#add(scope, [this.#events.alerting(scope, now - random() * MINUTE)]);
    }
    const quiet = Math.floor(random() * 6);
    for (let index = 0; index < quiet; index += 1) {
      const scope = this.#pickScope();
      this.#add(scope, [this.#events.quiet(scope, now - random() * MINUTE)]);
    }
    if (first && random() < 0.4) {
      // A backlog of two pages or three (500 events a page) in one project.
      const scope = this.#scopes()[1] as ChaosScope;
      const size = 550 + Math.floor(random() * 500);
      const span = 48 * MINUTE;
      const backlog: NewEvent[] = [];
      for (let index = 0; index < size; index += 1) {
        const created = now - 2 * MINUTE - random() * span;
        backlog.push(
          random() < 0.01 ? this.#events.alerting(scope, created) : this.#events.quiet(scope, created),
        );
      }
      this.#add(scope, backlog);
    }
    if (!first && random() < 0.4) {
      const late = 1 + Math.floor(random() * 2);
      for (let index = 0; index < late; index += 1) {
        const scope = this.#pickScope();
        const back = (LAG_SECONDS + 5 + random() * (OVERLAP_SECONDS - LAG_SECONDS - 35)) * SECOND;
        this.#add(scope, [this.#events.alerting(scope, now - back)]);
        this.#count('lateEvent');
      }
    }
    if (random() < 0.3) {
      const scope = this.#pickScope();
      const second = now - (LAG_SECONDS + 5 + random() * 200) * SECOND;
      const tied = Array.from({ length: 2 + Math.floor(random() * 3) }, () => this.#events.nextId());
      // Added in an order unlike both the simulator's (greater id first) and the poller's (smaller first).
      for (let index = tied.length - 1; index > 0; index -= 1) {
        const other = Math.floor(random() * (index + 1));
        [tied[index], tied[other]] = [tied[other] as string, tied[index] as string];
      }
      this.#add(
        scope,
        tied.map((id) => this.#events.alerting(scope, second, id)),
      );
      this.#count('sameSecondTie');
    }
  }

  /** Adds events to the simulator and to the model, with the alerts each one raises on its own. */
  #add(scope: ChaosScope, events: readonly NewEvent[]): void {
    const sim = this.#sim as AtlasSimulator;
    const added = sim.addEvents(
      scope.kind === 'org' ? { orgId: scope.orgId } : { groupId: scope.groupId },
      events,
    );
    this.#remember(scope.kind === 'org' ? `org:${scope.orgId}` : `project:${scope.groupId}`, added);
  }

  /**
   * New access-history lines for the tick about to run: recent ones in the clusters that get traffic,
   * by chance a first-tick backlog, lines late inside the overlap, lines late past it in a quiet
   * cluster whose history is still empty, and lines of one host at one millisecond.
   */
  #addLines(first: boolean): void {
    const random = this.#accessRandom;
    const now = this.#clock.now();
    const busy = [...this.#clusters.keys()].filter((source) => !this.#quietClusters.has(source));
    const pick = (): string | undefined => busy[Math.floor(random() * busy.length)];
    const fresh = Math.floor(random() * 4);
    for (let index = 0; index < fresh; index += 1) {
      const source = pick();
      if (source !== undefined) this.#addLinesTo(source, [this.#lines.alerting(now - random() * MINUTE)]);
    }
    const quiet = Math.floor(random() * 8);
    for (let index = 0; index < quiet; index += 1) {
      const source = pick();
      if (source !== undefined) this.#addLinesTo(source, [this.#lines.quiet(now - random() * MINUTE)]);
    }
    const backlogTo = first && random() < 0.4 ? pick() : undefined;
    if (backlogTo !== undefined) {
      // 600 to 1,600 lines: more than one answer brings when the window's room is 500 or 1,000.
      const size = 600 + Math.floor(random() * 1_000);
      const span = 48 * MINUTE;
      const backlog: NewAccessLog[] = [];
      for (let index = 0; index < size; index += 1) {
        const at = now - 2 * MINUTE - random() * span;
        backlog.push(random() < 0.01 ? this.#lines.alerting(at) : this.#lines.quiet(at));
      }
      this.#addLinesTo(backlogTo, backlog);
    }
    if (!first && random() < 0.4) {
      const late = 1 + Math.floor(random() * 2);
      for (let index = 0; index < late; index += 1) {
        const source = pick();
        if (source === undefined) continue;
        const back = (LAG_SECONDS + 5 + random() * (OVERLAP_SECONDS - LAG_SECONDS - 35)) * SECOND;
        this.#addLinesTo(source, [this.#lines.alerting(now - back)]);
        this.#count('lateLine');
      }
    }
    if (!first) {
      for (const source of this.#quietClusters) {
        if (this.#clustersWithLines.has(source) || random() >= 0.5) continue;
        // Past the overlap, within the settle time: read only because the stretch answered nothing.
        const oldest = this.#settleSeconds - 60;
        const newest = OVERLAP_SECONDS + LAG_SECONDS + 5;
        const lines = Array.from({ length: 1 + Math.floor(random() * 2) }, () =>
          this.#lines.alerting(now - (newest + random() * (oldest - newest)) * SECOND),
        );
        this.#addLinesTo(source, lines);
        this.#count('settleLateLine');
      }
    }
    const tiedIn = random() < 0.3 ? pick() : undefined;
    if (tiedIn !== undefined) {
      const cluster = this.#clusters.get(tiedIn) as ChaosCluster;
      const hosts =
        (this.#sim as AtlasSimulator).clusters.find(
          (candidate) => candidate.groupId === cluster.groupId && candidate.name === cluster.name,
        )?.hosts ?? [];
      const host = hosts[Math.floor(random() * hosts.length)];
      const at = Math.floor(now - (LAG_SECONDS + 5 + random() * 200) * SECOND);
      const count = 2 + Math.floor(random() * 3);
      this.#addLinesTo(
        tiedIn,
        Array.from({ length: count }, () => this.#lines.alerting(at, host)),
      );
      this.#count('sameInstantLines');
    }
  }

  /** Adds lines to a cluster's access history and to the model, as the events the poller makes of them. */
  #addLinesTo(source: string, lines: readonly NewAccessLog[]): void {
    const cluster = this.#clusters.get(source) as ChaosCluster;
    const added = (this.#sim as AtlasSimulator).addAccessLogs(cluster.groupId, cluster.name, lines);
    this.#clustersWithLines.add(source);
    this.#remember(
      source,
      added.map((line) => accessHistoryEvent(line, cluster)),
    );
  }

  /** Puts events of `source` into the model, with the alerts each one raises on its own. */
  #remember(source: string, added: readonly AtlasEvent[]): void {
    for (const event of added) {
      const id = String(event.id);
      this.#model.set(id, {
        id,
        source,
        created: Date.parse(String(event.created)),
        visibleFromTick: this.#tick + 1,
        fingerprints: [],
      });
    }
    // Stateless rules only (see chaos-events.ts and chaos-access-history.ts): evaluating one event
    // alone gives its alerts. One evaluation at a time; the checks wait for them (`#evaluated`).
    this.#evaluated = this.#evaluated.then(async () => {
      for (const event of added) {
        const alerts = await this.#oracle.evaluate([event]);
        const model = this.#model.get(String(event.id));
        if (model !== undefined) model.fingerprints = alerts.map((alert) => alert.fingerprint);
      }
    });
  }

  /**
   * The tick's fault plan, or, on some ticks of a seed with access history, one whose faults hit
   * access-history reads and cluster listings alone, and harder: 500s above all, now and then a
   * burst longer than the client's retries.
   */
  #accessHistoryFaults(plan: FaultPlan): FaultPlan {
    if (!this.#accessHistory) return plan;
    const random = this.#accessRandom;
    if (random() >= 0.3) return plan;
    this.#count('accessHistoryOnlyFaults');
    const { schedule: _schedule, ...rest } = plan;
    const lead = Math.floor(random() * 4);
    return {
      ...rest,
      routes: [ACCESS_HISTORY_ROUTE, CLUSTER_LISTING_ROUTE],
      probabilities: {
        internalServerError: 0.05 + random() * 0.2,
        ...(random() < 0.5 ? { badGateway: 0.05, connectionReset: 0.05, rateLimited: 0.05 } : {}),
      },
      ...(random() < 0.4
        ? {
            schedule: [
              ...(lead > 0 ? [{ kind: 'none' as const, count: lead }] : []),
              { kind: 'internalServerError' as const, count: 5 + Math.floor(random() * 2) },
            ],
          }
        : {}),
    };
  }

  #faultPlan(tick: number): FaultPlan {
    const random = this.#random;
    const probabilities: Partial<Record<FaultKind, number>> = {};
    for (const kind of FAULT_KINDS) {
      if (random() < 0.5) probabilities[kind] = random() * 0.05;
    }
    const plan: FaultPlan = {
      seed: this.#seed * 1_000 + tick,
      probabilities,
      retryAfterSeconds: Math.floor(random() * 6),
      retryAfterFormat: random() < 0.3 ? 'http-date' : 'seconds',
      latencyMs: { min: 500, max: 20_000 },
    };
    if (random() < 0.25) {
      // A burst longer than the client's five attempts: the source fails this tick.
      const lead = Math.floor(random() * 4);
      plan.schedule = [
        ...(lead > 0 ? [{ kind: 'none' as const, count: lead }] : []),
        { kind: random() < 0.5 ? 'rateLimited' : 'serviceUnavailable', count: 5 + Math.floor(random() * 2) },
      ];
    }
    return plan;
  }

  /**
   * What happens as the simulator answers during one fault tick: by chance an event (or a line)
   * added to the source being read, and (with a deadline) time jumping close to it after a chosen
   * page of events or answer of access history. Counts the 429s and 5xx of access-history reads and
   * cluster listings.
   */
  #faultHook(deadline: number | undefined): (path: string, status: number) => void {
    const random = this.#random;
    const addChance = random() < 0.5 ? 0.15 : 0;
    const cutAfter = deadline !== undefined && random() < 0.7 ? 1 + Math.floor(random() * 6) : undefined;
    // 45 s of 60: no new page starts (margin 20 s); 55 s: calls in flight are aborted too (half the margin).
    const jump = random() < 0.5 ? 45 * SECOND : 55 * SECOND;
    const accessRandom = this.#accessRandom;
    const lineChance = this.#accessHistory && accessRandom() < 0.5 ? 0.2 : 0;
    let pages = 0;
    return (path, status) => {
      const failed = status === 429 || status >= 500;
      const cluster = this.#clusterOfPath(path);
      if (failed && cluster !== undefined) this.#count('accessHistoryError');
      if (failed && isClusterListing(path)) this.#count('clusterListingError');
      const scope = eventScopeOf(path);
      if ((scope === undefined && cluster === undefined) || status !== 200) return;
      pages += 1;
      if (scope !== undefined && addChance > 0 && random() < addChance) {
        const back = (LAG_SECONDS + 1 + random() * 240) * SECOND;
        this.#add(scope, [this.#events.alerting(scope, this.#clock.now() - back)]);
        this.#count('addedDuringRead');
      }
      if (cluster !== undefined && lineChance > 0 && accessRandom() < lineChance) {
        const back = (LAG_SECONDS + 1 + accessRandom() * 240) * SECOND;
        this.#addLinesTo(cluster, [this.#lines.alerting(this.#clock.now() - back)]);
        this.#count('lineAddedDuringRead');
      }
      if (pages === cutAfter) {
        this.#clock.advance(jump);
        this.#count('deadlineCut');
        if (cluster !== undefined) this.#count('accessHistoryDeadlineCut');
      }
    };
  }

  /** The source of a dedicated cluster whose access history `path` reads, or `undefined`. */
  #clusterOfPath(path: string): string | undefined {
    const cluster = accessHistoryPathOf(path);
    if (cluster === undefined) return undefined;
    const source = clusterSourceName(cluster);
    return this.#clusters.has(source) ? source : undefined;
  }

  #requestLogger(): Logger {
    const ignore = (): void => {};
    return {
      debug: (message, attributes) => {
        if (message !== 'simulator request' || attributes === undefined) return;
        const path = String(attributes.path);
        const read = accessHistoryPathOf(path);
        if (read !== undefined && this.#clusterOfPath(path) === undefined) {
          this.#report.leftOutPolled.push(`tick ${this.#tick} read ${clusterSourceName(read)}`);
        }
        this.#onRequest?.(path, Number(attributes.status));
      },
      info: ignore,
      warn: ignore,
      error: ignore,
    };
  }

  /** Reads each source's stored watermark and checks it. */
  async #checkCursors(sources: readonly string[], when: string): Promise<void> {
    const watermarks =
      this.#storeKind === 'file' ? await this.#fileWatermarks() : await this.#tableWatermarks(sources);
    for (const [source, watermark] of watermarks) {
      if (sources.includes(source)) this.#checkWatermark(source, watermark, when);
    }
  }

  /** The watermarks in the state file (format version 1). */
  async #fileWatermarks(): Promise<Map<string, number>> {
    const document = JSON.parse(await readFile(this.#statePath, 'utf8')) as {
      sources: Array<{ source: string; cursor?: { watermark: number } }>;
    };
    const watermarks = new Map<string, number>();
    for (const record of document.sources) {
      if (record.cursor !== undefined) watermarks.set(record.source, record.cursor.watermark);
    }
    return watermarks;
  }

  /** The watermarks in the DynamoDB table, in one request. */
  async #tableWatermarks(sources: readonly string[]): Promise<Map<string, number>> {
    const { partitionKey, sortKey } = stateTableSchema;
    const { Responses } = await this.#env.dynamo.send(
      new BatchGetItemCommand({
        RequestItems: {
          [this.#tableName]: {
            Keys: sources.map((source) => ({
              [partitionKey]: { S: `SOURCE#${source}` },
              [sortKey]: { S: 'CURSOR' },
            })),
            ProjectionExpression: '#pk, watermark',
            ExpressionAttributeNames: { '#pk': partitionKey },
            ConsistentRead: true,
          },
        },
      }),
    );
    const watermarks = new Map<string, number>();
    for (const item of Responses?.[this.#tableName] ?? []) {
      const source = item[partitionKey]?.S?.slice('SOURCE#'.length);
      const stored = item.watermark?.N;
      if (source !== undefined && stored !== undefined) watermarks.set(source, Number(stored));
    }
    return watermarks;
  }

  /**
   * A watermark moved to `watermark` by tick `c` says every event of `source` created at or before it
   * that tick `c` could read was processed: each alert of an event created by then and added before
   * tick `c` began must be delivered. An event added later (while `c` ran, or after it, late inside
   * the overlap) is for a later tick to find: it is checked against the watermark that tick commits.
   */
  #checkWatermark(source: string, watermark: number, when: string): void {
    const report = this.#report;
    const previous = this.#watermarks.get(source);
    if (previous !== undefined && watermark < previous.watermark) {
      report.watermarkViolations.push(
        `tick ${this.#tick}, ${when}: the watermark of ${source} moved back from ${iso(previous.watermark)} to ${iso(watermark)}`,
      );
    }
    const movedIn = previous === undefined || watermark !== previous.watermark ? this.#tick : previous.tick;
    this.#watermarks.set(source, { watermark, tick: movedIn });
    const notifier = this.#notifier;
    for (const event of this.#model.values()) {
      if (event.source !== source || event.created > watermark) continue;
      if (event.visibleFromTick > movedIn || event.created < this.#owedFrom(source)) continue;
      for (const fingerprint of event.fingerprints) {
        if (notifier?.wasDelivered(fingerprint)) continue;
        report.watermarkViolations.push(
          `tick ${this.#tick}, ${when}: the watermark of ${source} is at ${iso(watermark)}, past ${fingerprint} ` +
            `(event created ${iso(event.created)}), which was not delivered`,
        );
      }
    }
  }

  /**
   * The oldest `created` a source owes alerts for: where its first walk starts evaluating, the
   * initial lookback before the first tick that named it. A source committing in the tick that
   * names it first is named by the tick that runs.
   */
  #owedFrom(source: string): number {
    return (this.#firstNamed.get(source) ?? this.#tickStartedAt) - LOOKBACK_SECONDS * SECOND;
  }

  async #assess(notifier: FaultyNotifier, store: ObservedStore, polled: readonly string[]): Promise<void> {
    const report = this.#report;
    await this.#evaluated;
    const sim = this.#sim as AtlasSimulator;
    const counters = sim.counters;
    for (const kind of FAULT_KINDS) report.faults[kind] += counters.faults[kind];
    report.faults.publishFailure = notifier.failuresInjected;
    report.faults.publishOutage = notifier.outagesInjected;

    // Every event the simulator holds for the polled sources, read by a client without faults.
    const reader = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...pollerKey } });
    const window = {
      minDate: new Date(START - 2 * LOOKBACK_SECONDS * SECOND),
      maxDate: new Date(this.#clock.now() - LAG_SECONDS * SECOND),
      itemsPerPage: 500,
    };
    const listed: AtlasEvent[] = [];
    try {
      for (const source of polled) {
        const cluster = this.#clusters.get(source);
        if (cluster !== undefined) {
          const { lines } = await reader.readAccessHistory(cluster.groupId, cluster.name, {
            start: window.minDate.getTime(),
            end: window.maxDate.getTime(),
            nLogs: MAX_ACCESS_LOG_LINES,
          });
          if (lines.length === MAX_ACCESS_LOG_LINES) {
            report.modelMismatches.push(`${source} holds more lines than one answer lists`);
          }
          listed.push(
            ...lines.map((line) =>
              buildAccessHistoryEvent(line, { groupId: cluster.groupId, clusterName: cluster.name }),
            ),
          );
          continue;
        }
        const [kind, id] = source.split(':') as [string, string];
        const list = kind === 'org' ? reader.listOrgEvents(id, window) : reader.listProjectEvents(id, window);
        listed.push(...(await list.toArray()));
      }
    } finally {
      await reader.close();
    }
    const listedIds = new Set(listed.map((event) => String(event.id)));
    for (const event of this.#model.values()) {
      if (polled.includes(event.source) && !listedIds.has(event.id)) {
        report.modelMismatches.push(`event ${event.id} of ${event.source} was added but is not listed`);
      }
    }
    for (const id of listedIds) {
      if (!this.#model.has(id)) report.modelMismatches.push(`event ${id} is listed but was never added`);
    }

    // The oracle: a fresh engine over every listed event its source owes alerts for, in (created, id)
    // order. An event the model does not know is owed (and a mismatch already).
    const owes = (event: { source: string; created: number }): boolean =>
      event.created >= this.#owedFrom(event.source);
    const owed = listed.filter((event) => {
      const model = this.#model.get(String(event.id));
      return model === undefined || owes(model);
    });
    const sorted = owed.sort(
      (a, b) =>
        Date.parse(String(a.created)) - Date.parse(String(b.created)) ||
        String(a.id).localeCompare(String(b.id)),
    );
    const oracle = createRuleEngine({ pack: this.#env.pack, counters: new MemoryCounterStore() });
    const expected = new Set((await oracle.evaluate(sorted)).map((alert) => alert.fingerprint));
    const modelled = new Set([...this.#model.values()].flatMap((event) => event.fingerprints));
    for (const fingerprint of expected) {
      if (!modelled.has(fingerprint))
        report.modelMismatches.push(`alert ${fingerprint} depends on event order`);
    }

    report.alertsExpected = expected.size;
    const notOwed = new Set<string>();
    for (const event of this.#model.values()) {
      if (!owes(event)) for (const fingerprint of event.fingerprints) notOwed.add(fingerprint);
      if (!this.#clusters.has(event.source)) continue;
      for (const fingerprint of event.fingerprints) {
        if (expected.has(fingerprint)) report.accessHistoryAlertsExpected += 1;
      }
    }
    report.alertsNotOwed = notOwed.size;
    report.faults.fullAnswer = this.#atlas?.fullAnswers ?? 0;
    for (const [fingerprint, count] of notifier.delivered) {
      report.alertsPublished += count;
      if (count > 1) {
        report.duplicates += count - 1;
        if (store.markFailures.has(fingerprint)) report.duplicatesInMarkWindow += count - 1;
      }
      if (!expected.has(fingerprint) && !notOwed.has(fingerprint)) report.unexpected.push(fingerprint);
    }
    for (const fingerprint of expected) {
      if (!notifier.wasDelivered(fingerprint)) report.lost.push(fingerprint);
    }

    // What was written is what SNS would have been sent: every entry must pass its validator.
    const text = await readFile(this.#outboxPath, 'utf8').catch(() => '');
    const lines = text.split('\n').filter((line) => line !== '');
    if (lines.length !== report.alertsPublished) {
      report.invalidEntries.push(`${lines.length} outbox lines for ${report.alertsPublished} deliveries`);
    }
    for (const line of lines) {
      const validation = validateSnsEntry(JSON.parse(line));
      if (!validation.valid) report.invalidEntries.push(validation.problems.join(', '));
    }
  }

  #count(kind: ChaosFaultKind): void {
    this.#report.faults[kind] += 1;
  }
}

/** The simulator's name of the access-history route, as fault plans take it. */
const ACCESS_HISTORY_ROUTE = 'GET /groups/{groupId}/dbAccessHistory/clusters/{clusterName}';
/** The simulator's name of the clusters listing route. */
const CLUSTER_LISTING_ROUTE = 'GET /groups/{groupId}/clusters';

/** The event a line of `cluster`'s access history becomes in the poller. */
function accessHistoryEvent(line: SimulatorAccessLog, cluster: ChaosCluster): AtlasEvent {
  return buildAccessHistoryEvent(line, { groupId: cluster.groupId, clusterName: cluster.name });
}

/** The cluster of an access-history path (`/api/atlas/v2/groups/{id}/dbAccessHistory/clusters/{name}`). */
function accessHistoryPathOf(path: string): { groupId: string; name: string } | undefined {
  const match = /\/groups\/([0-9a-f]{24})\/dbAccessHistory\/clusters\/([^/]+)$/.exec(path);
  if (match === null) return undefined;
  const [, groupId, name] = match as unknown as [string, string, string];
  return { groupId, name: decodeURIComponent(name) };
}

/** Whether a path lists a project's clusters. */
function isClusterListing(path: string): boolean {
  return /\/groups\/[0-9a-f]{24}\/clusters$/.test(path);
}

/** The scope of an events list path (`/api/atlas/v2/groups/{id}/events`), or `undefined`. */
function eventScopeOf(path: string): ChaosScope | undefined {
  const match = /\/(groups|orgs)\/([0-9a-f]{24})\/events$/.exec(path);
  if (match === null) return undefined;
  const [, kind, id] = match as unknown as [string, string, string];
  if (kind === 'orgs') return { kind: 'org', orgId: id };
  if (id === ids.foreignProject) return undefined;
  return { kind: 'project', groupId: id, orgId: ids.org };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
