import type { Command } from 'commander';
import { AtlasClient } from '../../shared/atlas/index.js';
import { loadEventCatalog, ruleCoverage } from '../../shared/rules/lint/index.js';
import { ownerCredentialEnv } from '../atlas-credentials.js';
import type { WebhooksApplyOptions, WebhooksPlanOptions } from '../commands/webhooks.js';
import { UsageError } from '../errors.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { resolveRunSettings } from '../run-options.js';
import { applyWebhookProject, type WebhookApplyStep } from '../webhook-apply.js';
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
  owner: boolean,
): Promise<{ plan: WebhookPlan; clients: Map<string, AtlasClient> }> {
  const { env, cwd } = io;
  const settings = await resolveRunSettings({
    options,
    flavorGiven: command.getOptionValueSource('flavor') === 'cli',
    env,
    cwd,
    ...(owner ? { credentialNames: ownerCredentialEnv } : {}),
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
  const { plan, clients } = await buildPlan(options, command, commandIo, false);
  await Promise.all([...clients.values()].map((client) => client.close()));
  commandIo.stdout.write(options.json === true ? formatWebhookPlanJson(plan) : formatWebhookPlan(plan));
}

const OUTCOME_WORDS: Readonly<Record<WebhookApplyStep['outcome'], string>> = {
  created: 'created  ',
  replaced: 'replaced ',
  unchanged: 'unchanged',
};

/**
 * Runs `webhooks apply`: the plan carried out through the Admin API with the owner key of each
 * connection (`ATLAS_AUDIT_ALERTS_OWNER_*`), the secret from `ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET`
 * (suffixed per connection); one line per thing, created or unchanged.
 */
export async function webhooksApplyAction(
  options: WebhooksApplyOptions,
  command: Command,
  io?: PollCommandIo,
): Promise<void> {
  const commandIo = io ?? processCommandIo();
  const { env, stdout } = commandIo;
  const { plan, clients } = await buildPlan(options, command, commandIo, true);
  try {
    const counts = { created: 0, replaced: 0, unchanged: 0 };
    for (const project of plan.projects) {
      const name = webhookSecretEnv(project.connection);
      const secret = env[name];
      if (secret === undefined || secret === '') {
        throw new UsageError(
          `${name} is not set: put the connection ${project.connection}'s webhook secret in it (see webhooks plan)`,
        );
      }
      const names = ownerCredentialEnv(project.connection);
      const steps = await applyWebhookProject({
        client: clients.get(project.connection) as AtlasClient,
        project,
        secret,
        replaceIntegration: options.replaceIntegration === true,
        credentialsFrom: `${names.publicKey} and ${names.privateKey}, or ${names.clientId} and ${names.clientSecret}`,
      });
      for (const step of steps) {
        counts[step.outcome]++;
        stdout.write(`${OUTCOME_WORDS[step.outcome]}  ${step.groupId}  ${step.what}\n`);
      }
    }
    stdout.write(
      `${counts.created} created, ${counts.replaced} replaced, ${counts.unchanged} unchanged; ${plan.pollOnly.length} event types poll-only\n`,
    );
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
  }
}
