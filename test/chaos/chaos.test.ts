import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRuleTests } from '../../shared/rules/index.js';
import { type RunningChaosEnvironment, startChaosEnvironment } from './support/chaos-environment.js';
import {
  CHAOS_FAULT_KINDS,
  type ChaosFaultKind,
  runChaosSeed,
  seedProblems,
} from './support/chaos-scenario.js';

/** One seed of the suite, and how it runs. */
interface ChaosCase {
  seed: number;
  /** Leave access history out, as the seed ran when it found its defect (its draws depend on it). */
  eventsOnly?: boolean;
}

/**
 * Seeds 1 to 50 run in every test run (three in four of them with access history: seeds 4, 12, 32 and 38
 * once lost a line that showed up past the overlap in a cluster whose walk read its empty history in
 * several windows), and the seeds that once found a defect elsewhere, in the poller or in the checks
 * (each with what it found);
 * `npm run soak` runs more.
 */
const REGRESSION_CASES: ChaosCase[] = [
  // A new project never reached by three ticks cut short: its first walk started an hour before the
  // fourth tick, not the first, and passed an alert unread.
  { seed: 5131, eventsOnly: true },
  // A project whose clusters' listing failed until the fourth tick: its clusters were first named
  // then, and their first walks rightly started an hour before that tick. The checks once owed the
  // lines before it all the same.
  { seed: 20138 },
];
const CASES: ChaosCase[] = [
  ...Array.from({ length: 50 }, (_, index) => ({ seed: index + 1 })),
  ...REGRESSION_CASES,
];
/** The seed during which DynamoDB Local is stopped and started again (once per file: one JVM). */
const RESTART_SEED = 25;
/** A seed that writes lines past the overlap into a quiet cluster (most seeds do). */
const SETTLE_SEED = 2;

let env: RunningChaosEnvironment | undefined;
const injected = Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 0])) as Record<
  ChaosFaultKind,
  number
>;
let casesRun = 0;
let accessHistoryAlerts = 0;

beforeAll(async () => {
  env = await startChaosEnvironment();
});

afterAll(async () => {
  await env?.close();
});

describe('runTick under injected faults', () => {
  it.each(CASES.map((chaosCase) => ({ ...chaosCase, name: nameOf(chaosCase) })))(
    'delivers every alert once and keeps its cursors behind undelivered ones, $name',
    async ({ seed, eventsOnly }) => {
      // Prepare
      if (env === undefined) throw new Error('the chaos environment did not start');

      // Act
      const report = await runChaosSeed(env, {
        seed,
        restartDynamo: seed === RESTART_SEED,
        ...(eventsOnly ? { accessHistory: false } : {}),
      });

      // Assess
      for (const kind of CHAOS_FAULT_KINDS) injected[kind] += report.faults[kind];
      accessHistoryAlerts += report.accessHistoryAlertsExpected;
      casesRun += 1;
      const replay =
        `npm run soak -- --seed ${seed}${seed === RESTART_SEED ? ' --restart' : ''}` +
        (eventsOnly ? ' --events-only' : '');
      expect(seedProblems(report), `replay with: ${replay}`).toEqual([]);
      // Only a store that fails between a publish and its record may send an alert twice.
      expect(report.duplicates).toBe(seed === RESTART_SEED ? report.duplicatesInMarkWindow : 0);
      expect(report.alertsExpected).toBeGreaterThan(0);
    },
    120_000,
  );

  it('injects every kind of fault across the seeds, and alerts on access history', (context) => {
    // Prepare: the seeds above ran first (all of them, unless a filter picked some).
    if (casesRun < CASES.length) context.skip();

    // Act
    const missing = CHAOS_FAULT_KINDS.filter((kind) => injected[kind] === 0);

    // Assess
    expect(missing).toEqual([]);
    expect(accessHistoryAlerts).toBeGreaterThan(0);
  });

  it('catches a notifier that reports alerts sent it never delivered', async () => {
    // Prepare
    if (env === undefined) throw new Error('the chaos environment did not start');

    // Act
    const report = await runChaosSeed(env, { seed: 2, notifierLieRate: 0.5 });

    // Assess
    expect(report.lost.length).toBeGreaterThan(0);
    expect(report.watermarkViolations.length).toBeGreaterThan(0);
    expect(seedProblems(report).join('\n')).toMatch(/lost alerts[\s\S]*watermark violations/);
  });

  it('catches a poller that passes an empty stretch of access history before it settles', async () => {
    // Prepare: the seed writes lines past the overlap into a quiet cluster; the poller gives empty
    // answers no time to fill.
    if (env === undefined) throw new Error('the chaos environment did not start');

    // Act
    const report = await runChaosSeed(env, {
      seed: SETTLE_SEED,
      accessHistory: true,
      pollerSettleSeconds: 0,
    });

    // Assess
    expect(report.faults.settleLateLine).toBeGreaterThan(0);
    expect(report.lost.length).toBeGreaterThan(0);
    expect(report.lost.every((fingerprint) => fingerprint.startsWith('chaos-db-'))).toBe(true);
    expect(seedProblems(report).join('\n')).toMatch(/lost alerts[\s\S]*watermark violations/);
  });

  it("runs the inline tests of the suite's access-history rules", async () => {
    // Prepare
    if (env === undefined) throw new Error('the chaos environment did not start');

    const tests = collectRuleTests(env.pack).filter((test) => test.ruleId.startsWith('chaos-'));

    // Act
    const results = await Promise.all(tests.map((test) => test.run()));

    // Assess
    expect(results).toHaveLength(4);
    expect(results.filter((result) => !result.passed)).toEqual([]);
  });
});

/** How a case is named in the report. */
function nameOf(chaosCase: ChaosCase): string {
  return `seed ${chaosCase.seed}${chaosCase.eventsOnly ? ', events only' : ''}`;
}
