import type { Command } from 'commander';
import type { PollCommandIo } from '../poll-command-io.js';

/** The parsed flags of `routes test`. */
export interface RoutesTestOptions {
  alert?: string;
  config?: string;
  json?: boolean;
}

/**
 * Registers `routes test`: which routes of a deploy configuration an alert reaches, and at which of
 * their destinations, decided as SNS decides it: the filter policies the stack gives each
 * subscription, over the message attributes the poller publishes the alert with.
 *
 * @example
 * ```sh
 * atlas-audit-alerts routes test --config deploy/prod.yaml --alert alerts.jsonl
 * ```
 */
export function registerRoutesCommand(program: Command, io?: PollCommandIo): void {
  const routes = program
    .command('routes')
    .description('Check where alerts go: the routes of a deploy configuration.');
  routes
    .command('test')
    .description(
      'Show which routes, and which of their email addresses and Slack channels, an alert reaches.',
    )
    .option(
      '--alert <file>',
      'the alerts: JSON or JSON lines, each an SNS entry (as --notify outbox: writes it) or an alert (ruleId, severity, tags, events, context)',
    )
    .option(
      '--config <file>',
      'the deploy configuration, as cdk deploy --context config=FILE reads it (laid over cdk.json here)',
    )
    .option('--json', 'print the decisions as JSON')
    .addHelpText(
      'after',
      `
The routes are those the stack subscribes: the one alerts.emails and alerts.slack make (named
default: every alert at their severity floors), then the routes list. Each destination gets the
alerts of every route that names it.

An alert's routes depend on its severity, rule id and tags, and on its organization and project (ids
from its first event or context.orgId, names from context.orgName and context.projectName). An SNS
entry written by --notify outbox: carries them all as they are published.

Examples:
  atlas-audit-alerts routes test --config deploy/prod.yaml --alert alert.json
  atlas-audit-alerts run --config poller.yaml --notify outbox:alerts.jsonl
  atlas-audit-alerts routes test --config deploy/prod.yaml --alert alerts.jsonl --json`,
    )
    .action(async (options: RoutesTestOptions) => {
      const { routesTestAction } = await import('../actions/routes.js');
      await routesTestAction(options, io);
    });
}
