import { hash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert, AlertRulePack } from '../notify/alert.js';
import { type AlertContext, namedIds, templateValues } from '../notify/alert-context.js';
import type { CounterIncrement, CounterStore, SuppressionIncrement } from './counter-store.js';
import { DistinctWindows } from './distinct-count.js';
import { type FirstSeenStateError, RuleEvaluationError, RuleStateError } from './errors.js';
import { parseEventTime } from './event-time.js';
import { eventTypeWords } from './event-words.js';
import type { FirstSeenStore } from './first-seen-store.js';
import { createFirstSeenTracker, type FirstSeenCandidate } from './first-seen-tracker.js';
import { MemoryFirstSeenStore } from './memory-first-seen-store.js';
import { compileRulePack } from './pack-compiler.js';
import type { CompiledRule } from './rule-compiler.js';
import type { RulePack } from './rule-pack.js';
import { type SequenceSighting, SequenceTracker } from './sequence.js';
import type { RollUp, SuppressionAnswer } from './suppression-roll-up.js';
import type { TemplateContext } from './template.js';

export interface RuleEngineOptions {
  readonly pack: RulePack;
  /** Where threshold, distinct-count and suppression rules count; only they touch it. */
  readonly counters: CounterStore;
  readonly logger?: Logger | undefined;
  /**
   * Gives `raisedAt` to alerts on events whose `created` cannot be read; without it they get 0.
   * Every other time the engine uses is an event's `created`.
   */
  readonly clock?: Clock | undefined;
  /**
   * Evaluate only these rules, enabled or not (the inline tests use it). By default every enabled rule
   * of the pack is evaluated.
   */
  readonly ruleIds?: readonly string[] | undefined;
  /**
   * Where first-seen rules keep the values they saw, and sequence rules their groups' earlier events;
   * in memory (this engine only) when absent.
   */
  readonly firstSeen?: FirstSeenStore | undefined;
  /**
   * `false` skips first-seen rules' learning period (the inline tests, which say what was seen
   * before). Default `true`: a rule learns from its first evaluation (the clock's now, or without a
   * clock the first event's time) for its `learning` period.
   */
  readonly firstSeenLearning?: boolean | undefined;
}

/** Options of one {@link RuleEngine.evaluate} call. */
export interface EvaluateOptions {
  /**
   * Told of each rule that throws on an event and of each event that cannot be evaluated (see
   * {@link RuleEvaluationError}); the evaluation goes on either way. Without it, the engine logs each
   * failure as a warning.
   */
  readonly onRuleError?: ((failure: RuleEvaluationError) => void) | undefined;
  /**
   * Told of each first-seen record the store did not keep (see {@link FirstSeenStateError}): that
   * group's events raise no first-seen alert this time, and everything else goes on. Without it, the
   * engine logs each failure as a warning.
   */
  readonly onStateError?: ((failure: FirstSeenStateError) => void) | undefined;
  /**
   * What the caller knows about the event an alert is raised on (names, the key's details): called
   * once per alert, never for an event that raises none. Its result is on the alert as `context`, and
   * templates read it (`{{context.projectName}}`; in titles `{{groupId}}` and `{{orgId}}` show the
   * name). It must not throw; if it does, the alert goes without context.
   */
  readonly describe?: ((event: AtlasEvent) => Promise<AlertContext | undefined>) | undefined;
}

/** Evaluates batches of events against compiled rules. */
export interface RuleEngine {
  /** Ids of the rules evaluated, in order. */
  readonly ruleIds: readonly string[];
  /**
   * Evaluates events in the order given and returns the alerts they raise, in that order (for each
   * event, in rule order). Stateless rules run synchronously; threshold and suppression rules count in
   * the counter store (all the batch's matches in one or two calls), keyed by event time, so evaluating
   * the same events again counts nothing twice and yields alerts with the same fingerprints.
   *
   * A rule that throws on an event skips that event alone: the other rules still evaluate it, the
   * later events are evaluated as usual, and the failure goes to `options.onRuleError` (or the log).
   * So does an event that is not an object.
   *
   * A first-seen record the store does not keep costs its own group's judgement alone: it goes to
   * `options.onStateError` (or the log).
   *
   * @throws {RuleStateError} when the counter store fails, or the first-seen store cannot be reached:
   *   no alert of the batch is returned, and the caller evaluates the batch again later.
   */
  evaluate(events: readonly AtlasEvent[], options?: EvaluateOptions): Promise<Alert[]>;
  /**
   * Whether {@link evaluate} could do anything with the event: some rule's event types and conditions
   * match it, or it cannot tell (the event is not an object, or a rule's conditions throw on it, which
   * evaluation reports). Stateless and cheap: it reads no state and counts nothing, and an event for
   * which it is false raises no alert and counts toward no rule, whatever the other events. A poll
   * holds whole only the events for which it is true.
   */
  mayAlert(event: unknown): boolean;
}

