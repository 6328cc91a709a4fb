import { createHash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert, AlertRulePack } from '../notify/alert.js';
import { type AlertContext, namedIds, templateValues } from '../notify/alert-context.js';
import type { CompileProblem } from './conditions.js';
import type { CounterStore } from './counter-store.js';
import { RuleEvaluationError, RuleLoadError, RuleStateError } from './errors.js';
import { parseEventTime } from './event-time.js';
import { type CompiledRule, compileRule } from './rule-compiler.js';
import type { RulePack } from './rule-pack.js';

export interface RuleEngineOptions {
  readonly pack: RulePack;
  /** Where threshold and suppression rules count; only they touch it. */
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
   * the counter store, keyed by event time, so evaluating the same events again counts nothing twice
   * and yields alerts with the same fingerprints.
   *
   * A rule that throws on an event skips that event alone: the other rules still evaluate it, the
   * later events are evaluated as usual, and the failure goes to `options.onRuleError` (or the log).
   * So does an event that is not an object.
   *
   * @throws {RuleStateError} when the counter store fails: no alert of the batch is returned, and the
   *   caller evaluates the batch again later.
   */
  evaluate(events: readonly AtlasEvent[], options?: EvaluateOptions): Promise<Alert[]>;
}

/** Threshold windows whose events the engine keeps for the alert, at most `count` each. */
interface WindowEvents {
  expiresAt: number;
  /** Oldest first, by time then id. */
  entries: { time: number; id: string; event: AtlasEvent }[];
}

/**
 * A suppression key (per rule, per group key) this engine saw the store create: until `liveUntil` the
 * key is certainly live with this occurrence (`event:<id>` or `window:<start>`) as its only member,
 * so the store's answer is known without asking it (1 for that occurrence, 2 for any other), and
 * asking would change nothing: a live key keeps its member and its expiry.
 */
interface KnownSuppression {
  occurrence: string;
  liveUntil: number;
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
 * `rule|group`, limit 1); a threshold rule with `suppress` treats each full window as such an event.
 * Events whose `created` cannot be read never count toward a stateful rule.
 *
 * A suppression key the store created for this engine is remembered until it expires, so later
 * events of the group are suppressed without a store round trip; its answer would be the same.
 *
 * A threshold alert carries the window's events this engine instance has seen (at least the one that
 * reached the count): earlier events of the window may have been counted by another process.
 *
 * Fingerprints: `<rule id>:<event id>` for a stateless rule; for a stateful one, the rule id and a
 * hash of the group key with the window start (thresholds) or the first event's id or window
 * (suppression). An event without an `id` is identified by a hash of its content.
 *
 * @throws {RuleLoadError} when a rule of the pack does not compile (a pack built by hand).
 * @example
 * ```ts
 * const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
 * const alerts = await engine.evaluate(events);
 * ```
 */
