import type { AtlasLink } from '../shared/atlas/types.js';
import { isAlertableEventType } from '../shared/rules/catalog/alertable-event-types.js';
import { loadEventCatalog } from '../shared/rules/catalog/event-catalog.js';
import { ApiProblem, problems } from './api-problem.js';
import { canReadProject, canWriteAlertConfigs, isProjectOwner } from './role-policy.js';
import { formatAtlasDate, type ProjectRecord, type SimulatorData } from './simulator-data.js';

/**
 * The resources a project's alert setup is made of, as the Atlas Admin API v2 serves them: alert
 * configurations (`/groups/{groupId}/alertConfigs`), third-party integrations
 * (`/groups/{groupId}/integrations/{integrationType}`, the simulator keeps `WEBHOOK` ones) and the
 * event type list (`/eventTypes`, each type with `alertable`). Secrets written are never served back:
 * a webhook secret reads as asterisks and a webhook URL as its origin and `/****`, as Atlas redacts them.
 */

/** What the handlers answer: a body to encode (`list` for a paginated one), or 204 with none. */
export type SetupReply =
  | { readonly status: 200; readonly json: unknown; readonly list: boolean }
  | { readonly status: 204 }
  | ApiProblem;

/** A request on one of the setup routes, authenticated and routed. */
export interface SetupRequest {
  readonly data: SimulatorData;
  readonly roles: Parameters<typeof canReadProject>[0];
  readonly method: string;
  /** The request body as text; undefined when it was over the size the simulator reads. */
  readonly body: string | undefined;
  /** The project the path names, found. */
  readonly project: ProjectRecord;
  readonly alertConfigId: string | undefined;
  readonly integrationType: string | undefined;
  /** The request path as sent: what a 404 names. */
  readonly pathname: string;
  /** `http://host:port/api/atlas/v2`: links are absolute. */
  readonly base: string;
  readonly now: number;
}

/** The integration types of the path's enum (`integrationType`). */
const INTEGRATION_TYPES = new Set([
  'PAGER_DUTY',
  'SLACK',
  'DATADOG',
  'NEW_RELIC',
  'OPS_GENIE',
  'VICTOR_OPS',
  'WEBHOOK',
  'HIP_CHAT',
  'PROMETHEUS',
  'MICROSOFT_TEAMS',
]);

const NOTIFICATION_TYPES = new Set([
  'DATADOG',
  'EMAIL',
  'GROUP',
  'HIP_CHAT',
  'MICROSOFT_TEAMS',
  'OPS_GENIE',
  'ORG',
  'PAGER_DUTY',
  'SLACK',
  'SMS',
  'TEAM',
  'USER',
  'VICTOR_OPS',
  'WEBHOOK',
]);

const REDACTED = '******';
const MAX_NOTIFICATIONS = 25;
const MAX_TEXT = 2_048;

function selfLink(href: string): AtlasLink[] {
  return [{ href, rel: 'self' }];
}

/** A webhook URL as Atlas shows it once written: its origin, the rest redacted. */
export function redactWebhookUrl(url: string): string {
  try {
    return `${new URL(url).origin}/****`;
  } catch {
    return '****';
  }
}

function parseObject(body: string | undefined): Record<string, unknown> | ApiProblem {
  if (body === undefined) return problems.malformedJson();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return problems.malformedJson();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problems.malformedJson();
  return value as Record<string, unknown>;
}

function httpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_TEXT) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function optionalText(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && value.length <= MAX_TEXT);
}

/**
 * Checks an alert configuration body (`GroupAlertsConfig`) and returns what the simulator stores:
 * the event type (alertable), `enabled`, `matchers` and `notifications`, each notification with its
 * own `notifierId`. A Webhook notification needs a URL of its own or the project's Webhook integration.
 */
