import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import DigestClient from 'digest-fetch';
import { build } from 'esbuild';
import { Agent, request } from 'undici';
import { HttpClient } from 'urllib';
import { lambdaEsbuildOptions } from '../infra/bundling.js';
import { FLAVOR_ACCEPT, FLAVOR_PREFIXES } from '../shared/atlas/index.js';
import { startBenchSimulator } from './support/bench-simulator.js';
import type { SimulatorProcess } from './support/simulator-process.js';
import { median, renderTable } from './support/table.js';

/**
 * The Digest client against its peers, on the same simulator in the same run: this project's
 * AtlasClient, urllib (its `digestAuth` option), digest-fetch, and undici with no authentication at
 * all (the ceiling: the simulator serves unauthenticated requests while that client runs, and only
 * then). Each client makes the same sequential one-page calls (list a project's events, a few per
 * page), parses the JSON and checks the page. The simulator runs in a child process, so client and
 * server do not share an event loop. Our client runs from a bundle built with the Lambda's own esbuild
 * options (minified, every package bundled in), as the poller runs it, not from the TypeScript sources
 * through the loader the benchmark itself runs under.
 *
 * Every client is warmed up first. Then, in each round, every client makes `calls` calls, in an
 * order rotated from round to round so each client takes each position once in four rounds: a
 * client is not favoured by running first or last. The rate reported is the median over rounds.
 * A client's share of the ceiling is the median over rounds of its rate divided by the ceiling's in
 * the same round: the clients of one round run within seconds of each other, so a machine that slows
 * down or speeds up between rounds (others' work on a shared host) moves both rates of a ratio, not
 * one. HTTP requests per call come from the simulator's own counters.
 *
 * The simulator announces a request budget (`RateLimit-Limit`, per minute and project) that fits the
 * whole run, so our client's pacer (which slows it down as Atlas's budget runs out, and keeps its own
 * tests) never holds a call back: the benchmark times the client, not a minute's budget. Every client
 * calls the same project, and the run makes thousands of calls a minute; with the simulator's default
 * budget of 100 our client would wait on almost every call.
 *
 * Targets: at least 1.8 times urllib's rate, and at least 0.9 of the no-auth ceiling.
 */

export interface DigestBenchOptions {
  /** Calls per client per round. Default 2,000. */
  calls?: number;
  /** Rounds; the median round is reported. Default 8 (each client in each position twice). */
  rounds?: number;
  /** Calls per client before the first round, not counted. Default 3,000: the clients reach their steady rates after a few thousand. */
  warmupCalls?: number;
  /** Events per page. Default 10. */
  itemsPerPage?: number;
  /**
   * Requests per minute the simulator announces (`RateLimit-Limit`). Default: enough for every
   * request of the run, so pacing never starts.
   */
  rateLimitPerMinute?: number;
}

/** The figures of one client. */
export interface DigestClientResult {
  client: string;
  /** How it authenticates. */
  auth: string;
  /** Calls timed, over all rounds. */
  calls: number;
  /** Calls per second: the median over rounds. */
  requestsPerSecond: number;
  minRequestsPerSecond: number;
  maxRequestsPerSecond: number;
  /** HTTP requests the simulator received per call, over all rounds. */
  httpRequestsPerCall: number;
  /** Digest challenges the simulator sent during the timed rounds. */
  challenges: number;
  /** CPU time of the benchmark process per call, in microseconds (median over rounds). */
  cpuMicrosPerCall: number;
  /** Calls per second in each round, in the order the rounds ran. */
  roundRates: number[];
  /** The median over rounds of this client's rate divided by the ceiling's in the same round. */
  ofCeiling: number;
}

/** A target comparing our client's rate with another's. */
export interface RateTarget {
  /** Our rate divided by the other's: the median over rounds of the ratio within a round. */
  ratio: number;
  /** The smallest ratio that meets the target. */
  target: number;
  met: boolean;
}

