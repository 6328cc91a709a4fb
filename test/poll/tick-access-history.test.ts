import { afterEach, describe, expect, it } from 'vitest';
import type { PollerConfigInput } from '../../shared/poll/index.js';
import { parseRulePack } from '../../shared/rules/index.js';
import type { SeedData } from '../../simulator/index.js';
import { outcomeOf } from './support/assertions.js';
import {
  ids,
  MINUTE,
  type PollFixture,
  pollSeed,
  SECOND,
  type SimulatorRequest,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

/** One rule: every failed login alerts, titled with its user, address and cluster. */
const pack = parseRulePack({
  sources: [
    {
      file: 'logins.yaml',
      text: `
rules:
  - id: failed-login
    name: Failed database login
    severity: low
    match: { eventTypeName: DB_AUTH_FAILED }
    title: '{{username}} from {{remoteAddress}} on {{clusterName}}'
`,
    },
  ],
});

const CLUSTER = `cluster:${ids.project}:payments-main`;

/** The poll seed with a dedicated cluster and a shared-tier one in the polled project. */
function seedWithClusters(): SeedData {
  const seed = pollSeed();
  return {
    ...seed,
    projects: (seed.projects ?? []).map((project) =>
      project.id === ids.project
        ? {
            ...project,
            clusters: [
              { name: 'payments-main', providerSettings: { providerName: 'AWS', instanceSizeName: 'M10' } },
              {
                name: 'sandbox',
                providerSettings: {
                  providerName: 'TENANT',
                  instanceSizeName: 'M0',
                  backingProviderName: 'AWS',
                },
              },
            ],
          }
        : project,
    ),
  } as SeedData;
}

const config: PollerConfigInput = {
  sources: { projectIds: [ids.project], accessHistory: true },
  timing: { initialLookbackSeconds: 3_600, overlapSeconds: 900, lagSeconds: 30 },
};

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('access history through runTick, $name', ({ factory }) => {
  const start = async (extra: Partial<PollerConfigInput> = {}): Promise<PollFixture> => {
    fixture = await startPollFixture({
      store: factory,
      seed: seedWithClusters(),
      pack,
      config: { ...config, ...extra },
    });
    return fixture;
  };
  const failure = (current: PollFixture, username: string, at: number, ipAddress = '198.51.100.7') =>
    current.sim.addAccessLogs(ids.project, 'payments-main', [
      { username, ipAddress, authResult: false, timestamp: at },
    ]);
  const titles = (current: PollFixture): string[] =>
    current.notifier.delivered.map((alert) => alert.title).sort();

  it('polls each dedicated cluster of the project as a source of its own, leaving the shared tier out', async () => {
    // Prepare
    const current = await start();
    failure(current, 'payments-admin', current.clock.now() - 10 * MINUTE);
    current.sim.addAccessLogs(ids.project, 'payments-main', [
      {
        username: 'app',
        ipAddress: '10.0.0.5',
        authResult: true,
        timestamp: current.clock.now() - 9 * MINUTE,
      },
    ]);

    // Act
    const summary = await current.tick();

    // Assess
    expect(summary.sources.map((source) => source.source).sort()).toEqual([
      CLUSTER,
      `project:${ids.project}`,
    ]);
    const cluster = outcomeOf(summary, CLUSTER);
    expect(cluster).toMatchObject({
      kind: 'cluster',
      id: ids.project,
      cluster: 'payments-main',
      status: 'ok',
    });
    expect(cluster.inventory).toBeUndefined();
    expect(cluster.eventsNew).toBe(2);
    expect(summary.discovery).toEqual([{ groupId: ids.project, status: 'listed', clusters: 1 }]);
    expect(titles(current)).toEqual(['payments-admin from 198.51.100.7 on payments-main']);
    expect(current.notifier.delivered[0]?.events[0]).toMatchObject({
      eventTypeName: 'DB_AUTH_FAILED',
      groupId: ids.project,
      clusterName: 'payments-main',
      source: 'access-history',
    });
  });

  it('reads a line that appears late within the overlap once, and never alerts twice on a line read again', async () => {
    // Prepare
    const current = await start();
    failure(current, 'first', current.clock.now() - 5 * MINUTE);
    await current.tick();
    current.clock.advance(5 * MINUTE);
    // Written ten minutes before now, after the last tick read that span.
    failure(current, 'late', current.clock.now() - 10 * MINUTE);

    // Act
    const second = await current.tick();
    current.clock.advance(5 * MINUTE);
    const third = await current.tick();

    // Assess
    expect(outcomeOf(second, CLUSTER).eventsNew).toBe(1);
    expect(outcomeOf(third, CLUSTER).eventsNew).toBe(0);
    expect(titles(current)).toEqual([
      'first from 198.51.100.7 on payments-main',
      'late from 198.51.100.7 on payments-main',
    ]);
  });

  it('takes an empty answer as "not yet": a stretch that listed nothing is read again until it settles', async () => {
    // Prepare: a cluster that has listed nothing yet.
    const current = await start({ timing: { ...config.timing, accessHistorySettleSeconds: 1_800 } });
    await current.tick();
    const firstWatermark = outcomeOf(await current.tick(), CLUSTER).watermark ?? 0;
    current.clock.advance(5 * MINUTE);
    // Lines of twenty minutes ago appear only now: past the overlap of 15 minutes, within the settle time.
    failure(current, 'slow-host', current.clock.now() - 20 * MINUTE);

    // Act
    const summary = await current.tick();

    // Assess
    expect(firstWatermark).toBeLessThanOrEqual(current.clock.now() - 5 * MINUTE - 1_800 * SECOND);
    expect(outcomeOf(summary, CLUSTER).eventsNew).toBe(1);
    expect(titles(current)).toEqual(['slow-host from 198.51.100.7 on payments-main']);
    // Once a line was listed, the cursor moves to the end of the window as for events.
    expect(outcomeOf(summary, CLUSTER).watermark).toBe(current.clock.now() - 30 * SECOND);
  });

  it('keeps an empty stretch within the settle time however many windows the walk reads it in', async () => {
    // Prepare: windows of 10 minutes, so the first walk (an hour and more) reads the empty history in
    // seven of them.
    const current = await start({
      timing: { ...config.timing, accessHistorySettleSeconds: 1_800, maxWindowSeconds: 600 },
    });
    const first = outcomeOf(await current.tick(), CLUSTER);
    current.clock.advance(MINUTE);
    // Written 28 minutes ago, listed only now: past the overlap of 15 minutes, within the settle time.
    failure(current, 'slow-host', current.clock.now() - 28 * MINUTE);

    // Act
    const summary = await current.tick();

    // Assess
    expect(titles(current)).toEqual(['slow-host from 198.51.100.7 on payments-main']);
    expect(outcomeOf(summary, CLUSTER).eventsNew).toBe(1);
    expect(first.windowsCommitted).toBeGreaterThan(1);
    expect(first.watermark).toBeLessThanOrEqual(current.clock.now() - MINUTE - 1_800 * SECOND);
  });

  it('costs one Atlas request per cluster on an idle tick, the clusters listed again only when the cache lapses', async () => {
    // Prepare
    const current = await start();
    await current.tick();
    current.clock.advance(MINUTE);
    const requests: SimulatorRequest[] = [];
    current.onRequest = (request) => requests.push(request);

    // Act
    const summary = await current.tick();

    // Assess
    const clusterPaths = requests.filter((request) => request.path.includes('/clusters'));
    expect(clusterPaths.map((request) => request.path.replace(/\?.*/, ''))).toEqual([
      `/api/atlas/v2/groups/${ids.project}/dbAccessHistory/clusters/payments-main`,
    ]);
    expect(summary.discovery).toEqual([{ groupId: ids.project, status: 'cached', clusters: 1 }]);
  });

  it('reads a window that holds more lines than one answer may in shorter windows, losing none and repeating none', async () => {
    // Prepare: 1,200 logins over 40 minutes, one in a hundred failed; answers of at most 500 lines.
    const current = await start({ maxEventsPerWindow: 500 });
    const now = current.clock.now();
    current.sim.addAccessLogs(
      ids.project,
      'payments-main',
      Array.from({ length: 1_200 }, (_, index) => ({
        username: `user-${index}`,
        ipAddress: '198.51.100.9',
        authResult: index % 100 !== 0,
        timestamp: now - 50 * MINUTE + index * 2_000,
      })),
    );

    // Act
    const summary = await current.tick();

    // Assess
    const cluster = outcomeOf(summary, CLUSTER);
    expect(cluster.status).toBe('ok');
    expect(cluster.eventsNew).toBe(1_200);
    expect(cluster.windowsCommitted).toBeGreaterThan(2);
    expect(titles(current)).toEqual(
      Array.from(
        { length: 12 },
        (_, index) => `user-${index * 100} from 198.51.100.9 on payments-main`,
      ).sort(),
    );
  });
});
