import type { AtlasEvent } from '../shared/atlas/index.js';
import { cleanLine, SEVERITIES } from '../shared/notify/index.js';
import type {
  AlertChange,
  ReplayComparison,
  ReplayedAlert,
  RuleReplay,
  RuleReplayCount,
  SeverityCounts,
} from '../shared/rules/index.js';
import { nounFor } from './plural.js';

/** Where the replayed events came from. */
export type ReplayInput =
  | {
      kind: 'atlas';
      /** `org:<id>` and `project:<id>`, in the order they were read. */
      sources: readonly string[];
      /** Milliseconds since the epoch: the window the events were listed in. */
      from: number;
      to: number;
    }
  | { kind: 'file'; path: string };

/** One rule set of a replay: what it was loaded from, and what it did. */
export interface ReplayedRuleSet {
  /** The rule paths as given, or `built-in rules`. */
  label: string;
  replay: RuleReplay;
}

/** Everything a replay report shows. */
export interface ReplayReport {
  input: ReplayInput;
  /** The events evaluated, in order: changes and failures point into it. */
  events: readonly AtlasEvent[];
  rules: ReplayedRuleSet;
  /** The second rule set (`--compare`) and how its alerts differ from the first's. */
  compare?: ReplayedRuleSet & { comparison: ReplayComparison };
}

/**
 * The report as text for a person: what was replayed, one row per rule (severity, events matched,
 * alerts; with `--compare` both rule sets side by side and the difference), alerts by severity, then
 * with `--compare` every event whose alerts changed and how. Event values are shown with control
 * characters replaced, so an event cannot move the cursor or recolour the terminal.
 *
 * @example
 * ```ts
 * stdout.write(formatReplayTable(report));
 * ```
 */
export function formatReplayTable(report: ReplayReport): string {
  const { rules, compare } = report;
  const sections = [headerLines(report).join('\n')];
  if (compare === undefined) {
    sections.push(
      table(
        ['left', 'left', 'right', 'right'],
        [['rule', 'severity', 'matched', 'alerts']],
        rules.replay.rules.map((rule) => [rule.ruleId, ...countCells(rule)]),
      ),
      table(
        ['left', 'right'],
        [['severity', 'alerts']],
        severityRows(rules.replay).map(([label, count]) => [label, String(count)]),
      ),
    );
  } else {
    const { comparison } = compare;
    sections.push(
      table(
        ['left', 'left', 'right', 'right', 'left', 'right', 'right', 'left'],
        [
          ['', '--rules', '', '', '--compare', '', '', ''],
          ['rule', 'severity', 'matched', 'alerts', 'severity', 'matched', 'alerts', 'change'],
        ],
        comparison.rules.map((row) => [
          row.ruleId,
          ...countCells(row.before),
          ...countCells(row.after),
          ruleChange(row.before, row.after),
        ]),
      ),
      table(
        ['left', 'right', 'right', 'right'],
        [['severity', '--rules', '--compare', 'change']],
        severityRows(rules.replay).map(([label, before], index) => {
          const after = severityRows(compare.replay)[index]?.[1] ?? 0;
          return [label, String(before), String(after), signed(after - before)];
        }),
      ),
      changeLines(report, comparison).join('\n'),
    );
  }
  const failures = failureLines(report);
  if (failures.length > 0) sections.push(failures.join('\n'));
  return `${sections.join('\n\n')}\n`;
}

/**
 * The report as JSON Lines objects, for scripts: one `rule` line per rule, one `change` line per
 * rule whose alert on an event changed (with `--compare`), one `failure` line per event that could not
 * be evaluated, and a last `summary` line.
 *
 * ```jsonl
 * {"type":"rule","ruleId":"api-key-created","rules":{"enabled":true,"severity":"medium","matched":2,"alerts":2},"compare":null}
 * {"type":"change","change":"removed","ruleId":"api-key-created","event":{"id":"…","eventTypeName":"API_KEY_CREATED","created":"…","orgId":"…","groupId":null},"rules":{"severity":"medium","title":"…"},"compare":null}
 * {"type":"summary","events":312,"input":{…},"rules":{"label":"built-in rules","alerts":10,"bySeverity":{…},"failures":0},"compare":{…},"eventsChanged":1,"changes":1}
 * ```
 *
 * `compare` keys appear only with `--compare`.
 *
 * @example
 * ```ts
 * for (const line of replayJsonLines(report)) stdout.write(`${JSON.stringify(line)}\n`);
 * ```
 */
