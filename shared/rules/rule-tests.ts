import type { AtlasEvent } from '../atlas/types.js';
import type { Alert } from '../notify/alert.js';
import { createRuleEngine } from './engine.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { testLists } from './rule-compiler.js';
import type { PackTest, RulePack } from './rule-pack.js';

/** One inline test of a rule, ready to run. */
export interface RuleTestCase {
  readonly ruleId: string;
  readonly name: string;
  /** The layer the test comes from: its rules are those this layer leaves. */
  readonly layer: string;
  readonly file: string;
  /** 1-based line of the test in its file, when known. */
  readonly line: number | undefined;
  /** Runs the test against its rule alone, with fresh counters. */
  run(): Promise<RuleTestResult>;
}

/** The outcome of one inline test. */
export interface RuleTestResult {
  readonly ruleId: string;
  readonly name: string;
  readonly passed: boolean;
  /** What differed from the expectation, one sentence each; empty when the test passed. */
  readonly failures: readonly string[];
  /** The alerts the rule raised. */
  readonly alerts: readonly Alert[];
}

/**
 * Lists the inline tests of every layer of a pack, disabled rules included, in layer order.
 *
 * Each test runs against the rules as its own layer leaves them: the built-in pack's tests against
 * the shipped rules, a user layer's tests (its rules' and its overrides') against the rules as tuned
 * up to that layer. So tuning never breaks a shipped test. Each test runs its rule alone (as if
 * enabled) on fresh in-memory counters, over `event` or `events` in order. A test event without an `id` is given one (`<rule id>/<test index>/<event index>`), so
 * threshold tests need not invent ids; stateful rules still need each event's `created`. A first-seen
 * rule's test has no learning period, and first evaluates the test's `seen` events (alerts dropped),
 * so it can state which values the rule knew before; a distinct-count rule's `seen` events count toward
 * their windows the same way, so a test can state the values tried before its event, and a sequence
 * rule's `seen` events stand as its earlier steps. A test's `lists` replace the pack's lists of
 * those names for that test alone.
 *
 * @example
 * ```ts
 * for (const test of collectRuleTests(pack)) console.log(test.name, (await test.run()).passed);
 * ```
 */
export function collectRuleTests(pack: RulePack): RuleTestCase[] {
  return pack.tests.map(
    (test): RuleTestCase => ({
      ruleId: test.ruleId,
      name: test.name,
      layer: test.layer,
      file: test.file,
      line: test.line,
      run: () => runRuleTest(test),
    }),
  );
}

/**
 * Runs every inline test of a pack.
 *
 * @example
 * ```ts
 * const results = await runRuleTests(pack);
 * const failed = results.filter((result) => !result.passed);
 * ```
 */
export async function runRuleTests(pack: RulePack): Promise<RuleTestResult[]> {
  const results: RuleTestResult[] = [];
  for (const test of collectRuleTests(pack)) results.push(await test.run());
  return results;
}

async function runRuleTest(packTest: PackTest): Promise<RuleTestResult> {
  const { ruleId, spec: test, index, pack } = packTest;
  const engine = createRuleEngine({
    pack: test.lists === undefined ? pack : { ...pack, lists: testLists(pack.lists, test.lists) },
    counters: new MemoryCounterStore(),
    ruleIds: [ruleId],
    firstSeenLearning: false,
  });
  const events = (test.events ?? (test.event === undefined ? [] : [test.event])).map(
    (event, eventIndex): AtlasEvent =>
      event.id === undefined ? { ...event, id: `${ruleId}/${index}/${eventIndex}` } : event,
  );
  const seen = (test.seen ?? []).map(
    (event, eventIndex): AtlasEvent =>
      event.id === undefined ? { ...event, id: `${ruleId}/${index}/seen/${eventIndex}` } : event,
  );
  // What a first-seen, distinct-count or sequence rule saw before: recorded by the same rule, its alerts not the test's.
  if (seen.length > 0) await engine.evaluate(seen);
  const alerts = await engine.evaluate(events);
  const failures: string[] = [];
  const { expect } = test;
  const first = alerts[0];
  if (expect.alert && alerts.length === 0) failures.push('expected an alert, got none');
  if (!expect.alert && alerts.length > 0) {
    failures.push(`expected no alert, got ${alerts.length}: "${first?.title ?? ''}"`);
  }
  if (expect.count !== undefined && alerts.length !== expect.count) {
    failures.push(`expected ${expect.count} alert${expect.count === 1 ? '' : 's'}, got ${alerts.length}`);
  }
  if (first !== undefined) {
    if (expect.title !== undefined && first.title !== expect.title) {
      failures.push(`expected title "${expect.title}", got "${first.title}"`);
    }
    if (expect.summary !== undefined && first.summary !== expect.summary) {
      failures.push(`expected summary "${expect.summary}", got "${first.summary}"`);
    }
    if (expect.severity !== undefined && first.severity !== expect.severity) {
      failures.push(`expected severity ${expect.severity}, got ${first.severity}`);
    }
  }
  return { ruleId, name: test.name, passed: failures.length === 0, failures, alerts };
}
