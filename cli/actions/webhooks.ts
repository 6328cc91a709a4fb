import type { Command } from 'commander';
import { AtlasClient } from '../../shared/atlas/index.js';
import { loadEventCatalog, ruleCoverage } from '../../shared/rules/lint/index.js';
import type { WebhooksPlanOptions } from '../commands/webhooks.js';
import { UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { resolveRunSettings } from '../run-options.js';
import { planWebhooks, type WebhookPlan, type WebhookPlanTarget } from '../webhook-plan.js';
import { formatWebhookPlan, formatWebhookPlanJson, webhookSecretEnv } from '../webhook-plan-format.js';
import { alertableTypes, connectionProjects, receiverUrls } from '../webhook-targets.js';
import { loadOrReport } from './rules.js';

/**
 * Builds the plan of every polled connection with the settings given: the rules' event types, what
 * Atlas can alert on and each connection's projects, read with the connection's own client.
 */
async function buildPlan(
  options: WebhooksPlanOptions,
  command: Command,
  io: PollCommandIo,
): Promise<{ plan: WebhookPlan; clients: Map<string, AtlasClient> }> {
  const { env, cwd } = io;
  const settings = await resolveRunSettings({
    options,
    flavorGiven: command.getOptionValueSource('flavor') === 'cli',
    env,
    cwd,
  });
  const selected = settings.connections.filter(
    ({ connection }) => options.connection === undefined || connection.name === options.connection,
  );
  if (selected.length === 0) {
    throw new UsageError(`--connection ${options.connection}: no polled connection has that name`);
  }
  const urls = await receiverUrls(
    { url: options.url, outputsFile: options.outputsFile, stack: options.stack, cwd },
    selected.map(({ connection }) => connection.name),
  );
  const pack = await loadOrReport(settings.rules);
  const coverage = ruleCoverage(pack, loadEventCatalog());
  const clients = new Map<string, AtlasClient>();
  const targets: WebhookPlanTarget[] = [];
  let alertable: ((type: string) => boolean) | undefined;
  try {
    for (const { connection, atlas } of selected) {
      const client = new AtlasClient(atlas);
      clients.set(connection.name, client);
      // Atlas's alertable types are one list; the first connection's answer stands for all.
      alertable ??= await alertableTypes(connection, client);
      targets.push({
        connection: connection.name,
        groupIds: await connectionProjects(connection, client),
        url: urls.get(connection.name) as string,
        secretReference: `$${webhookSecretEnv(connection.name)}`,
      });
    }
  } catch (error) {
    await Promise.all([...clients.values()].map((client) => client.close()));
    throw error;
  }
  return { plan: planWebhooks({ coverage, alertable: alertable ?? (() => false), targets }), clients };
}

/** Runs `webhooks plan`: prints the Atlas CLI commands, or the Admin API requests with `--json`. */
export async function webhooksPlanAction(
  options: WebhooksPlanOptions,
  command: Command,
  io?: PollCommandIo,
): Promise<void> {
  const commandIo = io ?? processCommandIo();
  const { plan, clients } = await buildPlan(options, command, commandIo);
  await Promise.all([...clients.values()].map((client) => client.close()));
  commandIo.stdout.write(options.json === true ? formatWebhookPlanJson(plan) : formatWebhookPlan(plan));
}