export function replayJsonLines(report: ReplayReport): Record<string, unknown>[] {
  const { rules, compare } = report;
  const lines: Record<string, unknown>[] = [];
  const rows =
    compare === undefined
      ? rules.replay.rules.map((rule) => ({ ruleId: rule.ruleId, before: rule, after: undefined }))
      : compare.comparison.rules;
  for (const row of rows) {
    lines.push({
      type: 'rule',
      ruleId: row.ruleId,
      rules: countJson(row.before),
      ...(compare === undefined ? {} : { compare: countJson(row.after) }),
    });
  }
  for (const change of compare?.comparison.changes ?? []) {
    lines.push({
      type: 'change',
      change: change.kind,
      ruleId: change.ruleId,
      event: eventJson(report.events[change.index]),
      rules: alertJson(change.before),
      compare: alertJson(change.after),
    });
  }
  for (const [side, set] of ruleSets(report)) {
    for (const failure of set.replay.failures) {
      lines.push({
        type: 'failure',
        ruleSet: side,
        event: eventJson(report.events[failure.index]),
        message: failure.message,
      });
    }
  }
  const setSummary = (set: ReplayedRuleSet): Record<string, unknown> => ({
    label: set.label,
    alerts: set.replay.alerts,
    bySeverity: set.replay.bySeverity,
    failures: set.replay.failures.length,
  });
  lines.push({
    type: 'summary',
    events: report.events.length,
    input:
      report.input.kind === 'file'
        ? report.input
        : {
            kind: 'atlas',
            sources: report.input.sources,
            from: new Date(report.input.from).toISOString(),
            to: new Date(report.input.to).toISOString(),
          },
    rules: setSummary(rules),
    ...(compare === undefined
      ? {}
      : {
          compare: setSummary(compare),
          eventsChanged: compare.comparison.eventsChanged,
          changes: compare.comparison.changes.length,
        }),
  });
  return lines;
}

function headerLines(report: ReplayReport): string[] {
  const { input, events, rules, compare } = report;
  const count = `${events.length} ${nounFor(events.length, 'event')}`;
  const origin =
    input.kind === 'file'
      ? `from ${cleanLine(input.path)}`
      : `from ${sourcesPhrase(input.sources)} created ${isoMinute(input.from)} to ${isoMinute(input.to)}`;
  const lines = [`Replayed ${count} ${origin}`];
  lines.push(`--rules:   ${cleanLine(rules.label)}`);
  if (compare !== undefined) lines.push(`--compare: ${cleanLine(compare.label)}`);
  return lines;
}

function sourcesPhrase(sources: readonly string[]): string {
  const orgs = sources.filter((source) => source.startsWith('org:')).length;
  const projects = sources.length - orgs;
  const parts = [
    ...(orgs > 0 ? [`${orgs} ${nounFor(orgs, 'organization')}`] : []),
    ...(projects > 0 ? [`${projects} ${nounFor(projects, 'project')}`] : []),
  ];
  return parts.length === 0 ? 'no source' : parts.join(' and ');
}

function countCells(rule: RuleReplayCount | undefined): [string, string, string] {
  if (rule === undefined) return ['absent', '-', '-'];
  if (!rule.enabled) return ['disabled', '-', '-'];
  return [rule.severity, String(rule.matched), String(rule.alerts)];
}

/** What changed for a rule between the two sets, in a few words; empty when nothing did. */
function ruleChange(before: RuleReplayCount | undefined, after: RuleReplayCount | undefined): string {
  if (before === undefined) return 'new rule';
  if (after === undefined) return 'rule removed';
  if (before.enabled && !after.enabled) return 'disabled';
  if (!before.enabled && after.enabled) return 'enabled';
  const words: string[] = [];
  if (before.enabled && before.severity !== after.severity)
    words.push(`${before.severity} → ${after.severity}`);
  const alerts = after.alerts - before.alerts;
  if (alerts !== 0) words.push(`${signed(alerts)} ${nounFor(Math.abs(alerts), 'alert')}`);
  return words.join(', ');
}

function severityRows(replay: RuleReplay): Array<[string, number]> {
  const counts: SeverityCounts = replay.bySeverity;
  return [
    ...SEVERITIES.toReversed().map((severity): [string, number] => [severity, counts[severity]]),
    ['all', replay.alerts],
  ];
}

