import type { AtlasEvent } from '../atlas/types.js';
import type { Severity } from '../notify/alert.js';
import {
  anchorField,
  type CompileContext,
  type CompileProblem,
  compileMatch,
  isPlainEventTypeSet,
  type Predicate,
  requiredEventTypes,
} from './conditions.js';
import { type CompiledDistinctCount, compileDistinctCount } from './distinct-count.js';
import { compileDuration } from './duration.js';
import { compileFieldPath, type PathReader, parseFieldPath } from './field-path.js';
import { type CompiledFirstSeen, compileFirstSeen } from './first-seen.js';
import type { RuleSpec, ScalarValue } from './schema.js';
import { type CompiledSequence, compileSequence } from './sequence.js';
import { type CompiledTemplate, compileTemplate } from './template.js';

/** A rule compiled into closures, ready for the engine. */
export interface CompiledRule {
  readonly id: string;
  readonly name: string;
  readonly severity: Severity;
  readonly enabled: boolean;
  readonly tags: readonly string[];
  readonly runbook: string | undefined;
  readonly allowMentions: boolean;
  /**
   * Whether an event matches, for an event of one of `eventTypes` that has the `anchor` field: the
   * engine checks those two first, so this predicate does not test them again where it need not.
   */
  readonly matches: Predicate;
  /** The event types the rule can match; `undefined` when it may match any. */
  readonly eventTypes: ReadonlySet<string> | undefined;
  /** A top-level field every matching event has (neither undefined nor null), if one is known. */
  readonly anchor: string | undefined;
  readonly groupKey: (event: AtlasEvent) => string;
  readonly threshold: { readonly count: number; readonly windowMs: number } | undefined;
  readonly suppressMs: number | undefined;
  /**
   * The key a suppressed rule's occurrences are held back and rolled up by, from `suppress.key`;
   * `undefined` when the rule names none: `groupKey` is the key then.
   */
  readonly suppressKey: ((event: AtlasEvent) => string) | undefined;
  /** Set for a first-seen rule: it alerts when the value is new for its group. */
  readonly firstSeen: CompiledFirstSeen | undefined;
  /** Set for a distinct-count rule: it alerts when a group's window holds `count` distinct values. */
  readonly distinctCount: CompiledDistinctCount | undefined;
  /** Set for a sequence rule: it alerts for a match that follows an earlier step's event of its group. */
  readonly sequence: CompiledSequence | undefined;
  readonly title: CompiledTemplate;
  readonly summary: CompiledTemplate;
}

const emptyTemplate: CompiledTemplate = { source: '', render: () => '' };

/**
 * Compiles a validated rule spec. Problems go to `context.problems`, with paths relative to the rule
 * (`['match', 'opType', 'regex']`); when there are any, the rule returned must not be used.
 *
 * @example
 * ```ts
 * const context = { lists, problems: [] };
 * const rule = compileRule(spec, context);
 * if (context.problems.length === 0) rule.matches(event);
 * ```
 */
