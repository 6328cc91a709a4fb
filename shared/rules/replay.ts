import type { AtlasEvent } from '../atlas/types.js';
import { type Alert, SEVERITIES, type Severity } from '../notify/alert.js';
import { createRuleEngine, type RuleEngine, ruleEventId } from './engine.js';
import type { RuleEvaluationError } from './errors.js';
import type { FirstSeenStore } from './first-seen-store.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import type { RulePack } from './rule-pack.js';

/** What one rule of a pack did over a replay. */
export interface RuleReplayCount {
  ruleId: string;
  severity: Severity;
  enabled: boolean;
  /**
   * Events the rule's match accepted, before threshold, distinct count and suppression decide whether
   * they alert;
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

/** Events per evaluation: a page of the Atlas events API, as a tick evaluates them. */
const REPLAY_BATCH = 500;

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
  /** Where first-seen rules keep the values they saw: a fresh one in memory by default. */
  firstSeen?: FirstSeenStore | undefined;
}

/**
 * Evaluates a pack over events as a poll tick would, with state kept in memory only: threshold,
 * distinct-count and suppression rules count from nothing and use each event's `created` as their clock. First-seen rules
 * start as if deployed at the first replayed event: they learn for their `learning` period, and a
 * value seen earlier in the replay is known. Events are evaluated a page (500) at a time, as a tick
 * evaluates them, so state is read and written once a page, not once an event. Counts, per rule, the
 * events its match accepts and the alerts it raises, and keeps the alerts of each event (the newest
 * event an alert carries, the one that raised it) for {@link compareReplays}. An event that makes a
 * rule throw is recorded in `failures` with the first such error; the other rules and events go on.
 *
 * Matches are counted by a second engine over the same rules without `threshold`, `suppress`,
 * `first_seen`, `distinct_count` and `sequence`, which alerts once for every event a rule's match
 * accepts (a sequence rule's later step: its earlier step's events are not its matches).
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
  const alerting = createRuleEngine({
    pack,
    counters: new MemoryCounterStore(),
    firstSeen: options.firstSeen,
  });
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
  const failed = new Map<number, string>();
  const positions = new Map<AtlasEvent, number>(events.map((event, index) => [event, index]));
  let alertCount = 0;
  for (let start = 0; start < events.length; start += REPLAY_BATCH) {
    const batch = events.slice(start, start + REPLAY_BATCH);
    const matches = await evaluateBatch(matching, batch, start, positions, failed);
    const alerts = await evaluateBatch(alerting, batch, start, positions, failed);
    for (const match of matches.values()) {
      for (const alert of match) {
        const count = counts.get(alert.ruleId);
        if (count !== undefined) count.matched += 1;
      }
    }
    for (const [index, raised] of alerts) {
      const replayed = raised.map(
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
  }
  const failures = [...failed]
    .sort(([a], [b]) => a - b)
    .map(([index, message]): ReplayFailure => ({ index, message }));
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

/**
 * Evaluates a batch, as a tick evaluates a page, and gives the alerts of each event by its position:
 * an alert belongs to the newest of its events, the one that raised it (a threshold alert carries its
 * window's events, oldest first; a distinct-count alert the first event of each value, oldest first).
 * A rule that throws skips that event alone, as in a tick; its first failure is kept for the event,
 * unless an earlier one is.
 */
async function evaluateBatch(
  engine: RuleEngine,
  batch: readonly AtlasEvent[],
  start: number,
  positions: ReadonlyMap<AtlasEvent, number>,
  failed: Map<number, string>,
): Promise<Map<number, Alert[]>> {
  const byEvent = new Map<number, Alert[]>();
  let ids: Map<string, number> | undefined;
  const positionOf = (failure: RuleEvaluationError): number => {
    if (failure.eventId === undefined) {
      const index = batch.findIndex((event) => typeof event !== 'object' || event === null);
      return start + Math.max(0, index);
    }
    if (ids === undefined) {
      ids = new Map();
      batch.forEach((event, index) => {
        if (typeof event !== 'object' || event === null) return;
        const id = ruleEventId(event);
        if (!ids?.has(id)) ids?.set(id, start + index);
      });
    }
    return ids.get(failure.eventId) ?? start;
  };
  const fail = (index: number, error: unknown): void => {
    if (!failed.has(index)) failed.set(index, messageOf(error));
  };
  let alerts: Alert[];
  try {
    alerts = await engine.evaluate(batch, {
      onRuleError: (failure) => fail(positionOf(failure), failure.cause ?? failure),
    });
  } catch (error) {
    // In memory only a pack built by hand can fail a whole batch: each of its events failed.
    for (let index = 0; index < batch.length; index++) fail(start + index, error);
    return byEvent;
  }
  for (const alert of alerts) {
    const trigger = alert.events[alert.events.length - 1];
    const index = (trigger === undefined ? undefined : positions.get(trigger)) ?? start;
    const list = byEvent.get(index);
    if (list === undefined) byEvent.set(index, [alert]);
    else list.push(alert);
  }
  return byEvent;
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
        distinct_count: _distinctCount,
        sequence: _sequence,
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
