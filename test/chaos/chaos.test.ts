import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningChaosEnvironment, startChaosEnvironment } from './support/chaos-environment.js';
import {
  CHAOS_FAULT_KINDS,
  type ChaosFaultKind,
  runChaosSeed,
  seedProblems,
} from './support/chaos-scenario.js';

/** Seeds 1 to 50 run in every test run; `npm run soak` runs more. */
const SEEDS = Array.from({ length: 50 }, (_, index) => index + 1);
/** The seed during which DynamoDB Local is stopped and started again (once per file: one JVM). */
const RESTART_SEED = 25;

let env: RunningChaosEnvironment | undefined;
const injected = Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 0])) as Record<
  ChaosFaultKind,
  number
>;
let seedsRun = 0;

beforeAll(async () => {
  env = await startChaosEnvironment();
});

afterAll(async () => {
  await env?.close();
});

describe('runTick under injected faults', () => {
  it.each(SEEDS)(
    'delivers every alert once and keeps its cursors behind undelivered ones, seed %i',
    async (seed) => {
      // Prepare
      if (env === undefined) throw new Error('the chaos environment did not start');

      // Act
      const report = await runChaosSeed(env, { seed, restartDynamo: seed === RESTART_SEED });

      // Assess
      for (const kind of CHAOS_FAULT_KINDS) injected[kind] += report.faults[kind];
      seedsRun += 1;
      expect(seedProblems(report), `replay with: npm run soak -- --seed ${seed}`).toEqual([]);
      // Only a store that fails between a publish and its record may send an alert twice.
      expect(report.duplicates).toBe(seed === RESTART_SEED ? report.duplicatesInMarkWindow : 0);
      expect(report.alertsExpected).toBeGreaterThan(0);
    },
    120_000,
  );

  it('injected every kind of fault across the seeds', () => {
    // Prepare: the seeds above ran first.

    // Act
    const missing = CHAOS_FAULT_KINDS.filter((kind) => injected[kind] === 0);

    // Assess
    expect(seedsRun).toBe(SEEDS.length);
    expect(missing).toEqual([]);
  });
});
