import type { Command } from 'commander';
import type { PollCommandIo } from '../poll-command-io.js';
import { addPollOptions, type PollCommandOptions } from '../poll-options.js';
import { parseSince, type SinceValue } from '../since-option.js';

/** The parsed flags of `backfill`. */
export interface BackfillOptions extends PollCommandOptions {
  since: SinceValue;
}

/**
 * Registers `backfill`: one tick that reads every configured source from `--since` up to now (minus
 * the lag), even where its cursor is later, through the same path as every tick: events already
 * processed in the overlap are dropped, alerts already sent are not sent again (their records are kept
 * 30 days), and no cursor moves back. A progress bar is drawn on stderr when it is a terminal. SIGINT or
 * SIGTERM stops it at once; what was not finished is read again by the next run.
 *
 * @example
 * ```sh
 * atlas-audit-alerts backfill --since 2024-05-01T00:00:00Z --org 5f4e3d2c1b0a998877665544
 * ```
 */
export function registerBackfillCommand(program: Command, io?: PollCommandIo): void {
  addPollOptions(
    program
      .command('backfill')
      .description(
        'Read the configured sources again from --since up to now, once, without repeating alerts already sent or moving cursors back.',
      )
      .requiredOption(
        '--since <when>',
        'read from this time: a duration back from now (7d, 12h) or an ISO-8601 date or instant (2024-05-01T00:00:00Z)',
        parseSince,
      ),
  ).action(async (options: BackfillOptions, command: Command) => {
    const { backfillAction } = await import('../actions/backfill.js');
    await backfillAction(options, command, io);
  });
}
