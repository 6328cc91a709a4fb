import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AtlasEvent } from '../shared/atlas/types.js';
import type { Clock } from '../shared/clock.js';
import { type Alert, type Severity, severityRank } from '../shared/notify/alert.js';
import { buildDigestEntries } from '../shared/notify/digest-message.js';
import { type DigestEvery, digestPeriodAt, parseDigestPeriod } from '../shared/notify/digest-period.js';
import { digestEntryOf } from '../shared/poll/digest-destination.js';
import {
  createRuleEngine,
  emptySeverityCounts,
  loadRulePack,
  MemoryCounterStore,
  MemoryFirstSeenStore,
  type RulePack,
  type SeverityCounts,
} from '../shared/rules/index.js';
import type { DigestEntry } from '../shared/state/digest-store.js';
import { generateWeek, type IncidentKind, type SimulatedWeek } from '../simulator/index.js';
import { renderTable } from './support/table.js';

/**
 * The alert budget, measured: the default rule pack over a simulated week of an organization of 20
 * projects (`generateWeek`: routine administration and four planted incidents), evaluated as the
 * poller evaluates it (one engine, a poll tick every 5 minutes, each source's new events as one batch,
 * sources in turn), after a week of the same routine that first-seen rules learn from. It reports the
 * messages a day to the route that takes every alert (one SNS message per alert, as today) and to a
 * subscription of high and critical alerts only; what the pack's suppression already saves against
 * one message per occurrence; how many occurrences the roll-ups told of (and how many still wait for
 * their group's next alert); and whether each planted incident went out as a message of its own in
 * the tick that read it.
 *
 * Nothing is dropped: every occurrence a suppressed rule's match would alert for without `suppress`
 * (counted by the same rules with `suppress` removed) is an alert, or counted in an alert's roll-up, or
 * waiting in the counter store for the group's next alert (`untold`); `accounted` says the three add up.
 */
export interface AlertBudgetOptions {
  /** Seed of the simulated weeks. Default 7. */
  seed?: number;
  /** Poll interval. Default 5 minutes. */
  tickMs?: number;
  /** Rule layers; default the built-in pack alone. */
  paths?: readonly string[];
  /**
   * The route's digest: alerts below this severity go to it, the others one by one. Default: the
   * default route's, info and low in a daily digest.
   */
  digest?: { below: Severity; every: DigestEvery };
}

/** The same alerts through the route's digest: what its email and Slack receive. */
export interface DigestBudget {
  below: Severity;
  every: DigestEvery;
  /** Alerts at or above `below`: one message each. */
  oneByOne: number;
  /** Alerts below it: told in the digests. */
  digested: number;
  /** Digests sent (one per period that held alerts) and the messages they took (parts). */
  digests: number;
  digestMessages: number;
  /** Messages a day to the route: the alerts one by one and the digests' messages. */
  messagesPerDay: number;
  /** Whether every alert is in a message or counted in a digest's rendered groups: nothing dropped. */
  accounted: boolean;
  /** Whether each planted incident still went out as a message of its own in the tick that read it. */
  incidentsOwnMessage: boolean;
}

/** How one planted incident was delivered. */
export interface IncidentDelivery {
  kind: IncidentKind;
  description: string;
  /** Rules whose alerts carry one of its events. */
  ruleIds: string[];
  /** Whether an alert carrying one of its events went out as a message in the tick that first read one. */
  ownMessageWithinOneTick: boolean;
  /** Ticks from the one that read its first event to its first alert; `null` for no alert. */
  ticksToAlert: number | null;
}

export interface AlertBudgetResult {
  seed: number;
  days: number;
  projects: number;
  events: number;
  ticks: number;
  /** Alerts raised: one SNS message each, to the route that takes every alert. */
  alerts: number;
  bySeverity: SeverityCounts;
  messagesPerDay: number;
  busiestDayMessages: number;
  /** Messages a day to a subscription of high and critical alerts only. */
  highAndCriticalPerDay: number;
  /** Occurrences the suppressed rules' matches would alert for without `suppress`. */
  suppressedRuleOccurrences: number;
  /** Messages a day if every occurrence were its own message (no suppression). */
  oneMessagePerOccurrencePerDay: number;
  /** Occurrences suppressed: not sent one by one. */
  suppressed: number;
  /** Of them, those an alert's roll-up told of. */
  toldInRollUps: number;
  /** Alerts that carried a roll-up. */
  alertsWithRollUp: number;
  /** Of them, those still waiting for their group's next alert (or a digest) at the end of the week. */
  untold: number;
  /** Whether alerts, roll-ups and untold occurrences add up to every occurrence: nothing dropped. */
  accounted: boolean;
  /** The rules that sent the most messages. */
  topRules: Array<{ ruleId: string; severity: Severity; alerts: number; perDay: number }>;
  incidents: IncidentDelivery[];
  /** The same alerts to a route with a digest. */
  digest: DigestBudget;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A clock the simulation sets to each tick's time. */
class TickClock implements Clock {
  time = 0;
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    this.time += ms;
    return Promise.resolve();
  }
}

