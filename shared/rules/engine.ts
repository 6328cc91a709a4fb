import { createHash } from 'node:crypto';
import type { AtlasEvent } from '../atlas/types.js';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Alert } from '../notify/alert.js';
import type { CompileProblem } from './conditions.js';
import type { CounterStore } from './counter-store.js';
import { RuleLoadError, RuleStateError } from './errors.js';
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
   * @throws {RuleStateError} when the counter store fails: no alert of the batch is returned, and the
   *   caller evaluates the batch again later.
   */
  evaluate(events: readonly AtlasEvent[]): Promise<Alert[]>;
}

/** Threshold windows whose events the engine keeps for the alert, at most `count` each. */
interface WindowEvents {
  expiresAt: number;
  events: AtlasEvent[];
}

/** Keys longer than this are hashed, so a long group value cannot exceed a store's key size. */
const MAX_KEY_PART = 256;
/** Past this many remembered windows, expired ones are dropped after each batch. */
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
 * A threshold alert carries the window's events this engine instance has seen (at least the one that
 * reached the count): earlier events of the window may have been counted by another process.
 *
 * Fingerprints: rule id + group key + window start for thresholds, + the first event's id (or window)
 * for suppression, + the event id otherwise. An event without an `id` is identified by a hash of
 * its content.
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
  const windows = new Map<string, WindowEvents>();

  const alertFor = (
    rule: CompiledRule,
    trigger: AtlasEvent,
    events: readonly AtlasEvent[],
    groupKey: string,
    occurrence: string,
    raisedAt: number | undefined,
  ): Alert => {
    const alert: Alert = {
      ruleId: rule.id,
      ruleName: rule.name,
      severity: rule.severity,
      title: rule.title.render(trigger),
      summary: rule.summary.render(trigger),
      tags: rule.tags,
      events,
      groupKey,
      fingerprint: fingerprintOf(rule.id, groupKey, occurrence),
      allowMentions: rule.allowMentions,
      raisedAt: raisedAt ?? options.clock?.now() ?? 0,
    };
    if (rule.runbook !== undefined) alert.runbook = rule.runbook;
    return alert;
  };

  const increment = async (
    rule: CompiledRule,
    key: string,
    member: string,
    incrementOptions: { now: number; expiresAt: number; limit: number },
  ): Promise<number> => {
    try {
      return await counters.increment(key, member, incrementOptions);
    } catch (error) {
      throw new RuleStateError(
        `The counter store failed for rule "${rule.id}" (key ${key}): ${error instanceof Error ? error.message : String(error)}; evaluate the batch again once the store answers`,
        { cause: error },
      );
    }
  };

  const evaluateStateful = async (rule: CompiledRule, event: AtlasEvent): Promise<Alert | undefined> => {
    const time = parseEventTime(event.created);
    const eventId = eventIdOf(event);
    if (time === undefined) {
      logger.warn('Event has no readable created time: it does not count toward a stateful rule', {
        ruleId: rule.id,
        eventId,
      });
      return undefined;
    }
    const groupKey = rule.groupKey(event);
    const groupPart = keyPart(groupKey);
    let occurrence = `event:${eventId}`;
    let events: readonly AtlasEvent[] = [event];
    if (rule.threshold !== undefined) {
      const { count, windowMs } = rule.threshold;
      const windowStart = Math.floor(time / windowMs) * windowMs;
      const key = `threshold|${rule.id}|${groupPart}|${windowStart}`;
      const expiresAt = windowStart + windowMs;
      const counted = await increment(rule, key, eventId, { now: time, expiresAt, limit: count });
      const remembered = rememberWindowEvent(windows, key, expiresAt, event, eventId, count);
      if (counted !== count) return undefined;
      occurrence = `window:${windowStart}`;
      events = remembered;
    }
    if (rule.suppressMs !== undefined) {
      const key = `suppress|${rule.id}|${groupPart}`;
      const counted = await increment(rule, key, occurrence, {
        now: time,
        expiresAt: time + rule.suppressMs,
        limit: 1,
      });
      if (counted !== 1) return undefined;
    }
    return alertFor(rule, event, events, groupKey, occurrence, time);
  };

  return {
    ruleIds: rules.map((rule) => rule.id),
    async evaluate(events) {
      const alerts: Alert[] = [];
      let latest = Number.NEGATIVE_INFINITY;
      for (const event of events) {
        if (typeof event !== 'object' || event === null) continue;
        const type = event.eventTypeName;
        const candidates = (typeof type === 'string' ? byType.get(type) : undefined) ?? anyType;
        for (const rule of candidates) {
          if (!rule.matches(event)) continue;
          if (rule.threshold === undefined && rule.suppressMs === undefined) {
            alerts.push(
              alertFor(
                rule,
                event,
                [event],
                rule.groupKey(event),
                `event:${eventIdOf(event)}`,
                parseEventTime(event.created),
              ),
            );
            continue;
          }
          const alert = await evaluateStateful(rule, event);
          if (alert !== undefined) alerts.push(alert);
          latest = Math.max(latest, parseEventTime(event.created) ?? latest);
        }
      }
      if (windows.size > WINDOW_MEMORY_PRUNE_AT) {
        for (const [key, window] of windows) if (window.expiresAt <= latest) windows.delete(key);
      }
      return alerts;
    },
  };
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

/** Keeps the events of a threshold window for its alert, oldest first; returns them. */
function rememberWindowEvent(
  windows: Map<string, WindowEvents>,
  key: string,
  expiresAt: number,
  event: AtlasEvent,
  eventId: string,
  count: number,
): AtlasEvent[] {
  let window = windows.get(key);
  if (window === undefined) {
    window = { expiresAt, events: [] };
    windows.set(key, window);
  }
  if (window.events.length < count && !window.events.some((known) => eventIdOf(known) === eventId)) {
    window.events.push(event);
    window.events.sort(byTimeThenId);
  }
  return [...window.events];
}

function byTimeThenId(a: AtlasEvent, b: AtlasEvent): number {
  const difference = (parseEventTime(a.created) ?? 0) - (parseEventTime(b.created) ?? 0);
  if (difference !== 0) return difference;
  const idA = eventIdOf(a);
  const idB = eventIdOf(b);
  return idA < idB ? -1 : idA > idB ? 1 : 0;
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

function fingerprintOf(ruleId: string, groupKey: string, occurrence: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([ruleId, groupKey, occurrence]))
    .digest('hex');
  return `${ruleId}:${digest.slice(0, 32)}`;
}
