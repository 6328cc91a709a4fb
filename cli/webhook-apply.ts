import {
  AtlasAuthError,
  type AtlasClient,
  AtlasForbiddenError,
  AtlasNotFoundError,
  type AtlasResource,
} from '../shared/atlas/index.js';
import { CommandFailed, ExitCode } from './errors.js';
import type { WebhookProjectPlan } from './webhook-plan.js';

/** What `webhooks apply` did to one thing of one project. */
export interface WebhookApplyStep {
  readonly groupId: string;
  /** `integration` or the event type of an alert configuration. */
  readonly what: string;
  readonly outcome: 'created' | 'replaced' | 'unchanged';
}

/** Options of {@link applyWebhookProject}. */
export interface ApplyWebhookProjectOptions {
  /** A client whose key has Project Owner on the project. */
  readonly client: AtlasClient;
  readonly project: WebhookProjectPlan;
  /** The webhook secret's value, sent in the integration's body and nowhere else. */
  readonly secret: string;
  /** Replace a Webhook integration that points elsewhere (Atlas holds one per project). */
  readonly replaceIntegration: boolean;
  /** Where the credentials came from, for the messages of 401 and 403. */
  readonly credentialsFrom: string;
}

/**
 * Whether a Webhook integration as Atlas shows it points at `url`. Atlas redacts the URL it shows
 * (`https://host/****`), so a shown URL ending in `****` matches when `url` starts with what is shown.
 */
export function integrationPointsAt(shown: unknown, url: string): boolean {
  if (typeof shown !== 'string') return false;
  if (shown === url) return true;
  const visible = shown.replace(/\*+$/, '');
  return visible !== shown && visible.length > 0 && url.startsWith(visible);
}

/** Whether an alert configuration of Atlas already pushes `eventTypeName` through a Webhook notification. */
function pushesType(config: AtlasResource, eventTypeName: string): boolean {
  return (
    config.eventTypeName === eventTypeName &&
    config.enabled === true &&
    Array.isArray(config.notifications) &&
    config.notifications.some(
      (notification: unknown) =>
        typeof notification === 'object' &&
        notification !== null &&
        (notification as Record<string, unknown>).typeName === 'WEBHOOK',
    )
  );
}

/**
 * Sets up one project: the Webhook integration (created when absent; left alone when it points at the
 * receiver; replaced only with `replaceIntegration`), then an alert configuration with a Webhook
 * notification for each planned event type that no enabled configuration of the project pushes yet.
 * Running it twice changes nothing the second time. A write Atlas may have carried out is never sent
 * twice (see `AtlasClient.writeJson`).
 *
 * @throws CommandFailed (exit 3) on 401 or 403, naming the role the key needs and where the
 *   credentials came from; (exit 1) when the project's Webhook integration points elsewhere and
 *   `replaceIntegration` is off. Other Atlas errors as the client throws them. No message holds the
 *   secret: the client redacts it.
 */
export async function applyWebhookProject(options: ApplyWebhookProjectOptions): Promise<WebhookApplyStep[]> {
  const { client, project, secret } = options;
  const { groupId } = project;
  client.protectSecret(secret);
  const steps: WebhookApplyStep[] = [];
  try {
    let current: AtlasResource | undefined;
    try {
      current = await client.getIntegration(groupId, 'WEBHOOK');
    } catch (error) {
      if (!(error instanceof AtlasNotFoundError)) throw error;
    }
    const body = { ...project.integration, secret };
    if (current === undefined) {
      await client.writeJson('POST', `/groups/${groupId}/integrations/WEBHOOK`, body);
      steps.push({ groupId, what: 'integration', outcome: 'created' });
    } else if (integrationPointsAt(current.url, project.integration.url)) {
      steps.push({ groupId, what: 'integration', outcome: 'unchanged' });
    } else if (options.replaceIntegration) {
      await client.writeJson('PUT', `/groups/${groupId}/integrations/WEBHOOK`, body);
      steps.push({ groupId, what: 'integration', outcome: 'replaced' });
    } else {
      throw new CommandFailed(
        `project ${groupId} has a Webhook integration to ${String(current.url)}, not to ${project.integration.url}: Atlas keeps one per project; pass --replace-integration to point it at the receiver`,
      );
    }
    const existing = await client.listAlertConfigs(groupId).toArray();
    for (const config of project.alertConfigs) {
      if (existing.some((candidate) => pushesType(candidate, config.eventTypeName))) {
        steps.push({ groupId, what: config.eventTypeName, outcome: 'unchanged' });
        continue;
      }
      await client.writeJson('POST', `/groups/${groupId}/alertConfigs`, { ...config });
      steps.push({ groupId, what: config.eventTypeName, outcome: 'created' });
    }
  } catch (error) {
    if (error instanceof AtlasForbiddenError) {
      throw new CommandFailed(
        `Atlas answered 403 for project ${groupId}: setting up webhooks needs a key with Project Owner on the project (${options.credentialsFrom}); the poller's own read-only key cannot do it`,
        ExitCode.auth,
      );
    }
    if (error instanceof AtlasAuthError) {
      throw new CommandFailed(
        `Atlas answered 401 for project ${groupId}: it refused the credentials in ${options.credentialsFrom}; give a key with Project Owner on the project`,
        ExitCode.auth,
      );
    }
    throw error;
  }
  return steps;
}