export function compileRule(spec: RuleSpec, context: CompileContext): CompiledRule {
  const eventTypes = requiredEventTypes(spec.match, context.lists);
  // The engine hands the rule only events of `eventTypes`: a plain type condition is met already, so
  // it is compiled for its problems alone, and each other condition (a regex, say) is compiled once.
  const typeChecked = eventTypes !== undefined && isPlainEventTypeSet(spec.match.eventTypeName);
  const { eventTypeName: typeCondition, ...rest } = spec.match;
  let ruleMatches: Predicate;
  if (!typeChecked) ruleMatches = compileMatch(spec.match, ['match'], context);
  else {
    compileMatch({ eventTypeName: typeCondition }, ['match'], context);
    ruleMatches = Object.values(rest).every((value) => value === undefined)
      ? () => true
      : compileMatch(rest, ['match'], context);
  }
  const exceptions = (spec.exceptions ?? []).map((exception, index) =>
    compileMatch(exception, ['exceptions', index], context),
  );
  const matches: Predicate =
    exceptions.length === 0
      ? ruleMatches
      : (event) => ruleMatches(event) && !exceptions.some((exception) => exception(event));
  const groupBy = (spec.group_by ?? []).flatMap((text, index): PathReader[] => {
    const parsed = parseFieldPath(text);
    if (parsed.ok) return [compileFieldPath(parsed.path)];
    context.problems.push({ code: 'INVALID_FIELD_PATH', path: ['group_by', index], message: parsed.message });
    return [];
  });
  let threshold: CompiledRule['threshold'];
  if (spec.threshold !== undefined) {
    const windowMs = durationOf(spec.threshold.window, ['threshold', 'window'], context);
    if (windowMs !== undefined) threshold = { count: spec.threshold.count, windowMs };
  }
  const suppressMs =
    spec.suppress === undefined
      ? undefined
      : typeof spec.suppress === 'string'
        ? durationOf(spec.suppress, ['suppress'], context)
        : durationOf(spec.suppress.for, ['suppress', 'for'], context);
  const suppressBy =
    typeof spec.suppress === 'object'
      ? spec.suppress.key?.flatMap((text, index): PathReader[] => {
          const parsed = parseFieldPath(text);
          if (parsed.ok) return [compileFieldPath(parsed.path)];
          context.problems.push({
            code: 'INVALID_FIELD_PATH',
            path: ['suppress', 'key', index],
            message: parsed.message,
          });
          return [];
        })
      : undefined;
  const firstSeen =
    spec.first_seen === undefined
      ? undefined
      : compileFirstSeen(spec.first_seen, spec.group_by ?? [], context);
  if (spec.first_seen !== undefined && (spec.threshold !== undefined || spec.suppress !== undefined)) {
    context.problems.push({
      code: 'INVALID_CONDITION',
      path: ['first_seen'],
      message:
        'a first_seen rule alerts once per new value and group, so it cannot also have threshold or suppress: remove them, or make a second rule',
    });
  }
  const distinctCount =
    spec.distinct_count === undefined
      ? undefined
      : compileDistinctCount(spec.distinct_count, spec.group_by ?? [], context);
  if (spec.distinct_count !== undefined && (spec.threshold !== undefined || spec.first_seen !== undefined)) {
    context.problems.push({
      code: 'INVALID_CONDITION',
      path: ['distinct_count'],
      key: true,
      message: `a distinct_count rule counts values in windows of its own, so it cannot also have ${spec.threshold === undefined ? 'first_seen' : 'threshold'}: remove it, or make a second rule`,
    });
  }
  const sequence =
    spec.sequence === undefined ? undefined : compileSequence(spec.sequence, spec.group_by ?? [], context);
  if (spec.sequence !== undefined) {
    const other = (['threshold', 'suppress', 'first_seen', 'distinct_count'] as const).find(
      (key) => spec[key] !== undefined,
    );
    if (other !== undefined) {
      context.problems.push({
        code: 'INVALID_CONDITION',
        path: ['sequence'],
        key: true,
        message: `a sequence rule alerts once for each event that follows an earlier step, so it cannot also have ${other}: remove it, or make a second rule`,
      });
    }
  }
  const title = templateOf(spec.title, 'title', context);
  const summary =
    spec.summary === undefined
      ? literalTemplate(spec.description ?? '')
      : templateOf(spec.summary, 'summary', context);
  checkTests(spec, context);
  return {
    id: spec.id,
    name: spec.name,
    severity: spec.severity,
    enabled: spec.enabled !== false,
    tags: spec.tags ?? [],
    runbook: spec.runbook,
    allowMentions: spec.allow_mentions === true,
    matches,
    eventTypes,
    anchor: anchorField(spec.match, typeChecked ? 'eventTypeName' : undefined),
    groupKey: groupBy.length === 0 ? () => '' : (event) => groupKeyOf(groupBy, event),
    suppressKey: suppressBy === undefined ? undefined : (event) => groupKeyOf(suppressBy, event),
    threshold,
    suppressMs,
    firstSeen,
    distinctCount,
    sequence,
    title,
    summary,
  };
}

/**
 * The group key: each `group_by` value (several array values joined with `,`), joined with `|`.
 * `%`, `,` and `|` inside values are percent-encoded so that distinct groups never share a key.
 */
function groupKeyOf(readers: readonly PathReader[], event: AtlasEvent): string {
  let key = '';
  for (let index = 0; index < readers.length; index++) {
    const reader = readers[index] as PathReader;
    const part = reader.spread
      ? reader
          .values(event)
          .map((value) => encodeGroupValue(value))
          .join(',')
      : encodeGroupValue(reader.first(event));
    key = index === 0 ? part : `${key}|${part}`;
  }
  return key;
}

function encodeGroupValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (!text.includes('|') && !text.includes(',') && !text.includes('%')) return text;
  return text.replace(/[%,|]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function durationOf(text: string, path: (string | number)[], context: CompileContext): number | undefined {
  return compileDuration(text, path, context, '30s, 10m, 1h30m or 7d');
}

function templateOf(source: string, key: 'title' | 'summary', context: CompileContext): CompiledTemplate {
  const compiled = compileTemplate(source);
  if (compiled.ok) return compiled.template;
  for (const problem of compiled.problems) {
    context.problems.push({
      code: 'INVALID_TEMPLATE',
      path: [key],
      message: problem.message,
      needle: problem.placeholder,
    });
  }
  return emptyTemplate;
}

function literalTemplate(text: string): CompiledTemplate {
  return { source: text, render: () => text };
}

/**
 * The lists a test replaces must exist, and the rule must compile with the test's values (a CIDR list
 * given a value that is no CIDR, for example): otherwise the test could not run.
 */
function checkTestLists(
  spec: RuleSpec,
  lists: Readonly<Record<string, ScalarValue[]>>,
  path: (string | number)[],
  context: CompileContext,
): void {
  const unknown = Object.keys(lists).filter((name) => !context.lists.has(name));
  for (const name of unknown) {
    const known = [...context.lists.keys()].sort();
    context.problems.push({
      code: 'UNKNOWN_LIST',
      path: [...path, name],
      key: true,
      message: `the test replaces a list no rule file defines, "${name}"${known.length > 0 ? `; lists defined: ${known.join(', ')}` : ''}`,
    });
  }
  if (unknown.length > 0) return;
  const problems: CompileProblem[] = [];
  const { tests: _tests, ...untested } = spec;
  compileRule(untested, { lists: testLists(context.lists, lists), problems });
  for (const problem of problems) {
    context.problems.push({
      code: problem.code,
      path,
      message: `with the test's lists, the rule does not compile: ${problem.message}`,
    });
  }
}

/**
 * The pack's lists with those a test gives in place of their namesakes.
 *
 * @example
 * ```ts
 * testLists(pack.lists, { trusted_email_domains: ['acme.example'] });
 * ```
 */
export function testLists(
  lists: ReadonlyMap<string, readonly ScalarValue[]>,
  replaced: Readonly<Record<string, ScalarValue[]>>,
): ReadonlyMap<string, readonly ScalarValue[]> {
  return new Map([...lists, ...Object.entries(replaced)]);
}

function checkTests(spec: RuleSpec, context: CompileContext): void {
  (spec.tests ?? []).forEach((test, index) => {
    const path = ['tests', index];
    if (test.lists !== undefined) checkTestLists(spec, test.lists, [...path, 'lists'], context);
    if (
      test.seen !== undefined &&
      spec.first_seen === undefined &&
      spec.distinct_count === undefined &&
      spec.sequence === undefined
    ) {
      context.problems.push({
        code: 'INVALID_TEST',
        path: [...path, 'seen'],
        message: `test "${test.name}" lists seen events, which only first_seen, distinct_count and sequence rules use: remove seen, or list them first under events`,
      });
    }
    if ((test.event === undefined) === (test.events === undefined)) {
      context.problems.push({
        code: 'INVALID_TEST',
        path: [...path, 'name'],
        message: `test "${test.name}" needs exactly one of event (one event) or events (a list, for threshold, distinct-count and suppression rules)`,
      });
    }
    const { alert, count } = test.expect;
    if (count !== undefined && (count === 0) === alert) {
      context.problems.push({
        code: 'INVALID_TEST',
        path: [...path, 'expect', 'count'],
        message: `test "${test.name}" expects alert: ${alert} but count: ${count}`,
      });
    }
    if (
      !alert &&
      (test.expect.title !== undefined ||
        test.expect.summary !== undefined ||
        test.expect.severity !== undefined)
    ) {
      context.problems.push({
        code: 'INVALID_TEST',
        path: [...path, 'expect', 'alert'],
        message: `test "${test.name}" expects no alert, so it cannot also expect a title, summary or severity`,
      });
    }
  });
}