function changeLines(report: ReplayReport, comparison: ReplayComparison): string[] {
  const { eventsChanged, changes } = comparison;
  if (eventsChanged === 0) return ['No event raises different alerts with --compare.'];
  const lines = [
    `${eventsChanged} of ${report.events.length} ${nounFor(report.events.length, 'event')} raise different alerts with --compare (- only with --rules, + only with --compare, ~ changed):`,
  ];
  const width = Math.max(...changes.map((change) => change.ruleId.length));
  let index: number | undefined;
  for (const change of changes) {
    if (change.index !== index) {
      index = change.index;
      lines.push('', eventLine(report.events[index]));
    }
    lines.push(...changeEntry(change, width));
  }
  return lines;
}

function changeEntry(change: AlertChange, width: number): string[] {
  const rule = change.ruleId.padEnd(width);
  const { before, after } = change;
  if (change.kind === 'removed' && before !== undefined) {
    return [`  - ${rule}  ${before.severity.padEnd(8)}  ${cleanLine(before.title)}`];
  }
  if (change.kind === 'added' && after !== undefined) {
    return [`  + ${rule}  ${after.severity.padEnd(8)}  ${cleanLine(after.title)}`];
  }
  if (before === undefined || after === undefined) return [];
  const severity =
    before.severity === after.severity ? after.severity.padEnd(8) : `${before.severity} → ${after.severity}`;
  const lines = [`  ~ ${rule}  ${severity}  ${cleanLine(after.title)}`];
  if (before.title !== after.title) lines.push(`    ${' '.repeat(width)}  was: ${cleanLine(before.title)}`);
  return lines;
}

function eventLine(event: AtlasEvent | undefined): string {
  const { id, eventTypeName, created } = eventJson(event);
  return [created ?? '(no created time)', eventTypeName ?? '(no eventTypeName)', id ?? '(no id)']
    .map((part) => cleanLine(part))
    .join('  ');
}

function failureLines(report: ReplayReport): string[] {
  const lines: string[] = [];
  for (const [side, set] of ruleSets(report)) {
    const { failures } = set.replay;
    if (failures.length === 0) continue;
    lines.push(
      `${failures.length} ${nounFor(failures.length, 'event')} could not be evaluated with ${side === 'rules' ? '--rules' : '--compare'}:`,
    );
    for (const failure of failures) {
      lines.push(`  ${eventLine(report.events[failure.index])}: ${cleanLine(failure.message)}`);
    }
  }
  return lines;
}

function ruleSets(report: ReplayReport): Array<['rules' | 'compare', ReplayedRuleSet]> {
  return report.compare === undefined
    ? [['rules', report.rules]]
    : [
        ['rules', report.rules],
        ['compare', report.compare],
      ];
}

function countJson(rule: RuleReplayCount | undefined): Record<string, unknown> | null {
  if (rule === undefined) return null;
  return { enabled: rule.enabled, severity: rule.severity, matched: rule.matched, alerts: rule.alerts };
}

function alertJson(alert: ReplayedAlert | undefined): Record<string, unknown> | null {
  return alert === undefined ? null : { severity: alert.severity, title: alert.title };
}

interface EventReference {
  id: string | null;
  eventTypeName: string | null;
  created: string | null;
  orgId: string | null;
  groupId: string | null;
}

function eventJson(event: AtlasEvent | undefined): EventReference {
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    id: text(event?.id),
    eventTypeName: text(event?.eventTypeName),
    created: text(event?.created),
    orgId: text(event?.orgId),
    groupId: text(event?.groupId),
  };
}

/** How a column's cells line up. */
type Align = 'left' | 'right';

/** Rows of cells as aligned columns, a line under the header rows. */
function table(align: readonly Align[], header: readonly string[][], body: readonly string[][]): string {
  const rows = [...header, ...body].map((row) => row.map((cell) => cleanLine(cell)));
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, index) =>
    Math.max(...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, index) =>
        align[index] === 'right' ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0),
      )
      .join('   ')
      .trimEnd();
  const rule = '─'.repeat(widths.reduce((total, width) => total + width, 0) + 3 * (columns - 1));
  return [...rows.slice(0, header.length).map(line), rule, ...rows.slice(header.length).map(line)].join('\n');
}

function isoMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

function signed(count: number): string {
  return count > 0 ? `+${count}` : String(count);
}
