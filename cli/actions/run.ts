import { hostname } from 'node:os';
import type { Command } from 'commander';
import { systemClock } from '../../shared/clock.js';
import { DiscoveryCache, type PollSource, runTick, type TickSummary } from '../../shared/poll/index.js';
import { colorEnabled } from '../color.js';
import type { RunOptions } from '../commands/run.js';
import { formatDuration } from '../duration-option.js';
import { CommandFailed, ExitCode, UsageError } from '../errors.js';
import { LOCAL_LEASE_MS, openLocalPoll } from '../local-dependencies.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import type { PushListener } from '../push-listener.js';
import { describeRun } from '../run-description.js';
import { resolveRunSettings } from '../run-options.js';
import { createStderrLogger } from '../stderr-logger.js';
import { GracefulStop } from '../stop-signals.js';
import { formatTickReport } from '../summary-table.js';
import { exitCodeForTick } from '../tick-exit-code.js';

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
 * Runs `run` (see `registerRunCommand`): its flags, the command they were given to, and the process's
 * streams and environment unless `io` replaces them.
 */
export async function runAction(options: RunOptions, command: Command, io?: PollCommandIo): Promise<void> {
  const { stdout, stderr, env, cwd, signals, closedPipe } = io ?? processCommandIo();
  if (options.once && options.every !== undefined) {
    throw new UsageError('--once and --every exclude each other: give one of them');
  }
  if (options.pushListen !== undefined && options.once) {
    throw new UsageError('--push-listen needs a run that keeps going: give --every, not --once');
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
  let push: PushListener | undefined;
  try {
    if (options.pushListen !== undefined) {
      if (everyMs === undefined) {
        throw new UsageError('--push-listen needs a run that keeps going: give --every');
      }
      // Loaded only for a run that listens: the receiver's code is no cost to the others.
      const { openPushListener } = await import('../push-listener.js');
      push = await openPushListener({
        address: options.pushListen,
        connections: settings.connections.map(({ connection }) => connection),
        env,
        store: poll.store,
        atlas: (connection) => {
          const atlas = poll.deps.atlas;
          return typeof atlas === 'function' ? atlas(connection) : Promise.resolve(atlas);
        },
        discoveryCache: poll.deps.discoveryCache ?? new DiscoveryCache(),
        onQueued: () => stop.wakeUp(),
        logger,
      });
    }
    stderr.write(
      `${describeRun(settings, poll.pack)}${everyMs === undefined ? '' : `; a tick every ${formatDuration(everyMs)} until Ctrl+C${longerTick(everyMs, timeoutMs, options.tickTimeout !== undefined)}`}${push === undefined ? '' : `; pushes taken at ${push.url}`}\n`,
    );
    const tick = (sources?: PollSource[]) => {
      const startedAt = systemClock.now();
      return stop.during(() =>
        runTick(poll.deps, {
          config: settings.config,
          owner,
          signal: stop.abortSignal,
          leaseMs: LOCAL_LEASE_MS,
          deadline: startedAt + timeoutMs,
          // The sources pushes queued: each walk reads up to now, where the pushed event is.
          ...(sources === undefined ? {} : { sources, woken: sources }),
        }),
      );
    };
    while (true) {
      const startedAt = systemClock.now();
      last = await tick();
      stderr.write(formatTickReport(last));
      if (everyMs === undefined || stop.requested !== undefined) break;
      const next = startedAt + everyMs;
      // Between scheduled ticks, each push that queued a source wakes a tick over the sources queued.
      while (push !== undefined && stop.requested === undefined && systemClock.now() < next) {
        if (push.pending === 0) await stop.wait(next - systemClock.now());
        if (stop.requested !== undefined) break;
        const sources = await push.take();
        if (sources.length === 0) continue;
        stderr.write(`push: polling ${sources.map((source) => source.name).join(', ')}\n`);
        stderr.write(formatTickReport(await tick(sources)));
      }
      await stop.wait(next - systemClock.now());
      if (stop.requested !== undefined) break;
    }
  } finally {
    unsubscribePipe?.();
    stop.dispose();
    await push?.close();
    await poll.close();
  }
  // Nobody reads any more: end quietly, as a command whose reader went away does.
  if (readerGone) return;
  if (everyMs === undefined && last !== undefined) {
    const code = exitCodeForTick(last);
    // The report above says what went wrong; the exit code says what kind of trouble it was.
    if (code !== ExitCode.ok) throw new CommandFailed('', code);
  }
}
