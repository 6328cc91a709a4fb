import type { Command } from 'commander';
import type { PollCommandIo } from '../poll-command-io.js';

/** The parsed flags of `demo`. */
export interface DemoOptions {
  full?: boolean;
  push?: boolean;
}

/**
 * Registers `demo` (what `npm start` runs): the Atlas simulator with its default seed, two real poll
 * ticks with the built-in rules, a state file in a fresh temporary folder (removed afterwards) and the
 * alerts printed as they would arrive. Between the ticks the simulator shows three new events, one of
 * them late and two in the same second, and the second tick alerts on those three only. Ends with a
 * table of both ticks. With `--push`, the simulated Atlas then posts a signed webhook for a new event
 * to a local receiver, and the poll it wakes prints the alert seconds after the event. Nothing leaves
 * the machine: no AWS, no network beyond loopback.
 *
 * @example
 * ```sh
 * npm start                # atlas-audit-alerts demo
 * npm start -- --push      # and an alert through a webhook push
 * ```
 */
export function registerDemoCommand(program: Command, io?: PollCommandIo): void {
  program
    .command('demo')
    .description(
      'Run two poll ticks against the built-in Atlas simulator and print the alerts, as email and Slack would show them (no AWS, no network).',
    )
    .option(
      '--full',
      'print every alert as the email and the Slack message (default: one in full, the rest on one line)',
    )
    .option(
      '--push',
      'then show an alert arriving seconds after its event: a signed webhook from the simulated Atlas wakes a poll',
    )
    .action(async (options: DemoOptions, command: Command) => {
      const { demoAction } = await import('../actions/demo.js');
      await demoAction(options, command, io);
    });
}
