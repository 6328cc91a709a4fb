import type { Severity } from '../../notify/alert.js';
import { requiredEventTypes, requiresValue } from '../conditions.js';
import type { RulePack } from '../rule-pack.js';
import type { FieldConditionSpec, MatchSpec } from '../schema.js';
import { isAlertableEventType } from './alertable-event-types.js';
import type { EventCatalog } from './event-catalog.js';
import type { EventScope } from './openapi-events.js';
import type { SecurityEventTypes } from './security-event-types.js';

/** What one enabled rule can match. */
export interface RuleCoverageEntry {
  readonly id: string;
  readonly severity: Severity;
  /** Known event types the rule can match, sorted. */
  readonly eventTypes: readonly string[];
  /**
   * Whether the rule names its event types. A rule that does not may match any type carrying the
   * fields it requires (`requiredFields`); it is listed, but does not count as covering those types.
   */
  readonly namesEventTypes: boolean;
  /** Top-level fields every matching event has, for a rule that names no event type. */
  readonly requiredFields: readonly string[];
  /** Event type names the rule uses that the catalog does not know. */
  readonly unknownEventTypes: readonly string[];
}

/** Coverage of the known event types of one scope. */
export interface ScopeCoverage {
  /** How many known types the scope has. */
  readonly known: number;
  /** How many of them a rule that names its event types can match. */
  readonly covered: number;
  /** The known types no such rule matches, sorted. */
  readonly uncovered: readonly string[];
}

/** Coverage of the curated security-relevant event types. */
export interface SecurityCoverage {
  /** How many types the list holds. */
  readonly listed: number;
  /** How many of them a rule that names its event types can match. */
  readonly covered: number;
  /** The listed types no such rule matches, in list order, with their area. */
  readonly uncovered: readonly { readonly type: string; readonly area: string }[];
}

/**
 * The covered event types (those a rule that names its types can match) split by whether Atlas can
 * push them: an alert configuration can name the type (`alertable`), so a Webhook integration wakes a
 * poll within seconds; the others are read by the scheduled poll only.
 */
export interface PushCoverage {
  /** Covered types Atlas can alert on, sorted. */
  readonly pushable: readonly string[];
  /** Covered types Atlas cannot alert on, sorted. */
  readonly pollOnly: readonly string[];
}

export interface RuleCoverage {
  readonly rules: readonly RuleCoverageEntry[];
  /** Rules left out because they are disabled. */
  readonly disabledRules: number;
  readonly scopes: Readonly<Record<EventScope, ScopeCoverage>>;
  /** Which covered types Atlas can push, and which are poll-only. */
  readonly push: PushCoverage;
  /** Present when a list of security-relevant types was given. */
  readonly security?: SecurityCoverage;
}

/**
 * Which known event types each enabled rule of a pack can match, and which known types no rule
 * covers, by scope (a type of both scopes counts in each); with a list of security-relevant types,
 * also which of those no rule covers. The covered types are also split by whether Atlas can push them
 * (see {@link PushCoverage}).
 *
 * @example
 * ```ts
 * const coverage = ruleCoverage(pack, loadEventCatalog(), loadSecurityEventTypes());
 * coverage.scopes.organization.uncovered; // ['ACCOUNT_DOWNGRADED', ...]
 * coverage.security?.uncovered; // [] for the built-in pack
 * ```
 */
export function ruleCoverage(
  pack: RulePack,
  catalog: EventCatalog,
  security?: SecurityEventTypes,
): RuleCoverage {
  const rules: RuleCoverageEntry[] = [];
  const covered = new Set<string>();
  let disabledRules = 0;
  const allTypes = [...catalog.types.keys()];
  for (const { spec } of pack.rules) {
    if (spec.enabled === false) {
      disabledRules++;
      continue;
    }
    const named = requiredEventTypes(spec.match, pack.lists);
    const requiredFields = named === undefined ? fieldsRequiredBy(spec.match) : [];
    const eventTypes =
      named === undefined
        ? allTypes.filter((type) => requiredFields.every((field) => catalog.knowsPath(field, [type])))
        : [...named].filter((type) => catalog.types.has(type));
    if (named !== undefined) for (const type of eventTypes) covered.add(type);
    rules.push({
      id: spec.id,
      severity: spec.severity,
      eventTypes: eventTypes.sort(),
      namesEventTypes: named !== undefined,
      requiredFields,
      unknownEventTypes:
        named === undefined ? [] : [...named].filter((type) => !catalog.types.has(type)).sort(),
    });
  }
  const scopeCoverage = (scope: EventScope): ScopeCoverage => {
    const known = allTypes.filter((type) => catalog.types.get(type)?.scopes.includes(scope)).sort();
    const uncovered = known.filter((type) => !covered.has(type));
    return { known: known.length, covered: known.length - uncovered.length, uncovered };
  };
  const scopes = { project: scopeCoverage('project'), organization: scopeCoverage('organization') };
  const coveredTypes = [...covered].sort();
  const push = {
    pushable: coveredTypes.filter((type) => isAlertableEventType(type)),
    pollOnly: coveredTypes.filter((type) => !isAlertableEventType(type)),
  };
  if (security === undefined) return { rules, disabledRules, scopes, push };
  const listed = security.areas.flatMap((area) => area.types);
  const uncovered = listed
    .filter((entry) => !covered.has(entry.type))
    .map(({ type, area }) => ({ type, area }));
  return {
    rules,
    disabledRules,
    scopes,
    push,
    security: { listed: listed.length, covered: listed.length - uncovered.length, uncovered },
  };
}

/** The fields of the top-level conditions (and of `all`) that need a value, sorted. */
function fieldsRequiredBy(spec: MatchSpec): string[] {
  const fields = new Set<string>();
  const visit = (match: MatchSpec): void => {
    for (const [key, condition] of Object.entries(match)) {
      if (condition === undefined || key === 'any' || key === 'not' || key === 'list_empty') continue;
      if (key === 'all') {
        for (const branch of condition as MatchSpec[]) visit(branch);
      } else if (requiresValue(condition as FieldConditionSpec)) {
        fields.add(key);
      }
    }
  };
  visit(spec);
  return [...fields].sort();
}
