import { beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_CLIENTS } from '../../bench/digest-clients.js';
import {
  type BenchReport,
  type BenchSizes,
  renderReport,
  runBenchmarks,
  SCENARIOS,
} from '../../bench/run.js';
import { currentNodeRuntime } from '../../bench/support/node-runtime.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

/**
 * Every benchmark scenario at a tiny size, once, against the run's DynamoDB Local: the counts each
 * one reports must be right (requests per call, pages and challenges, DynamoDB requests per source)
 * and the report must hold every scenario. Times are never asserted.
 */

const TINY: BenchSizes = {
  digest: { calls: 15, rounds: 2, warmupCalls: 3, itemsPerPage: 5 },
  backlog: { events: 1_500, projects: 2 },
  pagedBacklog: { events: 1_500, pageLatencyMs: 20 },
  backlogMemory: { sizes: [500, 1_500], projects: 2 },
  steadyState: { sources: 4, eventsPerSource: 3, clustersPerSource: 2, linesPerCluster: 3 },
  rules: { events: 1_000, runs: 1, extraRules: 10, warmupEvents: 0 },
  coldStart: { runs: 1 },
  fanOut: { sources: 6, workers: 2, batchSize: 2, latencyMs: { min: 1, max: 3 } },
  pushLatency: { events: 12, projects: 3, spanMinutes: 12 },
};

let report: BenchReport;

beforeAll(async () => {
  report = await runBenchmarks({
    scale: 'tiny',
    sizes: TINY,
    dynamoDbEndpoint: await dynamoDbLocalEndpoint(),
    // The same Node again, as a second runtime to compare with: the code path of `--compare-node`.
    compareNodes: [currentNodeRuntime()],
  });
}, 300_000);

function results<K extends keyof BenchReport['results']>(key: K): NonNullable<BenchReport['results'][K]> {
  const value = report.results[key];
  if (value === undefined) throw new Error(`no ${key} results: ${JSON.stringify(report.errors)}`);
  return value;
}

