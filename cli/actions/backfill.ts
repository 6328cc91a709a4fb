import { hostname } from 'node:os';
import type { Command } from 'commander';
import { formatAtlasDate } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { type PollerConfig, runTick } from '../../shared/poll/index.js';
import { DEFAULT_ALERT_RETENTION_MS } from '../../shared/state/index.js';
import { colorEnabled } from '../color.js';
import type { BackfillOptions } from '../commands/backfill.js';
import { CommandFailed, ExitCode, type ExitCodeValue, UsageError } from '../errors.js';
import { LOCAL_LEASE_MS, openLocalPoll } from '../local-dependencies.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { createTickProgressBar } from '../progress-bar.js';
import { describeRun } from '../run-description.js';
import { resolveRunSettings } from '../run-options.js';
import { sinceInstant } from '../since-option.js';
import { createStderrLogger } from '../stderr-logger.js';
import { formatTickReport } from '../summary-table.js';
import { exitCodeForTick } from '../tick-exit-code.js';

/**
 * The longest window a backfill reads at once unless the configuration sets one. A tick's default
 * (6 hours) would cost one Atlas request per 6 hours of history, thousands for a backfill of years;
 * a window that holds many events is still cut shorter (`maxEventsPerWindow`), so memory stays flat.
 */
const BACKFILL_MAX_WINDOW_SECONDS = 30 * 86_400;

function backfillConfig(config: PollerConfig): PollerConfig {
  if (config.timing.maxWindowSeconds !== undefined) return config;
  return { ...config, timing: { ...config.timing, maxWindowSeconds: BACKFILL_MAX_WINDOW_SECONDS } };
}

/**
 * Runs `backfill` (see `registerBackfillCommand`): its flags, the command they were given to, and the
 * process's streams and environment unless `io` replaces them.
 */
export async function backfillAction(
  options: BackfillOptions,
  command: Command,
  io?: PollCommandIo,
): Promise<void> {
  const { stdout, stderr, env, cwd, signals, closedPipe } = io ?? processCommandIo();
  const now = systemClock.now();
  const since = sinceInstant(options.since, now);
  if (since >= now) {
    throw new UsageError(
      `--since ${formatAtlasDate(since)} is not in the past: give an earlier instant, or a duration such as 7d`,
    );
  }
  const settings = await resolveRunSettings({
    options,
    flavorGiven: command.getOptionValueSource('flavor') === 'cli',
    env,
    cwd,
  });
  const logger = createStderrLogger({ stream: stderr, verbose: options.verbose === true });
  const poll = await openLocalPoll({
    settings,
    clock: systemClock,
    logger,
    stdout,
    ruleWarnings: stderr,
    color: colorEnabled({ stream: stdout, env, command }),
  });
  const abort = new AbortController();
  const unsubscribe = signals.subscribe((signal) => {
    if (abort.signal.aborted) return;
    stderr.write(
      `\n${signal}: stopping; unfinished sources keep their cursors and are read again next run\n`,
    );
    abort.abort(new Error(`stopped by ${signal}`));
  });
  // A reader that goes away stops the backfill at once too, freeing its leases and claims.
  let readerGone = false;
  const unsubscribePipe = closedPipe?.((): void => {
    readerGone = true;
    abort.abort(new Error('the reader of the output went away'));
  });
  const bar = createTickProgressBar({ stream: stderr, now: () => systemClock.now() });
  let code: ExitCodeValue;
  try {
    stderr.write(`Backfill from ${formatAtlasDate(since)}: ${describeRun(settings, poll.pack)}\n`);
    if (now - since > DEFAULT_ALERT_RETENTION_MS) {
      stderr.write(
        `warning: --since is more than ${DEFAULT_ALERT_RETENTION_MS / 86_400_000} days ago; alerts sent before then are no longer remembered and may be sent again\n`,
      );
    }
    const summary = await runTick(poll.deps, {
      config: backfillConfig(settings.config),
      owner: `${hostname()}:${process.pid}`,
      since,
      signal: abort.signal,
      leaseMs: LOCAL_LEASE_MS,
      onProgress: (progress) => bar.update(progress),
    });
    bar.done();
    stderr.write(formatTickReport(summary));
    code = abort.signal.aborted ? ExitCode.failed : exitCodeForTick(summary);
  } finally {
    bar.done();
    unsubscribe();
    unsubscribePipe?.();
    await poll.close();
  }
  if (readerGone) return;
  if (code !== ExitCode.ok) {
    throw new CommandFailed(
      abort.signal.aborted ? 'the backfill was stopped before the end: run it again to finish' : '',
      code,
    );
  }
}
