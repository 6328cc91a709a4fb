import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { AtlasClientOptions } from '../../shared/atlas/index.js';
import {
  effectiveConnections,
  pollerConfigSchema,
  runTick,
  type TickSummary,
} from '../../shared/poll/index.js';
import { learningEndingAt } from '../../shared/rules/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { colorEnabled } from '../color.js';
import type { DemoOptions } from '../commands/demo.js';
import { showDemoAuditLog } from '../demo-audit-log.js';
import { AdvancingClock } from '../demo-clock.js';
import { DemoNotifier } from '../demo-notifier.js';
import { makeInventoryChanges, secondTickEvents } from '../demo-scenario.js';
import { CommandFailed, ExitCode } from '../errors.js';
import { type LocalPoll, openLocalPoll } from '../local-dependencies.js';
import { type CommandOutput, type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { DEFAULT_RULE_LAYERS } from '../rule-layers.js';
import type { RunSettings } from '../run-options.js';
import { createStderrLogger } from '../stderr-logger.js';
import { formatSummaryTable, formatTickReport, publishedCount } from '../summary-table.js';
import { exitCodeForTick } from '../tick-exit-code.js';

/** How much later the second tick runs, on the demo's clock. */
const TICK_INTERVAL_MS = 5 * 60_000;

/**
 * Runs `demo` (see `registerDemoCommand`): its flags, the command they were given to, and the
 * process's streams and environment unless `io` replaces them.
 */
export async function demoAction(options: DemoOptions, command: Command, io?: PollCommandIo): Promise<void> {
  const { stdout, stderr, env } = io ?? processCommandIo();
  const color = colorEnabled({ stream: stdout, env, command });
  await runDemo({ stdout, stderr, full: options.full === true, push: options.push === true, color });
}

interface RunDemoOptions {
  stdout: CommandOutput;
  stderr: CommandOutput;
  full: boolean;
  /** Show an alert arriving through a webhook push after the two ticks (`--push`). */
  push: boolean;
  /** ANSI colours: on a terminal, unless `--no-color` or `NO_COLOR` say otherwise. */
  color: boolean;
}

async function runDemo({ stdout, stderr, full, push, color }: RunDemoOptions): Promise<void> {
  const style = (code: string, text: string): string => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const heading = (text: string): string => `\n${style('1', `▶ ${text}`)}\n`;
  const clock = new AdvancingClock();
  const sim = await startSimulator({ clock });
  const directory = await mkdtemp(join(tmpdir(), 'atlas-audit-alerts-demo-'));
  let poll: LocalPoll | undefined;
  try {
    let shownInFull = false;
    const notifier = new DemoNotifier({
      stream: stdout,
      clock,
      color,
      printInFull: (alert) => {
        if (full) return true;
        if (shownInFull || alert.severity !== 'critical') return false;
        shownInFull = true;
        return true;
      },
    });
    const settings = demoSettings(sim, join(directory, 'state.json'));
    poll = await openLocalPoll({
      settings,
      clock,
      logger: createStderrLogger({ stream: stderr }),
      stdout,
      notifier,
      // The simulator has no web console to link to; each message still links the event in the API.
      consoleLinks: null,
    });
    stdout.write(introduction(sim, color));

    stdout.write(
      heading(
        `Tick 1: the first poll reads the last hour of ${sim.orgs.length} organizations and ${sim.projects.length} projects`,
      ),
    );
    stdout.write(
      full
        ? '  Every alert as the email reads, then as Slack shows it.\n\n'
        : '  The first critical alert as the email reads, then as Slack shows it; the others on one line each.\n\n',
    );
    const firstTickAt = clock.now();
    // As if deployed one learning period ago: tick 1's history teaches the first-seen rules.
    await poll.store.writeFirstSeen(learningEndingAt(poll.pack, firstTickAt));
    const first = await tick(poll, settings, clock.now());
    stdout.write(`\n${formatTickReport(first)}`);

    clock.advance(TICK_INTERVAL_MS);
    const secondTickAt = clock.now();
    const added = secondTickEvents({ sim, firstTickAt, secondTickAt });
    for (const { scope, event } of added) sim.addEvent(scope, event);
    stdout.write(heading(`Five minutes later, Atlas shows ${added.length} new events`));
    for (const { where, event, why } of added) {
      stdout.write(`  ${where.padEnd(15)} ${String(event.eventTypeName).padEnd(31)} ${why}\n`);
    }
    const changes = makeInventoryChanges(sim);
    stdout.write(`  and ${changes.length} changes without an event:\n`);
    for (const { where, what, why } of changes) stdout.write(`  ${where.padEnd(15)} ${what}: ${why}\n`);

    stdout.write(
      heading(
        'Tick 2: reads again from the watermark minus the 15-minute overlap; events already processed are dropped',
      ),
    );
    stdout.write('\n');
    const second = await tick(poll, settings, secondTickAt);
    stdout.write(`\n${formatTickReport(second)}`);

    let pushed: TickSummary | undefined;
    if (push) {
      stdout.write(
        heading('Push: Atlas posts a signed webhook for a new event, and the poll it wakes reads up to now'),
      );
      // Loaded only for --push: the receiver's code is no cost to the plain demo.
      const { runPushDemo } = await import('../demo-push.js');
      const result = await runPushDemo({ sim, poll, settings, clock, stdout });
      pushed = result.summary;
      stdout.write(`\n${formatTickReport(pushed)}`);
      stdout.write(
        `  The alert was printed ${(result.elapsedMs / 1_000).toFixed(1)} s after Atlas recorded its event; the 5-minute schedule alone would have waited for the next tick, up to 5.5 minutes.\n`,
      );
    }

    stdout.write(heading('Summary'));
    stdout.write(
      `${formatSummaryTable([
        { title: 'tick 1', summary: first },
        { title: 'tick 2', summary: second },
        ...(pushed === undefined ? [] : [{ title: 'push', summary: pushed }]),
      ])}`,
    );
    stdout.write(closing(first, second, added.length, changes.length));

    stdout.write(
      heading('Database audit logs: one object of a cluster exported to S3, read through the same rules'),
    );
    stdout.write(
      '  Atlas exports each host audit log to a bucket of yours; here the simulator writes a minute of one\n  host into a folder that stands for the bucket, and the object source reads it.\n\n',
    );
    const audit = await showDemoAuditLog({
      sim,
      folder: directory,
      atlas: poll.atlas,
      store: poll.store,
      engine: poll.deps.engine,
      notifier: new DemoNotifier({ stream: stdout, clock, color, printInFull: () => true }),
      clock,
      logger: createStderrLogger({ stream: stderr }),
    });
    stdout.write(
      `\n  ${audit.key}: ${audit.lines} lines, ${audit.events} events, ${audit.alerts} ${audit.alerts === 1 ? 'alert' : 'alerts'} (${audit.status}). See docs/audit-logs.md.\n`,
    );
    if (audit.status !== 'settled') {
      throw new CommandFailed('the demo could not read its audit log object: see above', ExitCode.failed);
    }
    const worst = [first, second, ...(pushed === undefined ? [] : [pushed])]
      .map(exitCodeForTick)
      .find((code) => code !== ExitCode.ok);
    if (worst !== undefined) {
      throw new CommandFailed('the demo ran into a problem: see the tick reports above', worst);
    }
  } finally {
    await poll?.close();
    await sim.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

function tick(poll: LocalPoll, settings: RunSettings, now: number): Promise<TickSummary> {
  return runTick(poll.deps, { config: settings.config, owner: `demo:${process.pid}:${now}` });
}

/** A local run's settings pointed at the simulator: both organizations and all their projects. */
function demoSettings(sim: AtlasSimulator, statePath: string): RunSettings {
  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: sim.baseUrl, flavor: 'atlas-v2' },
    sources: { orgIds: [...sim.orgIds], allProjectsOfOrgs: true, accessHistory: true },
    // Every tick takes an inventory, so the second one finds the change made between them.
    timing: { inventoryIntervalSeconds: TICK_INTERVAL_MS / 1000 },
  });
  const atlas: AtlasClientOptions = {
    baseUrl: sim.baseUrl,
    flavor: 'atlas-v2',
    credentials: {
      kind: 'digest',
      publicKey: sim.credentials.publicKey,
      privateKey: sim.credentials.privateKey,
    },
  };
  return {
    config,
    atlas,
    connections: effectiveConnections(config).map((connection) => ({ connection, atlas })),
    rules: [...DEFAULT_RULE_LAYERS],
    state: { kind: 'file', path: statePath },
    notify: { kind: 'console' },
    everyMs: undefined,
  };
}