/** The week's events by tick (the first tick whose time is after the event) and by source, in order. */
function ticksOf(week: SimulatedWeek, tickMs: number): Map<number, Map<string, AtlasEvent[]>> {
  const ticks = new Map<number, Map<string, AtlasEvent[]>>();
  for (const { source, event } of week.events) {
    const tick = Math.floor(Date.parse(String(event.created)) / tickMs) + 1;
    let sources = ticks.get(tick);
    if (sources === undefined) {
      sources = new Map();
      ticks.set(tick, sources);
    }
    const batch = sources.get(source);
    if (batch === undefined) sources.set(source, [event]);
    else batch.push(event);
  }
  return ticks;
}

/** Evaluates a week tick by tick, source by source; returns each alert with the tick it went out in. */
async function pollWeek(
  engine: ReturnType<typeof createRuleEngine>,
  clock: TickClock,
  week: SimulatedWeek,
  tickMs: number,
): Promise<Array<{ alert: Alert; tick: number }>> {
  const raised: Array<{ alert: Alert; tick: number }> = [];
  const ticks = ticksOf(week, tickMs);
  const first = Math.floor(week.start / tickMs) + 1;
  const last = Math.floor(week.end / tickMs);
  for (let tick = first; tick <= last; tick++) {
    clock.time = tick * tickMs;
    const sources = ticks.get(tick);
    if (sources === undefined) continue;
    // Organization first, then projects, then clusters' access histories, as the tick orders kinds.
    const order = [...sources.keys()].sort((a, b) => kindRank(a) - kindRank(b));
    for (const source of order) {
      for (const alert of await engine.evaluate(sources.get(source) as AtlasEvent[]))
        raised.push({ alert, tick });
    }
  }
  return raised;
}

function kindRank(source: string): number {
  return source.startsWith('org:') ? 0 : source.startsWith('project:') ? 1 : 2;
}

/** The pack with the rules that have `suppress` only, and without it: every occurrence alerts. */
function withoutSuppression(pack: RulePack): { pack: RulePack; ruleIds: string[] } {
  const ruleIds = pack.rules
    .filter(({ spec }) => spec.enabled !== false && spec.suppress !== undefined)
    .map(({ spec }) => spec.id);
  return {
    pack: {
      ...pack,
      rules: pack.rules.map((rule) => {
        if (rule.spec.suppress === undefined) return rule;
        const { suppress: _suppress, ...spec } = rule.spec;
        return { ...rule, spec };
      }),
    },
    ruleIds,
  };
}

/**
 * Measures the alert budget (see the module comment).
 *
 * @example
 * ```ts
 * const result = await measureAlertBudget({ seed: 7 });
 * result.messagesPerDay;
 * ```
 */
