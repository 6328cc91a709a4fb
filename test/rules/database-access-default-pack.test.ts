import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import type { Alert } from '../../shared/notify/alert.js';
import {
  type AccessHistoryEvent,
  buildAccessHistoryEvent,
} from '../../shared/rules/access-history-events.js';
import { createRuleEngine, learningEndingAt, type RulePack } from '../../shared/rules/index.js';
import type { StateStore } from '../../shared/state/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ManualClock } from '../atlas/manual-clock.js';
import { DAY, defaultRulePack, HOUR, MINUTE } from '../poll/support/poll-fixture.js';
import { storeKinds } from '../poll/support/store-kinds.js';
import { TestClock } from '../poll/support/test-clock.js';

/**
 * The simulator's start: the seed counts its lines back from it, a week of logins and then the hour
 * with the brute force on payments-main and the spraying on analytics-prod's cluster.
 */
const STARTED_AT = Date.UTC(2026, 2, 2, 9, 25, 30);
/** How often the ticks of {@link evaluateAsTicks} read: each evaluates the lines of the five minutes before it. */
const TICK = 5 * MINUTE;
/** A key of the simulator's own with Organization Owner everywhere: research-sandbox's history too. */
const READER = { publicKey: 'dbhistry', privateKey: 'fake-private-key-access-history-reader' } as const;

const ATTACKER = '198.51.100.203';
const SPRAYER = '203.0.113.250';

/** The rules of rules/database-access.yaml: each must fire exactly once over the seed. */
const DATABASE_ACCESS_RULES = [
  'db-user-repeated-failures',
  'db-password-spraying',
  'db-login-after-failures',
  'db-user-new-network',
  'db-login-unknown-user',
  'db-admin-login-new-network',
];

let sim: AtlasSimulator;
let atlas: AtlasClient;
let pack: RulePack;
/** Every line of every seeded cluster that keeps access history, as events, oldest first. */
let history: AccessHistoryEvent[];
/** How many lines each cluster served, by project and cluster name. */
const linesPerCluster = new Map<string, number>();

beforeAll(async () => {
  const simulatorClock = new ManualClock(STARTED_AT);
  sim = await startSimulator({ clock: simulatorClock, ...READER });
  atlas = new AtlasClient({
    baseUrl: sim.baseUrl,
    credentials: { kind: 'digest', ...sim.credentials },
    clock: simulatorClock,
    random: () => 0.5,
  });
  pack = await defaultRulePack();
  history = [];
  for (const project of sim.projects) {
    for (const cluster of await atlas.listClusters(project.id).toArray()) {
      if (!cluster.accessHistory) continue;
      // Without start and end: the seven days Atlas keeps, the whole seeded span.
      const { lines, dropped } = await atlas.readAccessHistory(project.id, cluster.name);
      expect(dropped).toBe(0);
      linesPerCluster.set(`${project.name}/${cluster.name}`, lines.length);
      for (const line of lines) {
        history.push(buildAccessHistoryEvent(line, { groupId: project.id, clusterName: cluster.name }));
      }
    }
  }
  history.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
});

afterAll(async () => {
  await atlas?.close();
  await sim?.stop();
});

/** The store of the running test, closed after it. */
let store: StateStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

interface TickRun {
  /** When the first-seen rules end their learning: written to the store before the first tick. */
  learningEndsAt?: number;
  /** The lines to evaluate (default: all of them). */
  events?: readonly AccessHistoryEvent[];
}

/**
 * Evaluates the lines as ticks every five minutes would: one batch per cluster and tick, in time
 * order, each by an engine of its own (as a new Lambda container builds it), on a clock at the
 * tick's time, so that everything a rule knows between batches comes through the store.
 */
async function evaluateAsTicks(
  factory: (clock: TestClock) => Promise<StateStore>,
  run: TickRun,
): Promise<Alert[]> {
  const events = run.events ?? history;
  const tickOf = (event: AccessHistoryEvent) => Math.ceil(Date.parse(event.created) / TICK) * TICK;
  const clock = new TestClock(tickOf(events[0] as AccessHistoryEvent));
  const opened = await factory(clock);
  store = opened;
  if (run.learningEndsAt !== undefined)
    await opened.writeFirstSeen(learningEndingAt(pack, run.learningEndsAt));
  const batches = new Map<string, AccessHistoryEvent[]>();
  for (const event of events) {
    const key = `${tickOf(event)}|${event.groupId}|${event.clusterName}`;
    const batch = batches.get(key);
    if (batch === undefined) batches.set(key, [event]);
    else batch.push(event);
  }
  const alerts: Alert[] = [];
  for (const [key, batch] of batches) {
    const tickAt = Number(key.split('|')[0]);
    if (tickAt > clock.now()) clock.advance(tickAt - clock.now());
    const engine = createRuleEngine({ pack, counters: opened, firstSeen: opened, clock });
    alerts.push(
      ...(await engine.evaluate(batch, {
        onStateError: (error) => {
          throw error;
        },
      })),
    );
  }
  return alerts;
}