function readAlertConfig(
  request: SetupRequest,
  value: Record<string, unknown>,
): Record<string, unknown> | ApiProblem {
  const { eventTypeName, enabled, matchers, notifications } = value;
  if (typeof eventTypeName !== 'string' || !isAlertableEventType(eventTypeName)) {
    return problems.invalidEventTypeForAlert(typeof eventTypeName === 'string' ? eventTypeName : '(none)');
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') {
    return problems.invalidAttribute('enabled', 'must be true or false');
  }
  if (matchers !== undefined && (!Array.isArray(matchers) || matchers.some((m) => typeof m !== 'object'))) {
    return problems.invalidAttribute('matchers', 'must be an array of matchers');
  }
  if (
    !Array.isArray(notifications) ||
    notifications.length === 0 ||
    notifications.length > MAX_NOTIFICATIONS
  ) {
    return problems.invalidAttribute('notifications', `must hold 1 to ${MAX_NOTIFICATIONS} notifications`);
  }
  const stored: Record<string, unknown>[] = [];
  for (const notification of notifications) {
    if (typeof notification !== 'object' || notification === null || Array.isArray(notification)) {
      return problems.invalidAttribute('notifications', 'each notification must be an object');
    }
    const entry = notification as Record<string, unknown>;
    if (typeof entry.typeName !== 'string' || !NOTIFICATION_TYPES.has(entry.typeName)) {
      return problems.invalidAttribute('notifications.typeName', 'must name a notification type');
    }
    for (const field of ['delayMin', 'intervalMin'] as const) {
      const number = entry[field];
      if (number !== undefined && (!Number.isInteger(number) || (number as number) < 0)) {
        return problems.invalidAttribute(`notifications.${field}`, 'must be a whole number of minutes');
      }
    }
    if (entry.typeName === 'WEBHOOK') {
      if (entry.webhookUrl !== undefined && !httpUrl(entry.webhookUrl)) {
        return problems.invalidAttribute('notifications.webhookUrl', 'must be an http or https URL');
      }
      if (!optionalText(entry.webhookSecret)) {
        return problems.invalidAttribute('notifications.webhookSecret', 'must be text');
      }
      if (entry.webhookUrl === undefined && !request.project.integrations.has('WEBHOOK')) {
        return problems.invalidAttribute(
          'notifications.webhookUrl',
          'a Webhook notification needs a webhookUrl or the project Webhook integration',
        );
      }
    }
    stored.push({ ...entry, notifierId: request.data.newId(request.now) });
  }
  return {
    eventTypeName,
    enabled: enabled ?? false,
    matchers: matchers ?? [],
    notifications: stored,
  };
}

/** An alert configuration as the API serves it: links added, webhook secrets and URLs redacted. */
function alertConfigView(request: SetupRequest, config: Readonly<Record<string, unknown>>): unknown {
  const notifications = Array.isArray(config.notifications)
    ? config.notifications.map((notification: Record<string, unknown>) => ({
        ...notification,
        ...(typeof notification.webhookSecret === 'string' ? { webhookSecret: REDACTED } : {}),
        ...(typeof notification.webhookUrl === 'string'
          ? { webhookUrl: redactWebhookUrl(notification.webhookUrl) }
          : {}),
      }))
    : config.notifications;
  return {
    ...config,
    groupId: request.project.id,
    ...(notifications === undefined ? {} : { notifications }),
    links: selfLink(`${request.base}/groups/${request.project.id}/alertConfigs/${String(config.id)}`),
  };
}

/** An integration as the API serves it: the secret as asterisks, the URL partly redacted. */
function integrationView(integration: Readonly<Record<string, unknown>>): unknown {
  return {
    ...integration,
    ...(typeof integration.secret === 'string' ? { secret: REDACTED } : {}),
    ...(typeof integration.url === 'string' ? { url: redactWebhookUrl(integration.url) } : {}),
  };
}

function forbiddenUnlessReader(request: SetupRequest): ApiProblem | undefined {
  return canReadProject(request.roles, request.project)
    ? undefined
    : problems.forbidden(`this resource needs Project Read Only or higher on project ${request.project.id}`);
}

/**
 * `/groups/{groupId}/alertConfigs` (GET, POST) and `/groups/{groupId}/alertConfigs/{alertConfigId}`
 * (GET, PUT, DELETE). Reads need Project Read Only; writes Project Alerts Manager or Project Owner.
 */