export interface DigestBenchResult {
  callsPerRound: number;
  rounds: number;
  itemsPerPage: number;
  /** What the simulator announced in `RateLimit-Limit`, per minute and project. */
  rateLimitPerMinute: number;
  /** Calls of our client that its rate-limit pacer held back: 0 when the budget fits the run. */
  pacedCalls: number;
  clients: DigestClientResult[];
  targets: {
    /** Our rate against urllib's: at least 1.8. */
    versusUrllib: RateTarget;
    /** Our rate against undici without authentication: at least 0.9. */
    versusCeiling: RateTarget;
  };
}

/** Client names, as the table and the JSON show them. */
export const DIGEST_CLIENTS = {
  ours: 'atlas-audit-alerts AtlasClient',
  urllib: 'urllib',
  digestFetch: 'digest-fetch',
  ceiling: 'undici (no auth)',
} as const;

const ACCEPT = FLAVOR_ACCEPT['atlas-v2'];

interface BenchClient {
  name: string;
  auth: string;
  /** Whether the simulator must serve unauthenticated requests while it runs. */
  unauthenticated: boolean;
  /** One call: resolves with the number of events on the page; throws on any other answer. */
  call(): Promise<number>;
  /** Calls held back by a rate-limit pacer so far (only our client has one). */
  paced(): number;
  close(): Promise<void>;
}

/** How many clients the benchmark compares. */
const DIGEST_CLIENT_COUNT = Object.keys(DIGEST_CLIENTS).length;
/** HTTP requests a call may take: urllib answers a fresh challenge on every call. */
const MOST_REQUESTS_PER_CALL = 2;

/**
 * A `RateLimit-Limit` under which `callsPerClient` calls of each client never bring the budget down to
 * the pacer's reserve (a tenth of it), even were they all made within one minute.
 */
function budgetFitting(callsPerClient: number, clients: number): number {
  const requests = callsPerClient * clients * MOST_REQUESTS_PER_CALL;
  return 2 * requests + 100;
}

interface RoundFigures {
  wallMs: number;
  cpuMs: number;
  requests: number;
  challenges: number;
}

/**
 * Runs the digest benchmark and returns its figures.
 *
 * @throws Error when a client gets an answer other than a full page (so no rate is reported for
 *   calls that failed), or when the simulator cannot start.
 * @example
 * ```ts
 * const result = await runDigestBenchmark({ calls: 2_000 });
 * ```
 */
export async function runDigestBenchmark(options: DigestBenchOptions = {}): Promise<DigestBenchResult> {
  const calls = options.calls ?? 2_000;
  const rounds = options.rounds ?? 8;
  const warmupCalls = options.warmupCalls ?? 3_000;
  const itemsPerPage = options.itemsPerPage ?? 10;
  const rateLimitPerMinute =
    options.rateLimitPerMinute ?? budgetFitting(calls * rounds + warmupCalls, DIGEST_CLIENT_COUNT);
  const sim = await startBenchSimulator({ rateLimitPerMinute });
  try {
    const generated = await sim.generateEvents({ count: itemsPerPage * 5, projects: 1, seed: 7 });
    const groupId = generated.projectIds[0] as string;
    const deployed = await loadDeployedAtlasClient();
    const clients = createClients({ sim, groupId, itemsPerPage, AtlasClient: deployed.AtlasClient });
    try {
      for (const client of clients) await timeCalls(sim, client, warmupCalls, itemsPerPage);
      const figures = new Map<BenchClient, RoundFigures[]>(clients.map((client) => [client, []]));
      for (let round = 0; round < rounds; round++) {
        const order = clients.map((_, index) => clients[(index + round) % clients.length] as BenchClient);
        for (const client of order) {
          figures.get(client)?.push(await timeCalls(sim, client, calls, itemsPerPage));
        }
      }
      const rates = new Map(
        clients.map((client) => [client.name, roundRates(figures.get(client) ?? [], calls)]),
      );
      const ratesOf = (name: string): number[] => rates.get(name) ?? [];
      const results = clients.map((client) =>
        summarize(client, figures.get(client) ?? [], calls, ratesOf(DIGEST_CLIENTS.ceiling)),
      );
      return {
        callsPerRound: calls,
        rounds,
        itemsPerPage,
        rateLimitPerMinute,
        pacedCalls: clients.reduce((sum, client) => sum + client.paced(), 0),
        clients: results,
        targets: {
          versusUrllib: rateTarget(ratesOf(DIGEST_CLIENTS.ours), ratesOf(DIGEST_CLIENTS.urllib), 1.8),
          versusCeiling: rateTarget(ratesOf(DIGEST_CLIENTS.ours), ratesOf(DIGEST_CLIENTS.ceiling), 0.9),
        },
      };
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await deployed.remove();
    }
  } finally {
    await sim.close();
  }
}