export async function measureAlertBudget(options: AlertBudgetOptions = {}): Promise<AlertBudgetResult> {
  const seed = options.seed ?? 7;
  const tickMs = options.tickMs ?? 5 * MINUTE;
  const pack = await loadRulePack({
    paths: options.paths ?? ['builtin'],
    builtinDirectory: fileURLToPath(new URL('../rules/', import.meta.url)),
  });
  const week = generateWeek({ seed });
  const learning = generateWeek({
    seed: seed + 1,
    organizationSeed: seed,
    start: week.start - 7 * DAY,
    incidents: false,
  });
  const days = Math.round((week.end - week.start) / DAY);

  // First-seen rules learn for a week, as after an installation's first week.
  const firstSeen = new MemoryFirstSeenStore();
  const clock = new TickClock();
  await pollWeek(
    createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen, clock }),
    clock,
    learning,
    tickMs,
  );
  const counters = new MemoryCounterStore();
  const raised = await pollWeek(createRuleEngine({ pack, counters, firstSeen, clock }), clock, week, tickMs);

  // The same week through the suppressed rules with `suppress` removed: every occurrence.
  const bare = withoutSuppression(pack);
  const occurrences = await pollWeek(
    createRuleEngine({ pack: bare.pack, ruleIds: bare.ruleIds, counters: new MemoryCounterStore(), clock }),
    clock,
    week,
    tickMs,
  );

  const bySeverity = emptySeverityCounts();
  const byRule = new Map<string, { severity: Severity; alerts: number }>();
  const byDay = new Map<number, number>();
  let toldInRollUps = 0;
  let alertsWithRollUp = 0;
  const toldByRule = new Map<string, number>();
  for (const { alert, tick } of raised) {
    bySeverity[alert.severity] += 1;
    const rule = byRule.get(alert.ruleId) ?? { severity: alert.severity, alerts: 0 };
    rule.alerts += 1;
    byRule.set(alert.ruleId, rule);
    const day = Math.floor((tick * tickMs - 1 - week.start) / DAY);
    byDay.set(day, (byDay.get(day) ?? 0) + 1);
    if (alert.rollUp !== undefined) {
      toldInRollUps += alert.rollUp.suppressed;
      alertsWithRollUp += 1;
      toldByRule.set(alert.ruleId, (toldByRule.get(alert.ruleId) ?? 0) + alert.rollUp.suppressed);
    }
  }
  const untoldByRule = new Map<string, number>();
  let untold = 0;
  for (const pending of counters.untoldRollUps()) {
    const ruleId = pending.key.split('|')[1] ?? '';
    untoldByRule.set(ruleId, (untoldByRule.get(ruleId) ?? 0) + pending.suppressed);
    untold += pending.suppressed;
  }
  const occurrencesByRule = new Map<string, number>();
  for (const { alert } of occurrences) {
    occurrencesByRule.set(alert.ruleId, (occurrencesByRule.get(alert.ruleId) ?? 0) + 1);
  }
  const suppressedRuleOccurrences = occurrences.length;
  const accounted = bare.ruleIds.every(
    (ruleId) =>
      (occurrencesByRule.get(ruleId) ?? 0) ===
      (byRule.get(ruleId)?.alerts ?? 0) + (toldByRule.get(ruleId) ?? 0) + (untoldByRule.get(ruleId) ?? 0),
  );
  const suppressedRuleAlerts = bare.ruleIds.reduce(
    (sum, ruleId) => sum + (byRule.get(ruleId)?.alerts ?? 0),
    0,
  );

  const incidents = week.incidents.map((incident): IncidentDelivery => {
    const ids = new Set(incident.eventIds);
    const firstTick = Math.floor(incident.at / tickMs) + 1;
    const carrying = raised.filter(({ alert }) => alert.events.some((event) => ids.has(String(event.id))));
    const earliest = carrying.reduce((min, { tick }) => Math.min(min, tick), Number.POSITIVE_INFINITY);
    return {
      kind: incident.kind,
      description: incident.description,
      ruleIds: [...new Set(carrying.map(({ alert }) => alert.ruleId))].sort(),
      ownMessageWithinOneTick: carrying.some(({ tick }) => tick === firstTick),
      ticksToAlert: carrying.length === 0 ? null : earliest - firstTick,
    };
  });

  const perDay = (count: number): number => Math.round((count / days) * 10) / 10;
  const digest = digestBudget({
    raised,
    incidents: week.incidents,
    tickMs,
    days,
    settings: options.digest ?? { below: 'medium', every: 'daily' },
  });
  return {
    seed,
    days,
    projects: week.projectIds.length,
    events: week.events.length,
    ticks: Math.floor(week.end / tickMs) - Math.floor(week.start / tickMs),
    alerts: raised.length,
    bySeverity,
    messagesPerDay: perDay(raised.length),
    busiestDayMessages: Math.max(0, ...byDay.values()),
    highAndCriticalPerDay: perDay(bySeverity.high + bySeverity.critical),
    suppressedRuleOccurrences,
    oneMessagePerOccurrencePerDay: perDay(raised.length - suppressedRuleAlerts + suppressedRuleOccurrences),
    suppressed: suppressedRuleOccurrences - suppressedRuleAlerts,
    toldInRollUps,
    alertsWithRollUp,
    untold,
    accounted,
    topRules: [...byRule]
      .map(([ruleId, { severity, alerts }]) => ({ ruleId, severity, alerts, perDay: perDay(alerts) }))
      .sort((a, b) => b.alerts - a.alerts || a.ruleId.localeCompare(b.ruleId))
      .slice(0, 10),
    incidents,
    digest,
  };
}