/** Threshold windows whose events the engine keeps for the alert, at most `count` each. */
interface WindowEvents {
  expiresAt: number;
  /** Oldest first, by time then id. */
  entries: { time: number; id: string; event: AtlasEvent }[];
}

/**
 * A suppression key this engine saw the store start a period for: until `liveUntil` the period's
 * alerting occurrence is `occurrence`, so the store's answer for a match of the group is known without
 * asking it (that occurrence alerts again with what it carried; any other occurrence is a repeat,
 * which the store only counts).
 */
interface KnownSuppression {
  occurrence: string;
  liveUntil: number;
  /** What the occurrence's alert carried. */
  rollUp: RollUp | undefined;
  /** The period before, when this engine saw it: its occurrence alerts again too (a re-read). */
  previous: { occurrence: string; rollUp: RollUp | undefined } | undefined;
}

/**
 * A stateful rule's match on an event, whose alert waits on the counter store: the engine counts all
 * the matches of a batch at once, threshold windows first, then the suppressions they and the
 * suppressed rules ask for.
 */
interface StatefulMatch {
  rule: CompiledRule;
  event: AtlasEvent;
  eventId: string;
  time: number;
  groupKey: string;
  /** The key its occurrences are suppressed and rolled up by (`groupKey` unless the rule names one). */
  suppressKey: string;
  /** The value a distinct-count rule counts for the event; `undefined` for other rules. */
  value: string | undefined;
  /** `event:<id>`, or `window:<start>` once a threshold or distinct-count window is full. */
  occurrence: string;
  /** The events the alert carries. */
  events: AtlasEvent[];
  /** When the occurrence began: the event's time, or its window's start. */
  createdAt: number;
  /** Whether it alerts; `undefined` while the store has not answered. */
  alerts: boolean | undefined;
  /** For a suppressed rule's match that alerts: the previous period's suppressed occurrences. */
  rollUp?: RollUp | undefined;
}

/** A sequence rule's match on an event, waiting for the batch's earlier events to be read. */
interface SequenceCandidate {
  rule: CompiledRule;
  event: AtlasEvent;
  groupKey: string;
  time: number;
  sighting: SequenceSighting;
}

/** What templates read besides the event when the caller knows nothing more of it. */
/**
 * What templates read of an alert whose event no one described (the CLI, replay, tests): only the
 * event type in words, one frozen object per event type rather than one per alert.
 */
function bareRendering(eventWords: string | undefined): TemplateContext {
  const key = eventWords ?? '';
  let known = BARE_RENDERINGS.get(key);
  if (known === undefined) {
    if (BARE_RENDERINGS.size >= MAX_BARE_RENDERINGS) BARE_RENDERINGS.clear();
    known = Object.freeze({ values: Object.freeze(eventWords === undefined ? {} : { eventWords }) });
    BARE_RENDERINGS.set(key, known);
  }
  return known;
}
const BARE_RENDERINGS = new Map<string, TemplateContext>();
const MAX_BARE_RENDERINGS = 1_024;

/** A title without the runs of spaces an empty placeholder leaves. */
function collapseSpaces(title: string): string {
  return title.includes('  ') ? title.replace(/ {2,}/g, ' ').trim() : title.trim();
}

/** Keys longer than this are hashed, so a long group value cannot exceed a store's key size. */
const MAX_KEY_PART = 256;
/** Past this many remembered windows or suppressions, expired ones are dropped after each batch. */
const WINDOW_MEMORY_PRUNE_AT = 1024;