describe('the benchmark run at a tiny size', () => {
  it('runs every scenario without an error, each in a process of its own within its time limit', () => {
    expect(report.errors).toEqual({});
    expect(report.scenarios).toEqual([...SCENARIOS]);
    expect(Object.keys(report.durations)).toEqual([...SCENARIOS]);
    expect(report.durations['fan-out']?.limitSeconds).toBe(600);
  });

  it('times every digest client on the same calls and counts the HTTP requests a call costs', () => {
    const digest = results('digest');

    const byClient = Object.fromEntries(digest.clients.map((client) => [client.client, client]));

    expect(digest.clients.map((client) => client.client)).toEqual(Object.values(DIGEST_CLIENTS));
    expect(digest.clients.every((client) => client.calls === 30 && client.requestsPerSecond > 0)).toBe(true);
    // Ours and digest-fetch reuse the nonce of the warm-up; urllib is challenged on every call.
    expect(byClient[DIGEST_CLIENTS.ours]).toMatchObject({ httpRequestsPerCall: 1, challenges: 0 });
    expect(byClient[DIGEST_CLIENTS.urllib]).toMatchObject({ httpRequestsPerCall: 2, challenges: 30 });
    expect(byClient[DIGEST_CLIENTS.digestFetch]).toMatchObject({ httpRequestsPerCall: 1, challenges: 0 });
    expect(byClient[DIGEST_CLIENTS.ceiling]).toMatchObject({ httpRequestsPerCall: 1, challenges: 0 });
    // The simulator's budget fits every request of the run: our client's pacer never holds a call.
    const requests = digest.clients.reduce(
      (sum, client) => sum + client.calls * client.httpRequestsPerCall,
      0,
    );
    expect(digest.rateLimitPerMinute).toBeGreaterThan(requests);
    expect(digest.pacedCalls).toBe(0);
    for (const target of [digest.targets.versusUrllib, digest.targets.versusCeiling]) {
      expect(target.met).toBe(target.ratio >= target.target);
    }
    // A share of the ceiling is the median of the ratios within a round, not a ratio of medians.
    expect(digest.clients.every((client) => client.roundRates.length === 2)).toBe(true);
    expect(byClient[DIGEST_CLIENTS.ceiling]?.ofCeiling).toBe(1);
    const ours = byClient[DIGEST_CLIENTS.ours]?.roundRates ?? [];
    const ceiling = byClient[DIGEST_CLIENTS.ceiling]?.roundRates ?? [];
    const withinRounds = ((ours[0] ?? 0) / (ceiling[0] ?? 1) + (ours[1] ?? 0) / (ceiling[1] ?? 1)) / 2;
    expect(digest.targets.versusCeiling.ratio).toBeCloseTo(withinRounds, 1);
    expect(byClient[DIGEST_CLIENTS.ours]?.ofCeiling).toBe(digest.targets.versusCeiling.ratio);
  });

  it('reads the backlog with one request per page it reads plus one challenge, all events once', () => {
    const backlog = results('backlog');

    expect(backlog).toMatchObject({ events: 1_500, eventsNew: 1_500, projects: 2, sourcesOk: 2 });
    expect(backlog.atlas.pagesNeeded).toBeGreaterThanOrEqual(3);
    // One window a source at this size: no page beyond those needed.
    expect(backlog.atlas.pagesRead).toBe(backlog.atlas.pagesNeeded);
    expect(backlog.atlas.challenges).toBe(1);
    // Each project's first inventory snapshot reads its IP access list once.
    expect(backlog.atlas.inventoryReads).toBe(2);
    // Each project's name, its organization's, and the alert configuration each project's generated
    // events disable, read once for the alerts.
    expect(backlog.atlas.nameReads).toBe(5);
    expect(backlog.atlas.requests).toBe(
      backlog.atlas.pagesNeeded + backlog.atlas.inventoryReads + backlog.atlas.nameReads + 1,
    );
    expect(backlog.atlas.met).toBe(true);
  });

  it('reads the paged backlog on one source and judges its tick against pages needed times the latency', () => {
    const paged = results('pagedBacklog');

    expect(paged).toMatchObject({
      events: 1_500,
      pageLatencyMs: 20,
      pagesNeeded: 3,
      floorMs: 60,
      target: 1.2,
    });
    expect(paged.pagesRead).toBeGreaterThanOrEqual(paged.pagesNeeded);
    expect(paged.ratio).toBeCloseTo(paged.durationMs / paged.floorMs, 1);
    expect(paged.met).toBe(paged.ratio <= paged.target);
  });

  it('measures the peak RSS of a fresh poller at every backlog size and compares the largest with the smallest', () => {
    const memory = results('backlogMemory');

    expect(memory.runs.map((run) => run.events)).toEqual([500, 1_500]);
    expect(memory.runs.every((run) => run.peakRssMb > 0 && run.peakHeapUsedMb > 0)).toBe(true);
    const peaks = memory.runs.map((run) => run.peakRssMb);
    expect(memory.spread).toBeCloseTo(Math.max(...peaks) / Math.min(...peaks), 1);
    expect(memory.met).toBe(memory.spread <= memory.target);
  });

  it('reports the backlog DynamoDB requests per alert published against its target of 0.1', () => {
    const backlog = results('backlog');

    expect(backlog.dynamoDb.perAlert).toBeCloseTo(backlog.dynamoDb.requests / backlog.alertsPublished, 3);
    expect(backlog.dynamoDb.target).toBe(0.1);
    expect(backlog.dynamoDb.met).toBe(backlog.dynamoDb.perAlert <= 0.1);
  });

  it('counts the backlog DynamoDB requests by operation, and the poller process peak RSS and heap', () => {
    const backlog = results('backlog');

    const byOperation = Object.values(backlog.dynamoDb.byOperation).reduce((sum, count) => sum + count, 0);

    expect(byOperation).toBe(backlog.dynamoDb.requests);
    // A lease and a commit per source, a transaction of claims and one of marks per 100 alerts of a
    // window, then the rules' counters.
    expect(backlog.dynamoDb.requests).toBeGreaterThanOrEqual(
      2 * 2 + 2 * Math.ceil(backlog.alertsPublished / 100),
    );
    expect(backlog.alertsPublished).toBeGreaterThan(0);
    expect(backlog.memory.peakRssMb).toBeGreaterThanOrEqual(backlog.memory.startRssMb);
    expect(backlog.memory.startRssMb).toBeGreaterThan(0);
    expect(backlog.memory.peakHeapUsedMb).toBeGreaterThan(0);
  });

  it('runs the backlog poller with the heap limits Lambda gives the stack default memory size', () => {
    const backlog = results('backlog');

    expect(backlog.memory).toMatchObject({
      lambdaMemoryMiB: 256,
      nodeOptions: ['--max-semi-space-size=12', '--max-old-space-size=231'],
    });
    expect(renderReport(report)).toContain('with the heap limits of a 256 MiB Lambda');
  });

  it('costs one Atlas request and two DynamoDB requests per source in the steady state', () => {
    const steady = results('steadyState');

    expect(steady).toMatchObject({ sources: 4, eventsFetched: 12, eventsNew: 0 });
    expect(steady.atlas).toMatchObject({ requests: 4, challenges: 0, perSource: 1, met: true });
    expect(steady.dynamoDb).toMatchObject({ requests: 8, perSource: 2, met: true });
    expect(steady.dynamoDb.byOperation).toEqual({ UpdateItem: 8 });
  });

  it('costs one Atlas request per cluster in the steady state, its listing kept from the first tick', () => {
    const { clusters } = results('steadyState');

    expect(clusters).toMatchObject({ clusters: 8, linesFetched: 24, linesNew: 0 });
    // The first tick listed each project's clusters once (its first request, a listing, challenged
    // by Digest once more); the second lists none.
    expect(clusters.atlas.firstTickListings).toBe(5);
    expect(clusters.atlas).toMatchObject({
      clusterListings: 0,
      accessHistoryReads: 8,
      eventsReads: 4,
      requests: 12,
      challenges: 0,
      perCluster: 1,
      target: 1,
      met: true,
    });
  });

  it('costs a cluster no more DynamoDB requests than an events source of the same tick', () => {
    const steady = results('steadyState');
    const { dynamoDb } = steady.clusters;

    // A lease and a commit per source, projects and clusters alike, and one read of when the 12
    // sources were last polled (4 alone need none: no more than the tick polls at once), shared out.
    expect(dynamoDb).toMatchObject({ requests: 25, byOperation: { UpdateItem: 24, BatchGetItem: 1 } });
    expect(dynamoDb.bySource).toEqual({ project: 8.333, cluster: 16.667 });
    expect(dynamoDb).toMatchObject({ perCluster: 2.083, perEventsSource: 2.083, met: true });
    expect(dynamoDb.addedByOperation).toEqual({ UpdateItem: 16, BatchGetItem: 1 });
    expect(renderReport(report)).toContain('steady state with clusters');
  });

  it('runs the rule engine over the event mix with the default pack, generated rules and hostile regexes', () => {
    const rules = results('rules');

    expect(rules.map((result) => [result.events, result.rules > 0, result.alertsPerRun > 0])).toEqual([
      [1_000, true, true],
      [1_000, true, true],
      [1_000, true, true],
    ]);
    expect(rules[1]?.rules).toBe((rules[0]?.rules ?? 0) + 10);
    expect(rules[2]?.rules).toBe((rules[0]?.rules ?? 0) + 10);
    expect(rules[2]?.scenario).toContain('hostile names');
  });

  it("splits the default pack's events into those no rule matches and the others, which raise every alert", () => {
    const [defaultPack, ...others] = results('rules');
    const costs = defaultPack?.costs;

    expect(others.map((result) => result.costs)).toEqual([undefined, undefined]);
    expect(costs?.noMatch.events).toBeGreaterThan(0);
    expect((costs?.noMatch.events ?? 0) + (costs?.perAlert.events ?? 0)).toBe(1_000);
    // An event no rule matches counts toward no rule: the others alone raise every alert.
    expect(costs?.perAlert.alerts).toBe(defaultPack?.alertsPerRun);
    expect(costs?.noMatch).toMatchObject({ target: 1, met: (costs?.noMatch.micros ?? 0) <= 1 });
    expect(costs?.perAlert).toMatchObject({ target: 6, met: (costs?.perAlert.micros ?? 0) <= 6 });
    expect(renderReport(report)).toContain('events no rule matches, per event');
  });

  it('builds the poller bundle and imports it in fresh processes, on each runtime', () => {
    const coldStart = results('coldStart');

    expect(coldStart.size.bundleBytes).toBeGreaterThan(0);
    expect(coldStart.imports.map((timing) => [timing.scenario, timing.node, timing.runs])).toEqual([
      ['import, as deployed (--enable-source-maps)', process.version, 1],
      ['import without source maps', process.version, 1],
      ['import, as deployed (--enable-source-maps)', process.version, 1],
      ['import without source maps', process.version, 1],
    ]);
    expect(coldStart.imports.every((timing) => timing.medianCpuMs > 0)).toBe(true);
  });

  it('polls every source once in each mode, one Atlas request each, plus one challenge per worker', () => {
    const fanOut = results('fanOut');

    expect(fanOut).toMatchObject({ sources: 6, workers: 2, batchSize: 2, concurrency: 4 });
    expect(fanOut.single).toMatchObject({
      polledOnceOk: 6,
      otherOutcomes: 0,
      atlas: { requests: 6, challenges: 0 },
    });
    // Three batches of two; each worker's own client is challenged once, as a new container's is.
    expect(fanOut.fanOut).toMatchObject({
      polledOnceOk: 6,
      otherOutcomes: 0,
      batches: 3,
      redelivered: 0,
      deadLetters: 0,
      atlas: { requests: 8, challenges: 2 },
    });
    expect(report.targets.find((check) => check.scenario === 'fan-out')?.met).toBe(true);
  });

  it('alerts on every event through a push and through the schedule alone, each push waking a poll', () => {
    const latency = results('pushLatency');

    expect(latency).toMatchObject({ events: 12, projects: 3, scheduleMinutes: 5, lagSeconds: 30 });
    expect(latency.push).toMatchObject({ alerted: 12, pushesAccepted: 12, alertedByPush: 12 });
    expect(latency.push.wokenPolls).toBeGreaterThan(0);
    expect(latency.scheduled.alerted).toBe(12);
    // Simulated time: a scheduled tick reads an event no sooner than the lag after it.
    expect(latency.scheduled.p50Ms).toBeGreaterThanOrEqual(30_000);
    expect(report.targets.find((check) => check.scenario === 'push-latency')).toBeDefined();
  });

  it('lists every target with its figure, and prints a section per scenario and the machine', () => {
    const text = renderReport(report);

    expect(report.targets.map((check) => check.scenario)).toEqual([
      'digest',
      'digest',
      'backlog',
      'backlog',
      'backlog',
      'paged-backlog',
      'backlog-memory',
      'steady-state',
      'steady-state',
      'steady-state',
      'steady-state',
      'rules',
      'rules',
      'rules',
      'rules',
      'cold-start',
      'cold-start',
      'cold-start',
      'cold-start',
      'cold-start',
      'fan-out',
      'push-latency',
    ]);
    for (const heading of [
      '1. Digest client',
      '2. Backlog',
      '2b. Paged backlog',
      '2c. Backlog memory',
      '3. Steady state',
      '4. Rules',
      '5. Cold start',
      '6. Fan-out',
      '7. Push latency',
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain(`${report.machine.cores} cores`);
    expect(text).toContain(`Node ${process.version}`);
    expect(text).toMatch(/Targets: \d+ of 22 met/);
  });

  it('describes the machine and the run in JSON-safe values', () => {
    const copy = JSON.parse(JSON.stringify(report)) as BenchReport;

    expect(copy).toEqual(report);
    expect(copy.machine).toMatchObject({ cores: expect.any(Number), cpuModel: expect.any(String) });
    expect(copy.machine.memoryMb).toBeGreaterThan(0);
    expect(Date.parse(copy.date)).not.toBeNaN();
  });
});