export function createRuleEngine(options: RuleEngineOptions): RuleEngine {
  const { pack, counters } = options;
  const logger = options.logger ?? silentLogger;
  const wanted = options.ruleIds === undefined ? undefined : new Set(options.ruleIds);
  const rules = compilePack(pack).filter((rule) =>
    wanted === undefined ? rule.enabled : wanted.has(rule.id),
  );

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
  const provenance = new Map<string, AlertRulePack>(
    pack.rules.map(({ spec, layers }) => [
      spec.id,
      pack.version === undefined ? { layers } : { version: pack.version, layers },
    ]),
  );
  const windows = new Map<string, WindowEvents>();
  const suppressions = new Map<CompiledRule, Map<string, KnownSuppression>>();

  const alertFor = async (
    rule: CompiledRule,
    trigger: AtlasEvent,
    events: readonly AtlasEvent[],
    groupKey: string,
    fingerprint: string,
    raisedAt: number | undefined,
    describe: EvaluateOptions['describe'],
  ): Promise<Alert> => {
    let context: AlertContext | undefined;
    try {
      context = await describe?.(trigger);
    } catch (error) {
      logger.warn('Could not describe the event of an alert: it goes without names or key details', {
        ruleId: rule.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
    const values = templateValues(context);
    const alert: Alert = {
      ruleId: rule.id,
      ruleName: rule.name,
      severity: rule.severity,
      title: rule.title.render(trigger, { values, namedIds: namedIds(context) }),
      summary: rule.summary.render(trigger, { values }),
      tags: rule.tags,
      events,
      groupKey,
      fingerprint,
      allowMentions: rule.allowMentions,
      raisedAt: raisedAt ?? options.clock?.now() ?? 0,
    };
    if (rule.runbook !== undefined) alert.runbook = rule.runbook;
    if (context !== undefined) alert.context = context;
    const rulePack = provenance.get(rule.id);
    if (rulePack !== undefined) alert.rulePack = rulePack;
    return alert;
  };

  /** Counts an event for a threshold rule; the window's events when it reaches the count, else undefined. */
  const countTowardThreshold = async (
    rule: CompiledRule,
    threshold: NonNullable<CompiledRule['threshold']>,
    event: AtlasEvent,
    eventId: string,
    time: number,
    groupPart: string,
  ): Promise<{ windowStart: number; events: AtlasEvent[] } | undefined> => {
    const windowStart = Math.floor(time / threshold.windowMs) * threshold.windowMs;
    const key = `threshold|${rule.id}|${groupPart}|${windowStart}`;
    const expiresAt = windowStart + threshold.windowMs;
    let counted: number;
    try {
      counted = await counters.increment(key, eventId, { now: time, expiresAt, limit: threshold.count });
    } catch (error) {
      throw stateError(rule, key, error);
    }
    const window = rememberWindowEvent(
      windows,
      key,
      expiresAt,
      { time, id: eventId, event },
      threshold.count,
    );
    if (counted !== threshold.count) return undefined;
    return { windowStart, events: window.entries.map((entry) => entry.event) };
  };

  /**
   * Whether `occurrence` is the first of its group for a suppressed rule, from what this engine knows
   * (see `KnownSuppression`); `undefined` when only the store can tell.
   */
  const knownFirst = (
    rule: CompiledRule,
    groupKey: string,
    occurrence: string,
    time: number,
  ): boolean | undefined => {
    const known = suppressions.get(rule)?.get(groupKey);
    return known === undefined || time >= known.liveUntil ? undefined : known.occurrence === occurrence;
  };

  /** Asks the store whether `occurrence` is the first of its group, and remembers a new first one. */
  const askFirst = async (
    rule: CompiledRule,
    suppressMs: number,
    groupKey: string,
    occurrence: string,
    time: number,
    createdAt: number,
  ): Promise<boolean> => {
    const key = `suppress|${rule.id}|${keyPart(groupKey)}`;
    let counted: number;
    try {
      counted = await counters.increment(key, occurrence, {
        now: time,
        expiresAt: time + suppressMs,
        limit: 1,
      });
    } catch (error) {
      throw stateError(rule, key, error);
    }
    if (counted !== 1) return false;
    let known = suppressions.get(rule);
    if (known === undefined) {
      known = new Map();
      suppressions.set(rule, known);
    }
    known.set(groupKey, { occurrence, liveUntil: createdAt + suppressMs });
    return true;
  };

  return {
    ruleIds: rules.map((rule) => rule.id),
    async evaluate(events, evaluateOptions) {
      const report =
        evaluateOptions?.onRuleError ??
        ((failure: RuleEvaluationError) =>
          logger.warn(failure.message, {
            errorCode: failure.code,
            ruleId: failure.ruleId,
            eventId: failure.eventId,
          }));
      const alerts: Alert[] = [];
      let latest = Number.NEGATIVE_INFINITY;
      for (const event of events) {
        if (typeof event !== 'object' || event === null) {
          report(
            new RuleEvaluationError(
              `An event that is not an object (${event === null ? 'null' : typeof event}) cannot be evaluated: it was skipped`,
              {},
            ),
          );
          continue;
        }
        const type = event.eventTypeName;
        const candidates = (typeof type === 'string' ? byType.get(type) : undefined) ?? anyType;
        // Read once per event, and only for an event that some rule matches.
        let time: number | undefined | null = null;
        for (const rule of candidates) {
          // A rule that throws on this event skips it alone; a failing counter store fails the batch.
          try {
            const anchor = rule.anchor;
            if (anchor !== undefined) {
              const value = (event as Record<string, unknown>)[anchor];
              if (value === undefined || value === null) continue;
            }
            if (!rule.matches(event)) continue;
            if (time === null) time = parseEventTime(event.created);
            const eventId = eventIdOf(event);
            const { threshold, suppressMs } = rule;
            if (threshold === undefined && suppressMs === undefined) {
              alerts.push(
                await alertFor(
                  rule,
                  event,
                  [event],
                  rule.groupKey(event),
                  `${rule.id}:${eventId}`,
                  time,
                  evaluateOptions?.describe,
                ),
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
            let occurrence = `event:${eventId}`;
            let alertEvents: AtlasEvent[] = [event];
            // A window's trigger time may differ between readings, but lies within the window.
            let createdAt = time;
            if (threshold !== undefined) {
              const reached = await countTowardThreshold(
                rule,
                threshold,
                event,
                eventId,
                time,
                keyPart(groupKey),
              );
              if (reached === undefined) continue;
              occurrence = `window:${reached.windowStart}`;
              alertEvents = reached.events;
              createdAt = reached.windowStart;
            }
            if (suppressMs !== undefined) {
              const first =
                knownFirst(rule, groupKey, occurrence, time) ??
                (await askFirst(rule, suppressMs, groupKey, occurrence, time, createdAt));
              if (!first) continue;
            }
            const fingerprint = hashedFingerprint(rule.id, groupKey, occurrence);
            alerts.push(
              await alertFor(
                rule,
                event,
                alertEvents,
                groupKey,
                fingerprint,
                time,
                evaluateOptions?.describe,
              ),
            );
          } catch (error) {
            if (error instanceof RuleStateError) throw error;
            report(evaluationError(rule, event, error));
          }
        }
      }
      if (windows.size > WINDOW_MEMORY_PRUNE_AT) {
        for (const [key, window] of windows) if (window.expiresAt <= latest) windows.delete(key);
      }
      for (const known of suppressions.values()) {
        if (known.size <= WINDOW_MEMORY_PRUNE_AT) continue;
        for (const [groupKey, first] of known) if (first.liveUntil <= latest) known.delete(groupKey);
      }
      return alerts;
    },
  };
}

/** The failure of `rule` on `event`, saying what was skipped and that the rest went on. */
function evaluationError(rule: CompiledRule, event: AtlasEvent, error: unknown): RuleEvaluationError {
  let eventId: string | undefined;
  try {
    eventId = eventIdOf(event);
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

function stateError(rule: CompiledRule, key: string, error: unknown): RuleStateError {
  return new RuleStateError(
    `The counter store failed for rule "${rule.id}" (key ${key}): ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
    { cause: error },
  );
}

function compilePack(pack: RulePack): CompiledRule[] {
  const problems: CompileProblem[] = [];
  const rules = pack.rules.map(({ spec }) => compileRule(spec, { lists: pack.lists, problems }));
  if (problems.length > 0) {
    throw RuleLoadError.fromProblems(
      problems.map((problem) => ({
        code: problem.code,
        file: '<rule pack>',
        path: problem.path,
        message: problem.message,
      })),
    );
  }
  return rules;
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
    window = { expiresAt, entries: [] };
    windows.set(key, window);
  }
  if (window.entries.length < count && !window.entries.some((known) => known.id === entry.id)) {
    window.entries.push(entry);
    window.entries.sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  return window;
}

/** The event's id, or, for an event without one, a hash of its content. */
function eventIdOf(event: AtlasEvent): string {
  const id = event.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number') return String(id);
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(event) ?? '')
    .digest('hex')
    .slice(0, 32)}`;
}

function keyPart(text: string): string {
  return text.length <= MAX_KEY_PART ? text : `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** A stateful rule's fingerprint: its parts can hold any text, so they are hashed together. */
function hashedFingerprint(ruleId: string, groupKey: string, occurrence: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([ruleId, groupKey, occurrence]))
    .digest('hex');
  return `${ruleId}:${digest.slice(0, 32)}`;
}
