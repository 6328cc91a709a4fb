import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import { AtlasForbiddenError } from '../../shared/atlas/errors.js';
import type { Alert } from '../../shared/notify/alert.js';
import {
  type AccessHistoryEvent,
  buildAccessHistoryEvent,
} from '../../shared/rules/access-history-events.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ManualClock } from '../atlas/manual-clock.js';
import { packOf } from './rule-files.js';

const RULES = `
rules:
  - id: db-user-brute-force
    name: Repeated failed logins for one database user
    severity: high
    match: { eventTypeName: DB_AUTH_FAILED }
    group_by: [groupId, clusterName, username]
    threshold: { count: 10, window: 5m }
    title: '{{username}} failed to log in 10 times on {{clusterName}}'
  - id: db-password-spraying
    name: Many database user names tried from one address
    severity: high
    match: { eventTypeName: DB_AUTH_FAILED }
    group_by: [groupId, remoteAddress]
    distinct_count: { field: username, count: 10, window: 5m }
    title: '{{remoteAddress}} tried 10 user names'
`;

/**
 * The simulator's start, on a fixed clock: the seed counts its lines back from it. Half past the
 * hour minus 30 s puts the brute force (25 to 22.8 minutes before) and the spraying (14 to 10.75
 * minutes before) each inside one 5-minute window, so the rules see each pattern whole.
 */
const STARTED_AT = Date.UTC(2026, 2, 2, 9, 25, 30);

describe('access-history events over the simulator’s default seed', () => {
  let sim: AtlasSimulator;
  let atlas: AtlasClient;

  beforeAll(async () => {
    const clock = new ManualClock(STARTED_AT);
    sim = await startSimulator({ clock });
    atlas = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...sim.credentials },
      clock,
      random: () => 0.5,
    });
  });

  afterAll(async () => {
    await atlas.close();
    await sim.stop();
  });

  /**
   * Every line of every cluster that keeps access history, as events, in the order a tick evaluates
   * them. The seed's key reads research-sandbox's too: Project Cluster Log Viewer there.
   */
  async function readEvents(): Promise<AccessHistoryEvent[]> {
    const events: AccessHistoryEvent[] = [];
    const refused: string[] = [];
    for (const project of sim.projects) {
      for (const cluster of await atlas.listClusters(project.id).toArray()) {
        if (!cluster.accessHistory) continue;
        const read = await atlas.readAccessHistory(project.id, cluster.name).catch((error: unknown) => {
          if (error instanceof AtlasForbiddenError) return undefined;
          throw error;
        });
        if (read === undefined) {
          refused.push(project.name);
          continue;
        }
        const { lines, dropped } = read;
        expect(dropped).toBe(0);
        for (const line of lines) {
          events.push(buildAccessHistoryEvent(line, { groupId: project.id, clusterName: cluster.name }));
        }
      }
    }
    expect(refused).toEqual([]);
    return events.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  }

  const summary = (alerts: readonly Alert[]) =>
    alerts.map((alert) => ({ ruleId: alert.ruleId, title: alert.title }));

  it('maps every line to an event with an id of its own, the same when read again', async () => {
    const events = await readEvents();
    const again = await readEvents();

    expect(events.length).toBe(114);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(again.map((event) => event.id)).toEqual(events.map((event) => event.id));
    expect(events.filter((event) => event.eventTypeName === 'DB_AUTH_FAILED')).toHaveLength(30);
  });

  it('raises one alert for the brute force and one for the spraying, none for the normal traffic', async () => {
    const engine = createRuleEngine({ pack: packOf(RULES), counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate(await readEvents());

    expect(summary(alerts)).toEqual([
      { ruleId: 'db-user-brute-force', title: 'payments-admin failed to log in 10 times on payments-main' },
      { ruleId: 'db-password-spraying', title: '203.0.113.250 tried 10 user names' },
    ]);
  });

  it('raises no alert of another fingerprint when the same lines are evaluated again', async () => {
    const counters = new MemoryCounterStore();
    const engine = createRuleEngine({ pack: packOf(RULES), counters });
    const first = await engine.evaluate(await readEvents());

    const second = await engine.evaluate(await readEvents());

    // The alert records keep one alert per fingerprint: a window already full gives its own again.
    expect(new Set(second.map((alert) => alert.fingerprint))).toEqual(
      new Set(first.map((alert) => alert.fingerprint)),
    );
    expect(first).toHaveLength(2);
  });
});

describe('access-history event ids when a line comes late', () => {
  it('keeps the ids of the lines read before, and gives a late line at the same time and host its own', async () => {
    const clock = new ManualClock(STARTED_AT);
    const sim = await startSimulator({ clock });
    const atlas = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...sim.credentials },
      clock,
      random: () => 0.5,
    });
    try {
      const groupId = sim.projects.find((project) => project.name === 'payments-prod')?.id ?? '';
      const context = { groupId, clusterName: 'payments-main' };
      const read = async () =>
        (await atlas.readAccessHistory(groupId, 'payments-main')).lines.map((line) =>
          buildAccessHistoryEvent(line, context),
        );
      const before = await read();
      const first = before.find((event) => event.eventTypeName === 'DB_AUTH_FAILED');

      sim.addAccessLogs(groupId, 'payments-main', [
        {
          username: first?.username ?? '',
          ipAddress: first?.remoteAddress ?? '',
          authResult: false,
          timestamp: first?.created,
          hostname: first?.hostname,
        },
      ]);
      const after = await read();

      const beforeIds = new Set(before.map((event) => event.id));
      const added = after.filter((event) => !beforeIds.has(event.id));
      expect(after.filter((event) => beforeIds.has(event.id))).toHaveLength(before.length);
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({
        created: first?.created,
        hostname: first?.hostname,
        username: first?.username,
        remoteAddress: first?.remoteAddress,
      });
    } finally {
      await atlas.close();
      await sim.stop();
    }
  });
});