export function handleAlertConfigs(request: SetupRequest): SetupReply {
  const { project, method } = request;
  if (method === 'GET') {
    const refused = forbiddenUnlessReader(request);
    if (refused !== undefined) return refused;
    if (request.alertConfigId === undefined) {
      return {
        status: 200,
        json: [...project.alertConfigs.values()].map((config) => alertConfigView(request, config)),
        list: true,
      };
    }
    const config = project.alertConfigs.get(request.alertConfigId);
    if (config === undefined) return problems.resourceNotFound(request.pathname);
    return { status: 200, json: alertConfigView(request, config), list: false };
  }
  if (!canWriteAlertConfigs(request.roles, project)) {
    return problems.forbidden(
      `writing alert configurations needs Project Alerts Manager or Project Owner on project ${project.id}`,
    );
  }
  const existing =
    request.alertConfigId === undefined ? undefined : project.alertConfigs.get(request.alertConfigId);
  if (request.alertConfigId !== undefined && existing === undefined) {
    return problems.resourceNotFound(request.pathname);
  }
  if (method === 'DELETE' && existing !== undefined) {
    project.alertConfigs.delete(String(existing.id));
    return { status: 204 };
  }
  const value = parseObject(request.body);
  if (value instanceof ApiProblem) return value;
  const fields = readAlertConfig(request, value);
  if (fields instanceof ApiProblem) return fields;
  const stamp = formatAtlasDate(request.now);
  const id = existing === undefined ? request.data.newId(request.now) : String(existing.id);
  const config = { ...fields, id, created: existing?.created ?? stamp, updated: stamp };
  project.alertConfigs.set(id, config);
  return { status: 200, json: alertConfigView(request, config), list: false };
}

/**
 * `/groups/{groupId}/integrations` (GET) and `/groups/{groupId}/integrations/{integrationType}` (GET,
 * POST, PUT, DELETE). Reads need Project Read Only; writes Project Owner. The simulator writes only
 * `WEBHOOK` integrations (`{type, url, secret}`); POST and PUT answer the project's integrations.
 */
export function handleIntegrations(request: SetupRequest): SetupReply {
  const { project, method, integrationType: type } = request;
  if (type !== undefined && !INTEGRATION_TYPES.has(type)) {
    return problems.invalidAttribute('integrationType', 'must name an integration type such as WEBHOOK');
  }
  const all = (): SetupReply => ({
    status: 200,
    json: [...project.integrations.values()].map(integrationView),
    list: true,
  });
  if (method === 'GET') {
    const refused = forbiddenUnlessReader(request);
    if (refused !== undefined) return refused;
    if (type === undefined) return all();
    const integration = project.integrations.get(type);
    if (integration === undefined) return problems.resourceNotFound(request.pathname);
    return { status: 200, json: integrationView(integration), list: false };
  }
  if (!isProjectOwner(request.roles, project)) {
    return problems.forbidden(`writing integrations needs Project Owner on project ${project.id}`);
  }
  if (type === undefined) return problems.methodNotAllowed(method, request.pathname);
  const existing = project.integrations.get(type);
  if (method === 'DELETE') {
    if (existing === undefined) return problems.resourceNotFound(request.pathname);
    project.integrations.delete(type);
    return { status: 204 };
  }
  if (method === 'POST' && existing !== undefined) return problems.integrationExists(type, project.id);
  const value = parseObject(request.body);
  if (value instanceof ApiProblem) return value;
  if (type !== 'WEBHOOK' || value.type !== 'WEBHOOK') {
    return problems.invalidAttribute(
      'type',
      'the simulator keeps WEBHOOK integrations only: type must be WEBHOOK',
    );
  }
  if (!httpUrl(value.url)) return problems.invalidAttribute('url', 'must be an http or https URL');
  if (!optionalText(value.secret)) return problems.invalidAttribute('secret', 'must be text');
  project.integrations.set(type, {
    id: existing?.id ?? request.data.newId(request.now),
    type,
    url: value.url,
    ...(typeof value.secret === 'string' ? { secret: value.secret } : {}),
  });
  return all();
}

/** Catalog origins that are Atlas's own types (not the synthetic inventory, access and audit-log ones). */
const ATLAS_ORIGINS: ReadonlySet<string> = new Set(['openapi', 'openapi-alert', 'spec']);

let eventTypes: readonly { eventType: string; alertable: boolean; description: string }[] | undefined;

/** `Network permission entry added` for `NETWORK_PERMISSION_ENTRY_ADDED`. */
function describeType(name: string): string {
  const words = name.toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * `GET /eventTypes`: every Atlas event type the catalog knows (project and organization, not the
 * synthetic ones), sorted, each with `alertable` as Atlas marks it and a description made from its name.
 */
export function listEventTypes(): readonly { eventType: string; alertable: boolean; description: string }[] {
  eventTypes ??= [...loadEventCatalog().types.values()]
    .filter((type) => type.origins.some((origin) => ATLAS_ORIGINS.has(origin)))
    .map((type) => type.name)
    .sort()
    .map((name) => ({
      eventType: name,
      alertable: isAlertableEventType(name),
      description: describeType(name),
    }));
  return eventTypes;
}
