import type { ReplayedAlert, RuleReplay, RuleReplayCount } from './replay.js';

/** One rule in two replays; `undefined` on the side whose pack does not have it. */
export interface RuleComparison {
  ruleId: string;
  before: RuleReplayCount | undefined;
  after: RuleReplayCount | undefined;
}

/**
 * How an event's alert from one rule differs between two replays: raised only by the second
 * (`added`), only by the first (`removed`), or by both with another severity or title (`changed`).
 */
export type AlertChangeKind = 'added' | 'removed' | 'changed';

/** One rule's alert on one event that differs between two replays. */
export interface AlertChange {
  /** The event's position in the replayed events. */
  index: number;
  ruleId: string;
  kind: AlertChangeKind;
  before: ReplayedAlert | undefined;
  after: ReplayedAlert | undefined;
}

/** The outcome of {@link compareReplays}. */
export interface ReplayComparison {
  /** The rules of the first replay in its order, then those only the second has, in its order. */
  rules: RuleComparison[];
  /** By event position, then by rule in the order of {@link rules}. */
  changes: AlertChange[];
  /** How many events have at least one change. */
  eventsChanged: number;
}

/**
 * Compares two replays of the same events (two rule sets): each rule side by side, and every event
 * whose alerts differ, rule by rule. A rule's alerts on one event are paired by rule id; an alert
 * whose severity and title are the same on both sides is no change, whatever its summary or
 * fingerprint.
 *
 * @example
 * ```ts
 * const comparison = compareReplays(await replayRules({ pack: shipped, events }),
 *   await replayRules({ pack: tuned, events }));
 * comparison.changes[0]; // { index: 4, ruleId: 'api-key-created', kind: 'removed', ... }
 * ```
 */
export function compareReplays(before: RuleReplay, after: RuleReplay): ReplayComparison {
  const afterById = new Map(after.rules.map((rule) => [rule.ruleId, rule]));
  const rules: RuleComparison[] = before.rules.map((rule) => ({
    ruleId: rule.ruleId,
    before: rule,
    after: afterById.get(rule.ruleId),
  }));
  const beforeIds = new Set(before.rules.map((rule) => rule.ruleId));
  for (const rule of after.rules) {
    if (!beforeIds.has(rule.ruleId)) rules.push({ ruleId: rule.ruleId, before: undefined, after: rule });
  }
  const order = new Map(rules.map((rule, position) => [rule.ruleId, position]));
  const indexes = [...new Set([...before.alertsByEvent.keys(), ...after.alertsByEvent.keys()])].sort(
    (a, b) => a - b,
  );
  const changes: AlertChange[] = [];
  let eventsChanged = 0;
  for (const index of indexes) {
    const eventChanges = changesOfEvent(
      index,
      before.alertsByEvent.get(index) ?? [],
      after.alertsByEvent.get(index) ?? [],
    );
    if (eventChanges.length === 0) continue;
    eventsChanged += 1;
    eventChanges.sort(
      (a, b) =>
        (order.get(a.ruleId) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.ruleId) ?? Number.MAX_SAFE_INTEGER),
    );
    changes.push(...eventChanges);
  }
  return { rules, changes, eventsChanged };
}

function changesOfEvent(
  index: number,
  before: readonly ReplayedAlert[],
  after: readonly ReplayedAlert[],
): AlertChange[] {
  const changes: AlertChange[] = [];
  const unpaired = [...after];
  for (const alert of before) {
    const position = unpaired.findIndex((candidate) => candidate.ruleId === alert.ruleId);
    if (position < 0) {
      changes.push({ index, ruleId: alert.ruleId, kind: 'removed', before: alert, after: undefined });
      continue;
    }
    const [paired] = unpaired.splice(position, 1);
    if (paired !== undefined && (paired.severity !== alert.severity || paired.title !== alert.title)) {
      changes.push({ index, ruleId: alert.ruleId, kind: 'changed', before: alert, after: paired });
    }
  }
  for (const alert of unpaired) {
    changes.push({ index, ruleId: alert.ruleId, kind: 'added', before: undefined, after: alert });
  }
  return changes;
}