/** The project's root, from which the bundle of the Atlas client is built. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

type AtlasModule = typeof import('../shared/atlas/index.js');

/**
 * The Atlas client as the Lambda runs it: `shared/atlas` built with the Lambda's esbuild options into a
 * temporary directory and imported from there. `remove` deletes the directory.
 */
async function loadDeployedAtlasClient(): Promise<{
  AtlasClient: AtlasModule['AtlasClient'];
  remove(): Promise<void>;
}> {
  const directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-digest-bench-'));
  const remove = (): Promise<void> => rm(directory, { recursive: true, force: true });
  try {
    const outfile = join(directory, 'atlas-client.mjs');
    await build(lambdaEsbuildOptions({ projectRoot: PROJECT_ROOT, entry: 'shared/atlas/index.ts', outfile }));
    const bundled = (await import(pathToFileURL(outfile).href)) as AtlasModule;
    return { AtlasClient: bundled.AtlasClient, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function timeCalls(
  sim: SimulatorProcess,
  client: BenchClient,
  calls: number,
  itemsPerPage: number,
): Promise<RoundFigures> {
  await sim.resetCounters();
  if (client.unauthenticated) await sim.setUnauthenticatedAccess(true);
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let call = 0; call < calls; call++) {
      const items = await client.call();
      if (items !== itemsPerPage) {
        throw new Error(`${client.name} read a page of ${items} events, expected ${itemsPerPage}`);
      }
    }
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const counters = await sim.counters();
    return {
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      requests: counters.requests,
      challenges: counters.challenges,
    };
  } finally {
    if (client.unauthenticated) await sim.setUnauthenticatedAccess(false);
  }
}

function roundRates(rounds: readonly RoundFigures[], calls: number): number[] {
  return rounds.map((round) => (calls / round.wallMs) * 1000);
}

function summarize(
  client: BenchClient,
  rounds: readonly RoundFigures[],
  calls: number,
  ceilingRates: readonly number[],
): DigestClientResult {
  const rates = roundRates(rounds, calls);
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
  return {
    client: client.name,
    auth: client.auth,
    calls: calls * rounds.length,
    requestsPerSecond: Math.round(median(rates)),
    minRequestsPerSecond: Math.round(Math.min(...rates)),
    maxRequestsPerSecond: Math.round(Math.max(...rates)),
    httpRequestsPerCall: Math.round((requests / (calls * rounds.length)) * 1000) / 1000,
    challenges: rounds.reduce((sum, round) => sum + round.challenges, 0),
    cpuMicrosPerCall: Math.round((median(rounds.map((round) => round.cpuMs)) / calls) * 1000),
    roundRates: rates.map(Math.round),
    ofCeiling: roundedRatio(rates, ceilingRates),
  };
}

/**
 * The median over rounds of `ours` divided by `other` in the same round, to two decimals (0 when the
 * other never made a call).
 */
function roundedRatio(ours: readonly number[], other: readonly number[]): number {
  const ratios = ours.map((rate, index) => {
    const theirs = other[index] ?? 0;
    return theirs === 0 ? 0 : rate / theirs;
  });
  return ratios.length === 0 ? 0 : Math.round(median(ratios) * 100) / 100;
}

function rateTarget(ours: readonly number[], other: readonly number[], minimum: number): RateTarget {
  const ratio = roundedRatio(ours, other);
  return { ratio, target: minimum, met: ratio >= minimum };
}

function createClients(options: {
  sim: SimulatorProcess;
  groupId: string;
  itemsPerPage: number;
  AtlasClient: AtlasModule['AtlasClient'];
}): BenchClient[] {
  const { sim, groupId, itemsPerPage, AtlasClient } = options;
  const { publicKey, privateKey } = sim.credentials;
  const url = `${sim.baseUrl}${FLAVOR_PREFIXES['atlas-v2']}/groups/${groupId}/events?itemsPerPage=${itemsPerPage}`;
  const pageSize = (body: unknown): number => {
    const results = (body as { results?: unknown } | null)?.results;
    return Array.isArray(results) ? results.length : -1;
  };

  const atlas = new AtlasClient({
    baseUrl: sim.baseUrl,
    credentials: { kind: 'digest', publicKey, privateKey },
  });
  const ours: BenchClient = {
    name: DIGEST_CLIENTS.ours,
    auth: 'digest, nonce reused',
    unauthenticated: false,
    async call() {
      const pages = atlas.listProjectEvents(groupId, { itemsPerPage }).pages();
      try {
        const first = await pages.next();
        return first.done === true ? 0 : first.value.items.length;
      } finally {
        await pages.return(undefined);
      }
    },
    paced: () => atlas.stats.paced,
    close: () => atlas.close(),
  };

  const httpClient = new HttpClient();
  const urllib: BenchClient = {
    name: DIGEST_CLIENTS.urllib,
    auth: 'digest (digestAuth)',
    unauthenticated: false,
    async call() {
      const response = await httpClient.request(url, {
        digestAuth: `${publicKey}:${privateKey}`,
        dataType: 'json',
        headers: { accept: ACCEPT },
      });
      if (response.status !== 200) throw new Error(`urllib got HTTP ${response.status}`);
      return pageSize(response.data);
    },
    paced: () => 0,
    close: async () => {
      await httpClient.getDispatcher().close();
    },
  };

  const digestClient = new DigestClient(publicKey, privateKey);
  const digestFetch: BenchClient = {
    name: DIGEST_CLIENTS.digestFetch,
    auth: 'digest, nonce reused',
    unauthenticated: false,
    async call() {
      const response = await digestClient.fetch(url, { headers: { accept: ACCEPT } });
      if (response.status !== 200) throw new Error(`digest-fetch got HTTP ${response.status}`);
      return pageSize(await response.json());
    },
    paced: () => 0,
    close: async () => {},
  };

  const agent = new Agent();
  const ceiling: BenchClient = {
    name: DIGEST_CLIENTS.ceiling,
    auth: 'none',
    unauthenticated: true,
    async call() {
      const response = await request(url, { dispatcher: agent, headers: { accept: ACCEPT } });
      const body = await response.body.json();
      if (response.statusCode !== 200) throw new Error(`undici got HTTP ${response.statusCode}`);
      return pageSize(body);
    },
    paced: () => 0,
    close: () => agent.close(),
  };

  return [ours, urllib, digestFetch, ceiling];
}

/** The digest benchmark as table rows. */
export function digestTable(result: DigestBenchResult): string {
  return renderTable(
    ['client', 'auth', 'calls/s (median)', 'min..max', 'HTTP req/call', 'CPU µs/call', 'of ceiling'],
    result.clients.map((client) => [
      client.client,
      client.auth,
      client.requestsPerSecond.toLocaleString('en-US'),
      `${client.minRequestsPerSecond.toLocaleString('en-US')}..${client.maxRequestsPerSecond.toLocaleString('en-US')}`,
      client.httpRequestsPerCall.toFixed(3),
      String(client.cpuMicrosPerCall),
      `${Math.round(client.ofCeiling * 100)}%`,
    ]),
    2,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runDigestBenchmark();
  process.stdout.write(digestTable(result));
  process.stdout.write(`${JSON.stringify({ benchmark: 'digest', ...result })}\n`);
}
