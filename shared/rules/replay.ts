import type { AtlasEvent } from '../atlas/types.js';
import { SEVERITIES, type Severity } from '../notify/alert.js';
import { createRuleEngine, type RuleEngine } from './engine.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import type { RulePack } from './rule-pack.js';

/** What one rule of a pack did over a replay. */
export interface RuleReplayCount {
  ruleId: string;
  severity: Severity;
  enabled: boolean;
  /**
   * Events the rule's match accepted, before threshold and suppression decide whether they alert;
   * 0 for a disabled rule, which is not evaluated.
   */
  matched: number;
  alerts: number;
}

/** An alert raised in a replay, reduced to what a comparison looks at. */
export interface ReplayedAlert {
  ruleId: string;
  severity: Severity;
  title: string;
  fingerprint: string;
}

/** An event the rules could not evaluate, and why. */
export interface ReplayFailure {
  /** The event's position in the replayed events. */
  index: number;
  message: string;
}

/** Alert counts by severity. */
export type SeverityCounts = Record<Severity, number>;

/** The outcome of {@link replayRules}. */
export interface RuleReplay {
  /** Events evaluated. */
  events: number;
  /** Every rule of the pack, in pack order. */
  rules: RuleReplayCount[];
  alerts: number;
  bySeverity: SeverityCounts;
  /** The alerts each event raised, keyed by the event's position; events that raised none are absent. */
  alertsByEvent: ReadonlyMap<number, readonly ReplayedAlert[]>;
  failures: ReplayFailure[];
}

/** Options of {@link replayRules}. */
export interface ReplayRulesOptions {
  pack: RulePack;
  /** In the order the rules see them: sorted by (`created`, `id`), as a poll tick orders them. */
  events: readonly AtlasEvent[];
}

/**
 * Evaluates a pack over events as a poll tick would, with state kept in memory only: threshold and
 * suppression rules count from nothing and use each event's `created` as their clock. First-seen rules
 * start as if deployed at the first replayed event: they learn for their `learning` period, and a
 * value seen earlier in the replay is known. Counts, per
 * rule, the events its match accepts and the alerts it raises, and keeps the alerts of each event
 * for {@link compareReplays}. An event that makes evaluation throw is recorded in `failures`, counts
 * toward no rule, and the replay goes on with the next one.
 *
 * Matches are counted by a second engine over the same rules without `threshold`, `suppress` and `first_seen`,
 * which alerts once for every event a rule's match accepts.
 *
 * @throws {RuleLoadError} when a rule of the pack does not compile (a pack built by hand).
 * @example
 * ```ts
 * const replay = await replayRules({ pack, events });
 * replay.rules.find((rule) => rule.ruleId === 'api-key-created'); // { matched: 2, alerts: 2, ... }
 * ```
 */
export async function replayRules(options: ReplayRulesOptions): Promise<RuleReplay> {
  const { pack, events } = options;
  const alerting = createRuleEngine({ pack, counters: new MemoryCounterStore() });
  const matching = createRuleEngine({ pack: withoutState(pack), counters: new MemoryCounterStore() });
  const counts = new Map<string, RuleReplayCount>();
  for (const { spec } of pack.rules) {
    counts.set(spec.id, {
      ruleId: spec.id,
      severity: spec.severity,
      enabled: spec.enabled !== false,
      matched: 0,
      alerts: 0,
    });
  }
  const bySeverity = emptySeverityCounts();
  const alertsByEvent = new Map<number, ReplayedAlert[]>();
  const failures: ReplayFailure[] = [];
  let alertCount = 0;
  for (const [index, event] of events.entries()) {
    const matches = await evaluateOne(matching, event);
    const alerts = await evaluateOne(alerting, event);
    const failure = matches.error ?? alerts.error;
    if (failure !== undefined) failures.push({ index, message: messageOf(failure) });
    for (const match of matches.alerts) {
      const count = counts.get(match.ruleId);
      if (count !== undefined) count.matched += 1;
    }
    if (alerts.alerts.length === 0) continue;
    const replayed = alerts.alerts.map(
      (alert): ReplayedAlert => ({
        ruleId: alert.ruleId,
        severity: alert.severity,
        title: alert.title,
        fingerprint: alert.fingerprint,
      }),
    );
    for (const alert of replayed) {
      const count = counts.get(alert.ruleId);
      if (count !== undefined) count.alerts += 1;
      bySeverity[alert.severity] += 1;
      alertCount += 1;
    }
    alertsByEvent.set(index, replayed);
  }
  return {
    events: events.length,
    rules: [...counts.values()],
    alerts: alertCount,
    bySeverity,
    alertsByEvent,
    failures,
  };
}

/**
 * A count of 0 for every severity.
 *
 * @example
 * ```ts
 * emptySeverityCounts().critical; // 0
 * ```
 */
export function emptySeverityCounts(): SeverityCounts {
  return Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as SeverityCounts;
}

async function evaluateOne(
  engine: RuleEngine,
  event: AtlasEvent,
): Promise<{ alerts: Awaited<ReturnType<RuleEngine['evaluate']>>; error?: unknown }> {
  // A rule that throws skips this event alone, as in a tick: the other rules still see it.
  const failures: unknown[] = [];
  try {
    const alerts = await engine.evaluate([event], {
      onRuleError: (failure) => failures.push(failure.cause ?? failure),
    });
    return failures.length === 0 ? { alerts } : { alerts, error: failures[0] };
  } catch (error) {
    return { alerts: [], error };
  }
}

/** The pack with every rule stateless: each event a rule's match accepts raises one alert. */
function withoutState(pack: RulePack): RulePack {
  return {
    ...pack,
    rules: pack.rules.map((rule) => {
      // Its tests go too: a first-seen rule's `seen:` events would not compile without `first_seen`.
      const {
        threshold: _threshold,
        suppress: _suppress,
        first_seen: _firstSeen,
        tests: _tests,
        ...spec
      } = rule.spec;
      return { ...rule, spec };
    }),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
