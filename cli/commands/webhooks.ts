import type { Command } from 'commander';
import { addAtlasOptions } from '../atlas-options.js';
import type { PollCommandIo } from '../poll-command-io.js';
import { collectIds, type PollCommandOptions } from '../poll-options.js';

/** The parsed flags of `webhooks plan`. */
export interface WebhooksPlanOptions extends PollCommandOptions {
  url?: string;
  outputsFile?: string;
  stack?: string;
  connection?: string;
  json?: boolean;
}

/** The parsed flags of `webhooks apply`. */
export interface WebhooksApplyOptions extends WebhooksPlanOptions {
  replaceIntegration?: boolean;
}

/** The flags both subcommands take: where the projects, the rules and the receiver's URL come from. */
function addPlanOptions(command: Command): Command {
  return addAtlasOptions(
    command
      .option(
        '--config <file>',
        'YAML or JSON file with the poller settings, as run takes (flags override it)',
      )
      .option(
        '--org <ids...>',
        'organization ids (with --all-projects: each of their projects)',
        collectIds('--org'),
      )
      .option('--project <ids...>', 'project ids to set up', collectIds('--project'))
      .option('--all-projects', 'every project of each --org')
      .option('--connection <name>', 'only this connection of the config file')
      .option(
        '--rules <layers...>',
        'rule layers whose enabled rules name the event types (default: builtin)',
      )
      .option('--url <url>', "the receiver's URL: the stack's PushWebhookUrl output")
      .option(
        '--outputs-file <file>',
        "read each connection's PushWebhookUrl output from what cdk deploy --outputs-file wrote",
      )
      .option('--stack <name>', 'the stack in --outputs-file, when it holds several'),
  );
}

/**
 * Registers `webhooks`: `plan` prints, per project of the polled connections, the Webhook integration
 * and the alert configurations Atlas needs to push the event types the enabled rules name (as Atlas CLI
 * commands, or Admin API requests with `--json`); `apply` makes them through the Admin API with a key
 * that has Project Owner, leaving what exists alone.
 *
 * @example
 * ```sh
 * atlas-audit-alerts webhooks plan --config poller.yaml --outputs-file cdk-outputs.json
 * ```
 */
export function registerWebhooksCommand(program: Command, io?: PollCommandIo): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'Set up the Atlas side of push: Webhook integrations and the alert configurations that push.',
    );

  addPlanOptions(
    webhooks
      .command('plan')
      .description(
        'Print per project the Webhook integration and the alert configurations for the event types the enabled rules name that Atlas can alert on, and the poll-only rest.',
      ),
  )
    .option('--json', 'print the Admin API requests as JSON instead of Atlas CLI commands')
    .addHelpText(
      'after',
      `
Reads Atlas with the poller's credentials (MONGODB_ATLAS_PUBLIC_API_KEY and MONGODB_ATLAS_PRIVATE_API_KEY,
or MONGODB_ATLAS_CLIENT_ID and MONGODB_ATLAS_CLIENT_SECRET): which event types are alertable, and the
projects of an organization. The webhook secret is never printed: the commands read it from
ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET (another connection's: with its name as a suffix).

Examples:
  atlas-audit-alerts webhooks plan --project 5f4e3d2c1b0a998877665544 --url https://abc.lambda-url.eu-west-1.on.aws/
  atlas-audit-alerts webhooks plan --config poller.yaml --outputs-file cdk-outputs.json --json`,
    )
    .action(async (options: WebhooksPlanOptions, command: Command) => {
      const { webhooksPlanAction } = await import('../actions/webhooks.js');
      await webhooksPlanAction(options, command, io);
    });

  addPlanOptions(
    webhooks
      .command('apply')
      .description(
        'Create what webhooks plan prints through the Admin API, with a key that has Project Owner; what exists is left alone.',
      ),
  )
    .option('--replace-integration', 'point a Webhook integration that posts elsewhere at the receiver')
    .addHelpText(
      'after',
      `
Writes with a key of its own that has Project Owner on each project, never the poller's (which stays
read-only): ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY and ATLAS_AUDIT_ALERTS_OWNER_PRIVATE_API_KEY, or
ATLAS_AUDIT_ALERTS_OWNER_CLIENT_ID and ATLAS_AUDIT_ALERTS_OWNER_CLIENT_SECRET (another connection's:
with its name as a suffix). The webhook secret is read from ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET.
Run it again at any time: it creates only what is missing.

Examples:
  atlas-audit-alerts webhooks apply --config poller.yaml --outputs-file cdk-outputs.json`,
    )
    .action(async (options: WebhooksApplyOptions, command: Command) => {
      const { webhooksApplyAction } = await import('../actions/webhooks.js');
      await webhooksApplyAction(options, command, io);
    });
}