/**
 * The week's alerts through a route with a digest, as the poller delivers them: each alert below the
 * digest severity is appended to the period of the tick that raised it, and each period's digest is
 * rendered as it is sent (`buildDigestEntries`: groups, parts within SNS's limits); the others are
 * one message each. The alerts each digest tells are counted back from its rendered email.
 */
function digestBudget(options: {
  raised: ReadonlyArray<{ alert: Alert; tick: number }>;
  incidents: SimulatedWeek['incidents'];
  tickMs: number;
  days: number;
  settings: { below: Severity; every: DigestEvery };
}): DigestBudget {
  const { raised, tickMs, settings } = options;
  const belowRank = severityRank(settings.below);
  const oneByOne = raised.filter(({ alert }) => severityRank(alert.severity) >= belowRank);
  const periods = new Map<string, DigestEntry[]>();
  for (const { alert, tick } of raised) {
    if (severityRank(alert.severity) >= belowRank) continue;
    const period = digestPeriodAt(settings.every, tick * tickMs).id;
    const entries = periods.get(period) ?? [];
    entries.push(digestEntryOf(alert, { console: { console: ATLAS_CONSOLE } }));
    periods.set(period, entries);
  }
  let digestMessages = 0;
  let told = 0;
  for (const [id, entries] of periods) {
    const period = parseDigestPeriod(id);
    if (period === undefined) throw new Error(`digest period ${id} does not parse`);
    const parts = buildDigestEntries({ route: 'security', period, entries });
    digestMessages += parts.length;
    for (const part of parts) {
      const email = (JSON.parse(part.Message) as { email: string }).email;
      for (const match of email.matchAll(/^ {2}(\d+) alerts?:/gm)) told += Number(match[1]);
    }
  }
  const incidentsOwnMessage = options.incidents.every((incident) => {
    const ids = new Set(incident.eventIds);
    const firstTick = Math.floor(incident.at / tickMs) + 1;
    return oneByOne.some(
      ({ alert, tick }) => tick === firstTick && alert.events.some((event) => ids.has(String(event.id))),
    );
  });
  return {
    below: settings.below,
    every: settings.every,
    oneByOne: oneByOne.length,
    digested: raised.length - oneByOne.length,
    digests: periods.size,
    digestMessages,
    messagesPerDay: Math.round(((oneByOne.length + digestMessages) / options.days) * 10) / 10,
    accounted: oneByOne.length + told === raised.length,
    incidentsOwnMessage,
  };
}