/**
 * Compiles a pack into an engine: each rule becomes closures once, and rules are indexed by the
 * `eventTypeName` values their match requires, so an event only meets the rules that can match it.
 *
 * Stateful rules use event time (`created`) as their clock. A threshold rule counts distinct events
 * per group in tumbling windows aligned to the window length (`rule|group|windowStart`, limit `count`)
 * and alerts when the count reaches `count` exactly: once per window. A suppressed rule alerts for the
 * first event of a group and then not again until `suppress` has passed from that first event (key
 * `suppress|rule|group`, the group being the rule's roll-up key when it names one: see
 * `CounterStore.suppressMany`); a threshold rule with `suppress` treats each full window as such an
 * event.
 * A distinct-count rule counts the distinct values of its field per group in the same windows
 * (`distinct|rule|group|windowStart`, the values as members, limit `count`) and alerts once per window,
 * for the event whose value brings the count to `count` (see `DistinctWindows`); with `suppress`, a
 * full window is such an event too.
 * A sequence rule alerts for each event of its match that follows at least `count` events (default 1)
 * of its `after` step of the same group by less than its window, in (time, id) order, carrying the
 * earlier events (see `SequenceTracker`, which keeps them in the first-seen store); fingerprint: rule,
 * group and the event.
 * Events whose `created` cannot be read never count toward a stateful rule.
 *
 * The stateful matches of one `evaluate` call are counted together: once for the threshold windows
 * (the counter store's `incrementMany`), then once for the suppressions (`suppressMany`: the matches
 * of suppressed rules, and the full windows of threshold rules with `suppress`). The store applies
 * each key's increments in order, so every match gets the answer a call per match would have given,
 * and a persistent store reads and writes each key once per batch rather than once per event.
 *
 * Roll-ups: the store counts each suppressed occurrence once (by id, so a batch read again counts
 * nothing twice) in its period's roll-up, and the occurrence that starts the group's next period
 * alerts carrying it (`Alert.rollUp`: how many, the first and last event time). A group whose
 * period this engine saw the store start is answered here until the period ends (see
 * `KnownSuppression`), without a pending match; its repeats still go to the store, in the batch's
 * one call, since the store alone holds the roll-up, which other processes add to.
 *
 * A threshold alert carries the window's events this engine instance has seen (at least the one that
 * reached the count): earlier events of the window may have been counted by another process.
 *
 * Fingerprints: `<rule id>:<event id>` for a stateless rule; for a stateful one, the rule id and a
 * hash of the group key with the window start (thresholds) or the first event's id or window
 * (suppression). An event without an `id` is identified by a hash of its content.
 *
 * @throws {RuleLoadError} when a rule it evaluates does not compile (a pack built by hand).
 * @example
 * ```ts
 * const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
 * const alerts = await engine.evaluate(events);
 * ```
 */
