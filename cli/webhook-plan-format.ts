import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import { counted } from './plural.js';
import { WEBHOOK_SECRET_ENV } from './push-listener.js';
import type { WebhookPlan } from './webhook-plan.js';

/**
 * The variable holding a connection's webhook secret for `webhooks apply`: the one `run --push-listen`
 * reads (`ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET`), with the
 * connection's name in capitals (`-` as `_`) as a suffix for a connection other than `default`.
 *
 * @example
 * ```ts
 * webhookSecretEnv('ops-manager'); // 'ATLAS_AUDIT_ALERTS_WEBHOOK_SECRET_OPS_MANAGER'
 * ```
 */
export function webhookSecretEnv(connection: string): string {
  return connection === DEFAULT_CONNECTION
    ? WEBHOOK_SECRET_ENV
    : `${WEBHOOK_SECRET_ENV}_${connection.toUpperCase().replaceAll('-', '_')}`;
}

/** The stack output naming a connection's webhook secret, as the construct names it. */
export function webhookSecretOutput(connection: string): string {
  return `WebhookSecretArn${connectionPart(connection)}`;
}

/** The stack output holding a connection's receiver URL, as the construct names it. */
export function pushUrlOutput(connection: string): string {
  return `PushWebhookUrl${connectionPart(connection)}`;
}

/** `prod-eu` → `ProdEu`; the connection `default` has none (the construct's `connectionIdPart`). */
function connectionPart(connection: string): string {
  if (connection === DEFAULT_CONNECTION) return '';
  return connection
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** A word for a POSIX shell, in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The plan for people: how to put each connection's webhook secret in the environment (from its
 * secret in Secrets Manager, never the value itself), then per project the Atlas CLI commands that
 * create the Webhook integration and the alert configurations, then the poll-only event types.
 *
 * @example
 * ```ts
 * stdout.write(formatWebhookPlan(plan));
 * ```
 */
export function formatWebhookPlan(plan: WebhookPlan): string {
  const lines: string[] = [];
  const named = plan.pushable.length + plan.pollOnly.length;
  lines.push(
    `The enabled rules name ${counted(named, 'event type')}: Atlas can push ${plan.pushable.length}, ${plan.pollOnly.length} ${plan.pollOnly.length === 1 ? 'is' : 'are'} poll-only.`,
  );
  const connections = [...new Set(plan.projects.map((project) => project.connection))];
  if (connections.length > 0) {
    lines.push(
      '',
      'Put the webhook secret in the environment first (the commands below read it from there):',
    );
    for (const connection of connections) {
      lines.push(
        `  export ${webhookSecretEnv(connection)}="$(aws secretsmanager get-secret-value --secret-id <stack output ${webhookSecretOutput(connection)}> --query SecretString --output text)"`,
      );
    }
  }
  for (const project of plan.projects) {
    const id = shellWord(project.groupId);
    lines.push('', `# project ${project.groupId} (connection ${project.connection})`);
    lines.push(
      `atlas integrations create WEBHOOK --projectId ${id} --url ${shellWord(project.integration.url)} --secret "${project.integration.secret}"`,
    );
    for (const config of project.alertConfigs) {
      lines.push(
        `atlas alerts settings create --projectId ${id} --event ${config.eventTypeName} --enabled --notificationType WEBHOOK --notificationDelayMin 0`,
      );
    }
  }
  if (plan.projects.length === 0) lines.push('', 'No project to set up: the connections poll none.');
  lines.push(
    '',
    `Poll-only event types (${plan.pollOnly.length}): Atlas cannot alert on them, the scheduled poll reads them:`,
  );
  for (const type of plan.pollOnly) lines.push(`  ${type}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The plan for scripts: the event types, then per project the Admin API requests (method, path below
 * the host, body), the secret as a reference to the variable that holds it.
 *
 * @example
 * ```ts
 * JSON.parse(formatWebhookPlanJson(plan)).projects[0].requests[0].path; // '/api/atlas/v2/groups/…/integrations/WEBHOOK'
 * ```
 */
export function formatWebhookPlanJson(plan: WebhookPlan): string {
  const projects = plan.projects.map((project) => {
    const base = `/api/atlas/v2/groups/${project.groupId}`;
    return {
      connection: project.connection,
      groupId: project.groupId,
      secretEnv: webhookSecretEnv(project.connection),
      requests: [
        { method: 'POST', path: `${base}/integrations/WEBHOOK`, body: project.integration },
        ...project.alertConfigs.map((body) => ({ method: 'POST', path: `${base}/alertConfigs`, body })),
      ],
    };
  });
  return `${JSON.stringify({ pushable: plan.pushable, pollOnly: plan.pollOnly, projects }, null, 2)}\n`;
}
