import { hostname } from 'node:os';
import type { Command } from 'commander';
import { systemClock } from '../../shared/clock.js';
import { runTick, type TickSummary } from '../../shared/poll/index.js';
import { colorEnabled } from '../color.js';
import { durationArgument, formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';
import { LOCAL_LEASE_MS, openLocalPoll } from '../local-dependencies.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { describeRun } from '../run-description.js';
import { addPollOptions, type PollCommandOptions, resolveRunSettings } from '../run-options.js';
import { createStderrLogger } from '../stderr-logger.js';
import { GracefulStop } from '../stop-signals.js';
import { formatTickReport } from '../summary-table.js';
import { exitCodeForTick } from '../tick-exit-code.js';
import { EXAMPLE_TABLE_NAME } from './status.js';

interface RunOptions extends PollCommandOptions {
  once?: boolean;
  /** Milliseconds. */
  every?: number;
  /** Milliseconds one tick may take. */
  tickTimeout?: number;
}

/** How long a single tick (`--once`) may take, unless `--tick-timeout` says otherwise. */
const DEFAULT_ONCE_TICK_TIMEOUT_MS = 10 * 60_000;

/**
 * How long each tick may take: `--tick-timeout`, else the interval of `--every` (at least twice the
 * deadline margin, so sources have time to start), else 10 minutes.
 *
 * @throws UsageError when `--tick-timeout` leaves no time past the deadline margin.
 */
function tickTimeoutMs(options: RunOptions, everyMs: number | undefined, marginMs: number): number {
  if (options.tickTimeout !== undefined) {
    if (options.tickTimeout <= marginMs) {
      throw new UsageError(
        `--tick-timeout ${formatDuration(options.tickTimeout)} leaves no time to poll: it must be longer than ` +
          `the deadline margin (${formatDuration(marginMs)}, timing.deadlineMarginSeconds), within which no source starts`,
      );
    }
    return options.tickTimeout;
  }
  return everyMs === undefined ? DEFAULT_ONCE_TICK_TIMEOUT_MS : Math.max(everyMs, 2 * marginMs);
}

/**
 * Says so when a tick may run longer than the interval of `--every`: without `--tick-timeout`, a tick
 * gets at least twice the deadline margin, however short the interval.
 */
function longerTick(everyMs: number, timeoutMs: number, given: boolean): string {
  if (timeoutMs <= everyMs) return '';
  const why = given ? '--tick-timeout' : 'at least twice timing.deadlineMarginSeconds';
  return `; a tick may take up to ${formatDuration(timeoutMs)} (${why})`;
}

/**
 * Registers `run`: polls the configured sources with the same tick the Lambda runs, once (`--once`,
 * the default) or every DURATION until SIGINT or SIGTERM (`--every`), with a file or DynamoDB state
 * store and a console, outbox or SNS notifier. Alerts go to stdout (console notifier); each tick's
 * report goes to stderr. Exit codes as `cli/errors.ts` says (`exitCodeForTick` for a single tick).
 *
 * @example
 * ```sh
 * atlas-audit-alerts run --org 5f4e3d2c1b0a998877665544 --all-projects --every 5m
 * ```
 */
export function registerRunCommand(program: Command, io?: PollCommandIo): void {
  addPollOptions(
    program
      .command('run')
      .description(
        'Poll Atlas and deliver alerts, as the Lambda does: one tick (--once, the default) or one every DURATION until stopped.',
      ),
  )
    .option('--once', 'run one tick, then exit (the default)')
    .option(
      '--every <duration>',
      'run a tick every DURATION (5m, 1h...) until SIGINT or SIGTERM',
      durationArgument({ minMs: 1_000 }),
    )
    .option(
      '--tick-timeout <duration>',
      'stop starting sources, and cut calls short, so that a tick ends within DURATION (default: the --every interval but at least twice timing.deadlineMarginSeconds, 40s by default; 10m for a single tick)',
      durationArgument({ minMs: 1_000 }),
    )
    .addHelpText(
      'after',
      `
Examples:
  atlas-audit-alerts run --org 5f4e3d2c1b0a998877665544 --all-projects
  atlas-audit-alerts run --config poller.yaml --every 5m --notify outbox:alerts.jsonl
  atlas-audit-alerts run --project 5f4e3d2c1b0a998877665545 --state dynamodb:${EXAMPLE_TABLE_NAME}`,
    )
    .action(async (options: RunOptions, command: Command) => {
      const { stdout, stderr, env, cwd, signals, closedPipe } = io ?? processCommandIo();
      if (options.once && options.every !== undefined) {
        throw new UsageError('--once and --every exclude each other: give one of them');
      }
      const settings = await resolveRunSettings({
        options,
        flavorGiven: command.getOptionValueSource('flavor') === 'cli',
        env,
        cwd,
      });
      const everyMs = options.once ? undefined : (options.every ?? settings.everyMs);
      const timeoutMs = tickTimeoutMs(options, everyMs, settings.config.timing.deadlineMarginSeconds * 1_000);
      const logger = createStderrLogger({ stream: stderr, verbose: options.verbose === true });
      const poll = await openLocalPoll({
        settings,
        clock: systemClock,
        logger,
        stdout,
        ruleWarnings: stderr,
        color: colorEnabled({ stream: stdout, env, command }),
      });
      const stop = new GracefulStop({ signals, stderr });
      // A reader that goes away (`run --once | head -1`) stops the tick at once, as a second Ctrl+C
      // does: its leases and the claims of the alerts it could not print are freed, not left to lapse.
      let readerGone = false;
      const unsubscribePipe = closedPipe?.((): void => {
        readerGone = true;
        stop.stopNow('output closed');
      });
      const owner = `${hostname()}:${process.pid}`;
      let last: TickSummary | undefined;
      try {
        stderr.write(
          `${describeRun(settings, poll.pack)}${everyMs === undefined ? '' : `; a tick every ${formatDuration(everyMs)} until Ctrl+C${longerTick(everyMs, timeoutMs, options.tickTimeout !== undefined)}`}\n`,
        );
        while (true) {
          const startedAt = systemClock.now();
          last = await stop.during(() =>
            runTick(poll.deps, {
              config: settings.config,
              owner,
              signal: stop.abortSignal,
              leaseMs: LOCAL_LEASE_MS,
              deadline: startedAt + timeoutMs,
            }),
          );
          stderr.write(formatTickReport(last));
          if (everyMs === undefined || stop.requested !== undefined) break;
          await stop.wait(startedAt + everyMs - systemClock.now());
          if (stop.requested !== undefined) break;
        }
      } finally {
        unsubscribePipe?.();
        stop.dispose();
        await poll.close();
      }
      // Nobody reads any more: end quietly, as a command whose reader went away does.
      if (readerGone) return;
      if (everyMs === undefined && last !== undefined) {
        const code = exitCodeForTick(last);
        // The report above says what went wrong; the exit code says what kind of trouble it was.
        if (code !== ExitCode.ok) throw new CommandFailed('', code);
      }
    });
}