export function createRuleEngine(options: RuleEngineOptions): RuleEngine {
  const { pack, counters } = options;
  const logger = options.logger ?? silentLogger;
  const wanted = new Set(
    options.ruleIds ?? pack.rules.filter(({ spec }) => spec.enabled !== false).map(({ spec }) => spec.id),
  );
  const rules = compileRulePack({ pack, ruleIds: wanted });

  const anyType = rules.filter((rule) => rule.eventTypes === undefined);
  const byType = new Map<string, CompiledRule[]>();
  for (const rule of rules) {
    for (const type of rule.eventTypes ?? []) {
      if (!byType.has(type)) byType.set(type, []);
    }
  }
  for (const [type, bucket] of byType) {
    for (const rule of rules)
      if (rule.eventTypes === undefined || rule.eventTypes.has(type)) bucket.push(rule);
  }
  const candidatesFor = (event: AtlasEvent): readonly CompiledRule[] => {
    const type = event.eventTypeName;
    return (typeof type === 'string' ? byType.get(type) : undefined) ?? anyType;
  };
  const provenance = new Map<string, AlertRulePack>(
    pack.rules.map(({ spec, layers }) => [
      spec.id,
      pack.version === undefined ? { layers } : { version: pack.version, layers },
    ]),
  );
  const windows = new Map<string, WindowEvents>();
  const distinctWindows = new DistinctWindows();
  const firstSeenStore = options.firstSeen ?? new MemoryFirstSeenStore();
  const firstSeen = createFirstSeenTracker({
    store: firstSeenStore,
    clock: options.clock,
    learning: options.firstSeenLearning,
  });
  const sequenceRules = rules.filter((rule) => rule.sequence !== undefined);
  const sequences = new SequenceTracker(firstSeenStore);
  // By suppressed rule, then roll-up key: the periods this engine saw the store start.
  const suppressions = new Map<CompiledRule, Map<string, KnownSuppression>>();
  /** Remembers the period a match started, and the one before it when this engine knew it. */
  const rememberPeriod = (match: StatefulMatch): void => {
    let known = suppressions.get(match.rule);
    if (known === undefined) {
      known = new Map();
      suppressions.set(match.rule, known);
    }
    const before = known.get(match.suppressKey);
    if (before?.occurrence === match.occurrence) return;
    known.set(match.suppressKey, {
      occurrence: match.occurrence,
      liveUntil: match.createdAt + (match.rule.suppressMs ?? 0),
      rollUp: match.rollUp,
      previous: before === undefined ? undefined : { occurrence: before.occurrence, rollUp: before.rollUp },
    });
  };

  /**
   * The sequence rules whose earlier step `event` matches (and that it carries the group of); throws
   * what a rule's match throws, after `report`ing it, for `mayAlert`'s sake when `report` is absent.
   */
  const earlierSteps = (
    event: AtlasEvent,
    report: ((failure: RuleEvaluationError) => void) | undefined,
  ): CompiledRule[] => {
    const steps: CompiledRule[] = [];
    const type = event.eventTypeName;
    for (let at = 0; at < sequenceRules.length; at++) {
      const rule = sequenceRules[at] as CompiledRule;
      const sequence = rule.sequence as NonNullable<CompiledRule['sequence']>;
      if (sequence.afterTypes !== undefined && !(typeof type === 'string' && sequence.afterTypes.has(type))) {
        continue;
      }
      try {
        if (sequence.after(event) && sequence.grouped(event)) steps.push(rule);
      } catch (error) {
        if (report === undefined) throw error;
        report(evaluationError(rule, event, error));
      }
    }
    return steps;
  };

  /** What the caller knows of an alert's event; never throws (an alert then goes without it). */
  const contextOf = async (
    rule: CompiledRule,
    trigger: AtlasEvent,
    describe: NonNullable<EvaluateOptions['describe']>,
  ): Promise<AlertContext | undefined> => {
    try {
      return await describe(trigger);
    } catch (error) {
      logger.warn('Could not describe the event of an alert: it goes without names or key details', {
        ruleId: rule.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  };

  // Synchronous: an evaluation without `describe` (the CLI, replay, tests) awaits nothing per alert.
  const alertFor = (
    rule: CompiledRule,
    trigger: AtlasEvent,
    events: readonly AtlasEvent[],
    groupKey: string,
    fingerprint: string,
    raisedAt: number | undefined,
    context: AlertContext | undefined,
    rollUp?: RollUp | undefined,
  ): Alert => {
    const eventWords = eventTypeWords(trigger.eventTypeName);
    // A title shows a described event's ids by name; its summary keeps the ids themselves.
    let title: TemplateContext;
    let summary: TemplateContext;
    if (context === undefined) title = summary = bareRendering(eventWords);
    else {
      const values = templateValues(context);
      if (eventWords !== undefined) values.eventWords = eventWords;
      title = { values, namedIds: namedIds(context) };
      summary = { values };
    }
    const alert: Alert = {
      ruleId: rule.id,
      ruleName: rule.name,
      severity: rule.severity,
      // A placeholder with nothing to show leaves no double space: `Service account {{context.serviceAccountName}} created`.
      title: collapseSpaces(rule.title.render(trigger, title)),
      summary: rule.summary.render(trigger, summary),
      tags: rule.tags,
      events,
      groupKey,
      fingerprint,
      allowMentions: rule.allowMentions,
      raisedAt: raisedAt ?? options.clock?.now() ?? 0,
    };
    if (rule.runbook !== undefined) alert.runbook = rule.runbook;
    if (context !== undefined) alert.context = context;
    if (rollUp !== undefined) alert.rollUp = rollUp;
    const rulePack = provenance.get(rule.id);
    if (rulePack !== undefined) alert.rulePack = rulePack;
    return alert;
  };

  /** Increments the counters in one call to the store; a failure names the rules that asked. */
  const countAll = async (
    matches: readonly StatefulMatch[],
    increments: readonly CounterIncrement[],
  ): Promise<number[]> => {
    if (increments.length === 0) return [];
    try {
      return await counters.incrementMany(increments);
    } catch (error) {
      throw stateError(
        matches.map((match) => match.rule.id),
        increments.map((increment) => increment.key),
        error,
      );
    }
  };

  /**
   * Counts the matches of threshold and distinct-count rules toward their windows, in order, in one
   * call to the store: a match that fills its window becomes the window's occurrence, with the
   * window's events; the others do not alert.
   */
  const countTowardThresholds = async (matches: readonly StatefulMatch[]): Promise<void> => {
    const counting: StatefulMatch[] = [];
    const increments: CounterIncrement[] = [];
    for (let at = 0; at < matches.length; at++) {
      const match = matches[at] as StatefulMatch;
      const { rule } = match;
      const windowed = rule.threshold ?? rule.distinctCount;
      if (windowed === undefined) continue;
      const windowStart = Math.floor(match.time / windowed.windowMs) * windowed.windowMs;
      const distinct = match.value !== undefined;
      counting.push(match);
      increments.push({
        key: `${distinct ? 'distinct' : 'threshold'}|${rule.id}|${keyPart(match.groupKey)}|${windowStart}`,
        member: match.value ?? match.eventId,
        now: match.time,
        expiresAt: windowStart + windowed.windowMs,
        limit: windowed.count,
      });
    }
    const counted = await countAll(counting, increments);
    for (let at = 0; at < counting.length; at++) {
      const match = counting[at] as StatefulMatch;
      const { count, windowMs } = (match.rule.threshold ?? match.rule.distinctCount) as {
        count: number;
        windowMs: number;
      };
      const increment = increments[at] as CounterIncrement;
      const windowStart = increment.expiresAt - windowMs;
      let events: AtlasEvent[] | undefined;
      if (match.value === undefined) {
        const window = rememberWindowEvent(
          windows,
          increment.key,
          increment.expiresAt,
          { time: match.time, id: match.eventId, event: match.event },
          count,
        );
        if (counted[at] === count) events = window.entries.map((entry) => entry.event);
      } else {
        const judgement = distinctWindows.judge({
          key: increment.key,
          windowEnd: increment.expiresAt,
          count,
          answer: counted[at] ?? 0,
          value: match.value,
          eventId: match.eventId,
          time: match.time,
          event: match.event,
        });
        if (judgement.alerts) events = [...judgement.events];
      }
      if (events === undefined) {
        match.alerts = false;
        continue;
      }
      match.occurrence = `window:${windowStart}`;
      match.events = events;
      match.createdAt = windowStart;
    }
  };

  /**
   * What this engine knows of a match of a suppressed rule (see `KnownSuppression`): `true` for the
   * occurrence its period alerts for (or the period before's, read again), with what it carried;
   * `false` for a repeat; `undefined` when only the store can tell.
   */
  const knownAnswer = (
    rule: CompiledRule,
    suppressKey: string,
    occurrence: string,
    time: number,
  ): { alerts: boolean; rollUp?: RollUp | undefined } | undefined => {
    const known = suppressions.get(rule)?.get(suppressKey);
    if (known === undefined || time >= known.liveUntil) return undefined;
    if (known.occurrence === occurrence) return { alerts: true, rollUp: known.rollUp };
    if (known.previous?.occurrence === occurrence) return { alerts: true, rollUp: known.previous.rollUp };
    return REPEAT;
  };

  /** Decides and counts occurrences in the store, in one call; a failure names the rules that asked. */
  const suppressAll = async (steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]> => {
    try {
      return await counters.suppressMany(steps);
    } catch (error) {
      throw stateError(
        steps.map((step) => step.key.split('|')[1] ?? step.key),
        steps.map((step) => step.key),
        error,
      );
    }
  };

  /**
   * Decides the matches of suppressed rules still undecided, in order: from what this engine knows
   * when it can, else by asking the store whether each occurrence is its period's first (which
   * alerts, carrying the previous period's roll-up). Once a group is asked about, its later matches
   * in the batch are asked about too, so each answer is the one a call per match would have given.
   * One call to the store carries the questions and every repeat of the batch (`repeats`: those
   * `evaluate` decided, then those decided here), which the store counts in their periods' roll-ups;
   * a group's repeats all come before its first question. `asked` holds, by rule, the roll-up keys
   * asked about in this batch.
   */
  const decideSuppressions = async (
    matches: readonly StatefulMatch[],
    asked: Map<CompiledRule, Set<string>>,
    repeats: SuppressionIncrement[],
  ): Promise<void> => {
    const asking: StatefulMatch[] = [];
    const questions: SuppressionIncrement[] = [];
    for (let at = 0; at < matches.length; at++) {
      const match = matches[at] as StatefulMatch;
      const { rule, suppressKey, occurrence, time } = match;
      const suppressMs = rule.suppressMs;
      if (suppressMs === undefined || match.alerts !== undefined) continue;
      const askedGroups = asked.get(rule);
      const known =
        askedGroups?.has(suppressKey) === true ? undefined : knownAnswer(rule, suppressKey, occurrence, time);
      const key = `suppress|${rule.id}|${keyPart(suppressKey)}`;
      const step = { key, member: occurrence, now: time, expiresAt: time + suppressMs };
      if (known !== undefined) {
        match.alerts = known.alerts;
        if (known.alerts) match.rollUp = known.rollUp;
        else repeats.push(step);
        continue;
      }
      if (askedGroups === undefined) asked.set(rule, new Set([suppressKey]));
      else askedGroups.add(suppressKey);
      asking.push(match);
      questions.push(step);
    }
    if (questions.length === 0 && repeats.length === 0) return;
    const answers = await suppressAll(repeats.length === 0 ? questions : [...repeats, ...questions]);
    for (let at = 0; at < asking.length; at++) {
      const match = asking[at] as StatefulMatch;
      const answer = answers[repeats.length + at];
      match.alerts = answer?.alerts === true;
      if (!match.alerts) continue;
      match.rollUp = answer?.rollUp;
      rememberPeriod(match);
    }
  };

  return {
    ruleIds: rules.map((rule) => rule.id),
    mayAlert(event) {
      if (typeof event !== 'object' || event === null) return true;
      for (const rule of candidatesFor(event as AtlasEvent)) {
        try {
          if (ruleMatches(rule, event as AtlasEvent)) return true;
        } catch {
          return true;
        }
      }
      if (sequenceRules.length === 0) return false;
      try {
        return earlierSteps(event as AtlasEvent, undefined).length > 0;
      } catch {
        return true;
      }
    },
    async evaluate(events, evaluateOptions) {
      const describe = evaluateOptions?.describe;
      const report =
        evaluateOptions?.onRuleError ??
        ((failure: RuleEvaluationError) =>
          logger.warn(failure.message, {
            errorCode: failure.code,
            ruleId: failure.ruleId,
            eventId: failure.eventId,
          }));
      // Stateless alerts at once; stateful matches wait for the counters, and first-seen ones for
      // their store, in place, so the alerts come out in event order whatever decides them.
      const raised: Array<Alert | StatefulMatch | FirstSeenCandidate | SequenceCandidate> = [];
      const sightings: SequenceSighting[] = [];
      const stateful: StatefulMatch[] = [];
      const firstSeenCandidates: FirstSeenCandidate[] = [];
      // By suppressed rule, the roll-up keys whose matches the store decides this batch.
      const askedSuppressions = new Map<CompiledRule, Set<string>>();
      // Repeats this engine decided: the store counts them in their periods' roll-ups.
      const repeats: SuppressionIncrement[] = [];
      let latest = Number.NEGATIVE_INFINITY;
      // Indexed loops: an async function's `for...of` allocates an iterator result per step.
      for (let at = 0; at < events.length; at++) {
        const event = events[at] as AtlasEvent;
        if (typeof event !== 'object' || event === null) {
          report(
            new RuleEvaluationError(
              `An event that is not an object (${event === null ? 'null' : typeof event}) cannot be evaluated: it was skipped`,
              {},
            ),
          );
          continue;
        }
        // Read once per event, and only for an event that some rule matches.
        let time: number | undefined | null = null;
        if (sequenceRules.length > 0) {
          const steps = earlierSteps(event, report);
          if (steps.length > 0) time = parseEventTime(event.created);
          for (const rule of steps) {
            if (time === undefined || time === null) {
              logger.warn('Event has no readable created time: it does not count toward a stateful rule', {
                ruleId: rule.id,
                eventId: ruleEventId(event),
              });
              continue;
            }
            sightings.push({
              ruleId: rule.id,
              sequence: rule.sequence as NonNullable<CompiledRule['sequence']>,
              step: 'earlier',
              groupKey: rule.groupKey(event),
              eventId: ruleEventId(event),
              time,
              event,
            });
          }
        }
        const candidates = candidatesFor(event);
        for (let index = 0; index < candidates.length; index++) {
          const rule = candidates[index] as CompiledRule;
          // A rule that throws on this event skips it alone; a failing counter store fails the batch.
          try {
            if (!ruleMatches(rule, event)) continue;
            if (time === null) time = parseEventTime(event.created);
            const eventId = ruleEventId(event);
            const { threshold, suppressMs, distinctCount } = rule;
            if (rule.firstSeen !== undefined) {
              const value = rule.firstSeen.valueOf(event);
              if (value === undefined) continue;
              if (time === undefined) {
                logger.warn('Event has no readable created time: it does not count toward a stateful rule', {
                  ruleId: rule.id,
                  eventId,
                });
                continue;
              }
              const candidate: FirstSeenCandidate = {
                rule,
                firstSeen: rule.firstSeen,
                event,
                eventId,
                time,
                groupKey: rule.groupKey(event),
                value,
              };
              firstSeenCandidates.push(candidate);
              raised.push(candidate);
              continue;
            }
            if (rule.sequence !== undefined) {
              if (!rule.sequence.grouped(event)) continue;
              if (time === undefined) {
                logger.warn('Event has no readable created time: it does not count toward a stateful rule', {
                  ruleId: rule.id,
                  eventId,
                });
                continue;
              }
              const groupKey = rule.groupKey(event);
              const sighting: SequenceSighting = {
                ruleId: rule.id,
                sequence: rule.sequence,
                step: 'later',
                groupKey,
                eventId,
                time,
                event,
              };
              sightings.push(sighting);
              raised.push({ rule, event, groupKey, time, sighting });
              continue;
            }
            // A distinct-count rule counts only events that carry its field and group.
            const value = distinctCount?.valueOf(event);
            if (distinctCount !== undefined && value === undefined) continue;
            if (threshold === undefined && suppressMs === undefined && distinctCount === undefined) {
              const context = describe === undefined ? undefined : await contextOf(rule, event, describe);
              raised.push(
                alertFor(rule, event, [event], rule.groupKey(event), `${rule.id}:${eventId}`, time, context),
              );
              continue;
            }
            if (time === undefined) {
              logger.warn('Event has no readable created time: it does not count toward a stateful rule', {
                ruleId: rule.id,
                eventId,
              });
              continue;
            }
            if (time > latest) latest = time;
            const groupKey = rule.groupKey(event);
            const suppressKey = rule.suppressKey === undefined ? groupKey : rule.suppressKey(event);
            const occurrence = `${EVENT_OCCURRENCE}${eventId}`;
            // A suppressed rule's match this engine knows the answer for is decided here, as
            // decideSuppressions would decide it: a repeat of a noisy group ends here, held for the
            // store's roll-up, without a pending match.
            let alerts: boolean | undefined;
            let rollUp: RollUp | undefined;
            if (threshold === undefined && distinctCount === undefined) {
              const asked = askedSuppressions.get(rule);
              const known =
                asked?.has(suppressKey) === true
                  ? undefined
                  : knownAnswer(rule, suppressKey, occurrence, time);
              if (known === REPEAT) {
                repeats.push({
                  key: `suppress|${rule.id}|${keyPart(suppressKey)}`,
                  member: occurrence,
                  now: time,
                  expiresAt: time + (suppressMs as number),
                });
                continue;
              }
              if (known !== undefined) {
                alerts = true;
                rollUp = known.rollUp;
              } else if (asked === undefined) askedSuppressions.set(rule, new Set([suppressKey]));
              else asked.add(suppressKey);
            }
            const match: StatefulMatch = {
              rule,
              event,
              eventId,
              time,
              groupKey,
              suppressKey,
              value,
              occurrence,
              events: [event],
              // A window's trigger time may differ between readings, but lies within the window.
              createdAt: time,
              alerts,
              rollUp,
            };
            stateful.push(match);
            raised.push(match);
          } catch (error) {
            report(evaluationError(rule, event, error));
          }
        }
      }
      if (stateful.length > 0) await countTowardThresholds(stateful);
      if (stateful.length > 0 || repeats.length > 0)
        await decideSuppressions(stateful, askedSuppressions, repeats);
      // First-seen rules read the whole batch's state in one go.
      const resolution = await firstSeen.resolve(firstSeenCandidates);
      const fresh = new Set(resolution.fresh);
      const reportState =
        evaluateOptions?.onStateError ??
        ((failure: FirstSeenStateError) =>
          logger.warn(failure.message, { errorCode: failure.code, ruleId: failure.ruleId }));
      for (const failure of resolution.failures) reportState(failure);
      const followed = await sequences.resolve(sightings);
      const alerts: Alert[] = [];
      for (let at = 0; at < raised.length; at++) {
        const entry = raised[at] as Alert | StatefulMatch | FirstSeenCandidate | SequenceCandidate;
        if (!('rule' in entry)) {
          alerts.push(entry);
          continue;
        }
        const { rule, event, groupKey, time } = entry;
        try {
          let occurrence: string;
          let events: readonly AtlasEvent[];
          let rollUp: RollUp | undefined;
          if ('sighting' in entry) {
            const earlier = followed.get(entry.sighting);
            if (earlier === undefined) continue;
            occurrence = `sequence:${entry.sighting.eventId}`;
            events = [...earlier, event];
          } else if ('firstSeen' in entry) {
            if (!fresh.has(entry)) continue;
            occurrence = `first-seen:${entry.value}:${entry.eventId}`;
            events = [event];
          } else {
            if (entry.alerts === false) continue;
            occurrence = entry.occurrence;
            events = entry.events;
            rollUp = entry.rollUp;
          }
          const fingerprint = hashedFingerprint(rule.id, groupKey, occurrence);
          const context = describe === undefined ? undefined : await contextOf(rule, event, describe);
          alerts.push(alertFor(rule, event, events, groupKey, fingerprint, time, context, rollUp));
        } catch (error) {
          report(evaluationError(rule, event, error));
        }
      }
      if (windows.size > WINDOW_MEMORY_PRUNE_AT) {
        for (const [key, window] of windows) if (window.expiresAt <= latest) windows.delete(key);
      }
      distinctWindows.forgetEnded(latest);
      for (const known of suppressions.values()) {
        if (known.size <= WINDOW_MEMORY_PRUNE_AT) continue;
        for (const [key, period] of known) if (period.liveUntil <= latest) known.delete(key);
      }
      return alerts;
    },
  };
}

/** The failure of `rule` on `event`, saying what was skipped and that the rest went on. */
function evaluationError(rule: CompiledRule, event: AtlasEvent, error: unknown): RuleEvaluationError {
  let eventId: string | undefined;
  try {
    eventId = ruleEventId(event);
  } catch {
    eventId = undefined;
  }
  const type = typeof event.eventTypeName === 'string' ? event.eventTypeName : 'no eventTypeName';
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new RuleEvaluationError(
    `Rule "${rule.id}" failed on event ${eventId ?? '(no readable id)'} (${type}) and skipped it; the other rules still evaluated it (${reason}). Check the rule's templates and group_by against this event`,
    { cause: error, ruleId: rule.id, eventId },
  );
}

/** The counter store's failure for a batch, naming the rules and keys it was counting. */
function stateError(ruleIds: readonly string[], keys: readonly string[], error: unknown): RuleStateError {
  const rules = [...new Set(ruleIds)];
  const named =
    rules.length === 1
      ? `rule "${rules[0]}"`
      : `rules ${rules
          .slice(0, 3)
          .map((id) => `"${id}"`)
          .join(', ')}${rules.length > 3 ? ` and ${rules.length - 3} more` : ''}`;
  const counted = keys.length === 1 ? `key ${keys[0]}` : `${keys.length} keys, such as ${keys[0]}`;
  return new RuleStateError(
    `The counter store failed for ${named} (${counted}): ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
    { cause: error },
  );
}

/** Whether the rule's anchor field is set on the event and its conditions match; throws what they throw. */
function ruleMatches(rule: CompiledRule, event: AtlasEvent): boolean {
  const anchor = rule.anchor;
  if (anchor !== undefined) {
    const value = (event as Record<string, unknown>)[anchor];
    if (value === undefined || value === null) return false;
  }
  return rule.matches(event);
}

/** Keeps the events of a threshold window for its alert, oldest first; returns the window. */
function rememberWindowEvent(
  windows: Map<string, WindowEvents>,
  key: string,
  expiresAt: number,
  entry: WindowEvents['entries'][number],
  count: number,
): WindowEvents {
  let window = windows.get(key);
  if (window === undefined) {
    window = { expiresAt, entries: [entry] };
    windows.set(key, window);
    return window;
  }
  const entries = window.entries;
  if (entries.length >= count) return window;
  // Events mostly come in time order: the new one is placed by a walk back from the newest.
  let at = entries.length;
  while (at > 0) {
    const known = entries[at - 1] as WindowEvents['entries'][number];
    if (known.id === entry.id) return window;
    if (known.time < entry.time || (known.time === entry.time && known.id < entry.id)) break;
    at--;
  }
  for (let before = 0; before < at; before++) {
    if ((entries[before] as WindowEvents['entries'][number]).id === entry.id) return window;
  }
  if (at === entries.length) entries.push(entry);
  else entries.splice(at, 0, entry);
  return window;
}

/**
 * The id the engine names an event by, in fingerprints and in {@link RuleEvaluationError.eventId}: its
 * `id`, or, for an event without one, a hash of its content.
 *
 * @example
 * ```ts
 * ruleEventId({ id: '5f4e3d2c1b0a998877665544' }); // '5f4e3d2c1b0a998877665544'
 * ```
 */
export function ruleEventId(event: AtlasEvent): string {
  const id = event.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number') return String(id);
  return `sha256:${hash('sha256', JSON.stringify(event) ?? '', 'hex').slice(0, 32)}`;
}

const EVENT_OCCURRENCE = 'event:';
/** The answer for a repeat: shared, as most answers of a noisy group are this one. */
const REPEAT = Object.freeze({ alerts: false });

function keyPart(text: string): string {
  return text.length <= MAX_KEY_PART ? text : `sha256:${hash('sha256', text, 'hex')}`;
}

/** A stateful rule's fingerprint: its parts can hold any text, so they are hashed together. */
function hashedFingerprint(ruleId: string, groupKey: string, occurrence: string): string {
  const digest = hash('sha256', JSON.stringify([ruleId, groupKey, occurrence]), 'hex');
  return `${ruleId}:${digest.slice(0, 32)}`;
}
