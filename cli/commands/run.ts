import type { Command } from 'commander';
import { durationArgument } from '../duration-option.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { addPollOptions, type PollCommandOptions } from '../poll-options.js';
import { EXAMPLE_TABLE_NAME } from './status.js';

/** The parsed flags of `run`. */
export interface RunOptions extends PollCommandOptions {
  once?: boolean;
  /** Milliseconds. */
  every?: number;
  /** Milliseconds one tick may take. */
  tickTimeout?: number;
  /** `HOST:PORT` to take Atlas webhook pushes on, with `--every`. */
  pushListen?: string;
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
    .option(
      '--push-listen <address>',
      'with --every: take signed Atlas webhook pushes on HOST:PORT (127.0.0.1:8787) and poll the pushed source at once; the secret is read from ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET',
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
      const { runAction } = await import('../actions/run.js');
      await runAction(options, command, io);
    });
}