const byRule = (alerts: readonly Alert[]) =>
  alerts.map((alert) => ({
    ruleId: alert.ruleId,
    severity: alert.severity,
    title: alert.title,
    eventIds: alert.events.map((event) => event.id),
  }));

/** The seeded lines of one address, oldest first. */
const linesFrom = (address: string) => history.filter((event) => event.remoteAddress === address);

describe('the simulator’s seeded access history', () => {
  it('spans the week before the simulator starts, on every dedicated cluster, research-sandbox’s too', () => {
    const oldest = Date.parse(history[0]?.created ?? '');
    const newest = Date.parse(history.at(-1)?.created ?? '');

    expect(Object.fromEntries(linesPerCluster)).toEqual({
      'payments-prod/payments-main': 45,
      'payments-staging/staging-main': 17,
      'analytics-prod/analytics-main': 37,
      'internal-tools/tools-main': 6,
      'research-sandbox/sandbox': 9,
    });
    expect(STARTED_AT - oldest).toBeGreaterThan(6 * DAY);
    expect(STARTED_AT - oldest).toBeLessThan(7 * DAY);
    expect(STARTED_AT - newest).toBeLessThan(5 * MINUTE);
  });
});

describe.each(storeKinds())(
  'the default pack over the simulator’s seeded access history, $name',
  ({ factory }) => {
    it('raises each database-access rule once, on its seeded pattern, and nothing on the normal traffic', async () => {
      // Prepare: the rules past learning when the last hour begins, as if deployed a week before it.
      const bruteForce = linesFrom(ATTACKER);
      const spraying = linesFrom(SPRAYER);
      const success = bruteForce.at(-1);
      const unknown = spraying.filter((event) => event.failureReason?.startsWith('UserNotFound') === true);

      // Act
      const alerts = await evaluateAsTicks(factory, { learningEndsAt: STARTED_AT - HOUR });

      // Assess
      expect(success?.eventTypeName).toBe('DB_AUTH_SUCCEEDED');
      expect(bruteForce.slice(0, -1).every((event) => event.eventTypeName === 'DB_AUTH_FAILED')).toBe(true);
      const summary = byRule(alerts);
      expect(summary.map(({ ruleId, severity, title }) => ({ ruleId, severity, title }))).toEqual([
        {
          ruleId: 'db-user-repeated-failures',
          severity: 'medium',
          title: 'payments-admin failed to log in 5 times in 5 minutes on payments-main',
        },
        {
          ruleId: 'db-login-after-failures',
          severity: 'high',
          title: `payments-admin logged in to payments-main from ${ATTACKER} after repeated failures`,
        },
        {
          ruleId: 'db-user-new-network',
          severity: 'medium',
          title: `payments-admin logged in to payments-main from a new network (${ATTACKER})`,
        },
        {
          ruleId: 'db-admin-login-new-network',
          severity: 'high',
          title: `payments-admin logged in to payments-main from a network new to the project (${ATTACKER})`,
        },
        {
          ruleId: 'db-login-unknown-user',
          severity: 'medium',
          title: `Login to analytics-main as admin, a database user that does not exist, from ${SPRAYER}`,
        },
        {
          ruleId: 'db-password-spraying',
          severity: 'high',
          title: `${SPRAYER} tried 5 database user names in 10 minutes`,
        },
      ]);
      expect(summary.map((alert) => alert.ruleId).sort()).toEqual([...DATABASE_ACCESS_RULES].sort());
      // Each alert is raised by a line of its pattern, and the sequence names the failures before it.
      const patternIds = new Set([...bruteForce, ...spraying].map((event) => event.id));
      for (const alert of alerts) expect(patternIds.has(alert.events.at(-1)?.id ?? '')).toBe(true);
      const sequence = summary.find((alert) => alert.ruleId === 'db-login-after-failures');
      expect(sequence?.eventIds).toEqual(bruteForce.slice(-11).map((event) => event.id));
      const firstUnknown = summary.find((alert) => alert.ruleId === 'db-login-unknown-user');
      expect(firstUnknown?.eventIds).toEqual([unknown[0]?.id]);
    });

    it('raises nothing on the normal traffic alone, the week and the hour, once past learning', async () => {
      const normal = history.filter(
        (event) => event.remoteAddress !== ATTACKER && event.remoteAddress !== SPRAYER,
      );

      const alerts = await evaluateAsTicks(factory, {
        events: normal,
        learningEndsAt: STARTED_AT - HOUR,
      });

      expect(normal.length).toBe(history.length - 13 - 14);
      expect(normal.filter((event) => event.eventTypeName === 'DB_AUTH_FAILED').length).toBeGreaterThan(0);
      expect(byRule(alerts)).toEqual([]);
    });

    it('raises none of the first-seen alerts while they learn: deployed when the history begins, the week and the hour teach them', async () => {
      const alerts = await evaluateAsTicks(factory, {});

      expect(alerts.map((alert) => alert.ruleId)).toEqual([
        'db-user-repeated-failures',
        'db-login-after-failures',
        'db-login-unknown-user',
        'db-password-spraying',
      ]);
    });
  },
);