const ATLAS_CONSOLE = { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' } as const;

/** The second scenario's layer: the repeats of routine changes suppressed for longer. */
export const REPEATS_LAYER = fileURLToPath(new URL('./support/alert-budget-repeats.yaml', import.meta.url));

/** Both scenarios' results: the built-in pack as shipped, and with the repeats layer. */
export interface AlertBudgetReport {
  builtin: AlertBudgetResult;
  repeats: AlertBudgetResult;
}

/**
 * Runs both scenarios over the same week.
 *
 * @example
 * ```ts
 * const report = await runAlertBudget({ seed: 7 });
 * ```
 */
export async function runAlertBudget(options: { seed?: number } = {}): Promise<AlertBudgetReport> {
  return {
    builtin: await measureAlertBudget({ ...options, paths: ['builtin'] }),
    repeats: await measureAlertBudget({ ...options, paths: ['builtin', REPEATS_LAYER] }),
  };
}

/**
 * The report as docs/alerts.md shows it: messages a day to the route of every alert and to a
 * subscription of high and critical ones, for one message per occurrence, for the pack as shipped
 * (one message per alert, roll-ups telling the suppressed repeats), and with the repeats layer; what
 * became of the suppressed occurrences; the noisiest rules; and each planted incident's delivery.
 */
export function renderAlertBudget(report: AlertBudgetReport): string {
  const { builtin, repeats } = report;
  const row = (label: string, result: AlertBudgetResult, messages: number, perDay: number): string[] => [
    label,
    String(messages),
    String(perDay),
    String(result.highAndCriticalPerDay),
    `${Math.round((builtin.messagesPerDay / perDay) * 100) / 100}x`,
  ];
  const table = (...args: Parameters<typeof renderTable>): string => renderTable(...args).trimEnd();
  const lines = [
    `A simulated week (seed ${builtin.seed}): ${builtin.projects} projects, ${builtin.events} events, ${builtin.ticks} poll ticks of 5 minutes.`,
    '',
    table(
      ['every alert to one route', 'messages', 'a day', 'high+critical a day', 'fewer than today'],
      [
        row(
          'one message per occurrence (no suppress)',
          builtin,
          Math.round(builtin.oneMessagePerOccurrencePerDay * builtin.days),
          builtin.oneMessagePerOccurrencePerDay,
        ),
        row('built-in pack, one message per alert', builtin, builtin.alerts, builtin.messagesPerDay),
        row('built-in pack + repeats layer', repeats, repeats.alerts, repeats.messagesPerDay),
        row(
          `built-in pack + ${builtin.digest.every} digest below ${builtin.digest.below}`,
          builtin,
          builtin.digest.oneByOne + builtin.digest.digestMessages,
          builtin.digest.messagesPerDay,
        ),
        row(
          `+ repeats layer + ${repeats.digest.every} digest below ${repeats.digest.below}`,
          repeats,
          repeats.digest.oneByOne + repeats.digest.digestMessages,
          repeats.digest.messagesPerDay,
        ),
      ],
    ),
    '',
    ...[
      ['built-in pack', builtin],
      ['built-in pack + repeats layer', repeats],
    ].map(([label, result]) => {
      const counts = (result as AlertBudgetResult).bySeverity;
      return `${label}, messages by severity: ${Object.entries(counts)
        .map(([severity, count]) => `${severity} ${count}`)
        .join(', ')}`;
    }),
    ...[
      ['built-in pack', builtin],
      ['built-in pack + repeats layer', repeats],
    ].map(
      ([label, result]) =>
        `${label}: ${(result as AlertBudgetResult).suppressed} occurrences suppressed, ${(result as AlertBudgetResult).toldInRollUps} told in the roll-ups of ${(result as AlertBudgetResult).alertsWithRollUp} alerts, ${(result as AlertBudgetResult).untold} waiting for their group's next alert; nothing dropped: ${(result as AlertBudgetResult).accounted ? 'yes' : 'NO'}`,
    ),
    ...[
      ['built-in pack', builtin],
      ['built-in pack + repeats layer', repeats],
    ].map(([label, result]) => {
      const digest = (result as AlertBudgetResult).digest;
      return `${label} with the digest: ${digest.oneByOne} alerts one by one, ${digest.digested} in ${digest.digests} digests of ${digest.digestMessages} messages; every alert in a message or a digest: ${digest.accounted ? 'yes' : 'NO'}`;
    }),
    '',
    table(
      ['rule (built-in pack)', 'severity', 'messages', 'a day', 'with repeats layer'],
      builtin.topRules.map((rule) => [
        rule.ruleId,
        rule.severity,
        String(rule.alerts),
        String(rule.perDay),
        String(repeats.topRules.find((other) => other.ruleId === rule.ruleId)?.perDay ?? '-'),
      ]),
    ),
    '',
    table(
      ['incident', 'alerted by', 'own message within one tick'],
      builtin.incidents.map((incident, at) => [
        incident.kind,
        incident.ruleIds.join(', ') || '(none)',
        incident.ownMessageWithinOneTick &&
        repeats.incidents[at]?.ownMessageWithinOneTick === true &&
        builtin.digest.incidentsOwnMessage &&
        repeats.digest.incidentsOwnMessage
          ? 'yes'
          : 'NO',
      ]),
      2,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const index = process.argv.indexOf('--seed');
  const report = await runAlertBudget(index === -1 ? {} : { seed: Number(process.argv[index + 1]) });
  process.stdout.write(
    `alert budget: the default rule pack over a simulated week, Node ${process.version}\n\n`,
  );
  process.stdout.write(renderAlertBudget(report));
  process.stdout.write(`${JSON.stringify({ benchmark: 'alert-budget', ...report })}\n`);
  const results = [report.builtin, report.repeats];
  if (
    results.some(
      (result) =>
        !result.accounted ||
        !result.digest.accounted ||
        !result.digest.incidentsOwnMessage ||
        result.incidents.some((incident) => !incident.ownMessageWithinOneTick),
    )
  ) {
    process.exitCode = 1;
  }
}
