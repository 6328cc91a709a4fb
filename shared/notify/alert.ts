import type { AtlasEvent } from '../atlas/types.js';
import type { AlertContext } from './alert-context.js';

/** Severities, lowest first. */
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

export type Severity = (typeof SEVERITIES)[number];

/**
 * The rank of a severity, 1 (info) to 5 (critical): what subscriptions filter on.
 *
 * @example
 * ```ts
 * severityRank('high'); // 4
 * ```
 */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity) + 1;
}

/**
 * The sum of counts kept per severity, such as the alerts a delivery published.
 *
 * @example
 * ```ts
 * severityTotal({ info: 0, low: 3, medium: 0, high: 1, critical: 0 }); // 4
 * ```
 */
export function severityTotal(counts: Readonly<Record<Severity, number>>): number {
  let total = 0;
  for (const severity of SEVERITIES) total += counts[severity];
  return total;
}

/**
 * What a rule raises and a notifier delivers. The rule engine builds it; the poller records it by
 * `fingerprint` before publishing, so the same alert is never sent twice.
 */
export interface Alert {
  ruleId: string;
  ruleName: string;
  severity: Severity;
  /** Rendered from the rule's title template: plain text, not escaped for any channel. */
  title: string;
  /** Rendered from the rule's summary template: plain text, not escaped for any channel. */
  summary: string;
  runbook?: string;
  tags: readonly string[];
  /** The events that raised it, oldest first: one for a stateless rule, the window's for a threshold. */
  events: readonly AtlasEvent[];
  /** The values of the rule's `group_by` fields joined into one key; empty when the rule has none. */
  groupKey: string;
  /** Stable identity: rule id + group key + window, or rule id + event id. */
  fingerprint: string;
  /** Whether the rule lets its templates emit Slack mentions (`<!channel>`, `<@U…>`). Off by default. */
  allowMentions: boolean;
  /** When the alert was raised, in milliseconds since the epoch, on the engine's clock. */
  raisedAt: number;
  /** Which rules raised it: the pack version and the layers that shaped the rule. */
  rulePack?: AlertRulePack;
  /**
   * Names of its organization and project, and the details of the key it is about, when the poller
   * knew them: formatters show them next to the ids. Absent in rule tests and replays.
   */
  context?: AlertContext;
  /**
   * For a suppressed rule's alert: the occurrences of its group suppressed since the group's previous
   * alert, so none is dropped unsaid. Absent when there were none.
   */
  rollUp?: AlertRollUp;
}

/** Occurrences like an alert that were not sent one by one (see `Alert.rollUp`). */
export interface AlertRollUp {
  /** How many occurrences were suppressed. */
  suppressed: number;
  /** Event time of the earliest, in milliseconds since the epoch. */
  first: number;
  /** Event time of the latest, in milliseconds since the epoch. */
  last: number;
}

/** Where the rule of an alert comes from, so a reader can tell a tuned rule from a shipped one. */
export interface AlertRulePack {
  /** The version of atlas-audit-alerts whose built-in pack the rules build on, when known. */
  version?: string;
  /** The layers that defined or changed the rule, in order: `builtin` alone for a shipped rule as is. */
  layers: readonly string[];
}