function introduction(sim: AtlasSimulator, color: boolean): string {
  const bold = (text: string): string => (color ? `\u001b[1m${text}\u001b[0m` : text);
  return [
    `${bold('atlas-audit-alerts demo')}: two real poll ticks against a simulated Atlas, on this machine only.`,
    `  Atlas:  the built-in simulator at ${sim.baseUrl}: ${sim.orgs.length} organizations, ${sim.projects.length} projects, an hour of activity`,
    '  Rules:  the built-in rules/ folder',
    '  State:  a state file in a fresh temporary folder (deleted at the end), as a local run keeps it',
    '  Alerts: printed here, built exactly as they would be published to SNS for email and Slack',
    '  First seen: the rules start as if deployed a learning period (7 days) before tick 1, so tick 1 only',
    '          teaches them who acts from where, and tick 2 alerts on what is new',
    '',
  ].join('\n');
}

function closing(first: TickSummary, second: TickSummary, added: number, changes: number): string {
  const alertsSecond = publishedCount(second.totals.alerts);
  return [
    '',
    `Tick 2 read ${second.totals.eventsFetched} events, the overlap included, and found ${second.totals.eventsNew} new: ${alertsSecond} ${
      alertsSecond === 1 ? 'alert' : 'alerts'
    } for the ${added} events Atlas showed since tick 1 and the ${changes} changes the inventory found, and none of tick 1's ${publishedCount(first.totals.alerts)} again.`,
    'Next: poll your own organization with `atlas-audit-alerts run --help`, tune rules with `atlas-audit-alerts rules test`.',
    '',
  ].join('\n');
}
