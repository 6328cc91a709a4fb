import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { MessageAttributeValue } from '@aws-sdk/client-sns';
import type { DeployConfig } from '../../infra/config.js';
import { resolveDeployConfig } from '../../infra/config-source.js';
import { deliveryRoutes } from '../../infra/delivery-routes.js';
import { DeployConfigError, DeployConfigFileError } from '../../infra/errors.js';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { SEVERITIES, type Severity } from '../../shared/notify/alert.js';
import type { AlertContext } from '../../shared/notify/alert-context.js';
import { buildMessageAttributes } from '../../shared/notify/message-attributes.js';
import { describeDestination, type RouteDecision, routeAlert } from '../../shared/routes/route-plan.js';
import type { RoutesTestOptions } from '../commands/routes.js';
import { UsageError } from '../errors.js';
import { parseJsonEntries } from '../json-entries.js';
import { type PollCommandIo, processCommandIo } from '../poll-command-io.js';
import { cdkJsonContext } from '../run-config-file.js';

/** One alert of the file, with what the routes decided for it. */
export interface RoutedAlert {
  /** Where it is in the file: `alerts.jsonl:3`. */
  at: string;
  ruleId: string | undefined;
  severity: string | undefined;
  /** The message attributes SNS filter policies match, as the poller publishes them. */
  attributes: Record<string, string>;
  routes: Array<{ route: string; destinations: string[] }>;
}

type Attributes = Record<string, MessageAttributeValue>;

/**
 * Runs `routes test` (see `registerRoutesCommand`): its flags, and the process's streams and folder
 * unless `io` replaces them.
 */
export async function routesTestAction(options: RoutesTestOptions, io?: PollCommandIo): Promise<void> {
  const { stdout, cwd } = io ?? processCommandIo();
  if (options.alert === undefined) {
    throw new UsageError(
      'routes test needs --alert FILE: a line --notify outbox: wrote, or an alert such as {"ruleId": "data-explorer-destructive-write", "severity": "high", "tags": ["data-explorer"], "context": {"projectName": "analytics"}}',
    );
  }
  const config = readDeployConfig(options.config, cwd);
  const routesOfConfig = deliveryRoutes(config);
  const alerts = await readAlerts(options.alert, cwd);
  const routed = alerts.map(({ at, ruleId, severity, attributes }) => ({
    at,
    ruleId,
    severity,
    attributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [name, value.StringValue ?? '']),
    ),
    routes: routeAlert(routesOfConfig, attributes).map(toRouted),
  }));
  if (options.json === true) {
    stdout.write(
      `${JSON.stringify({ routes: routesOfConfig.map((route) => route.name), alerts: routed })}\n`,
    );
    return;
  }
  if (routesOfConfig.length === 0) {
    stdout.write('The configuration names no route: alerts.emails, alerts.slack and routes are all empty.\n');
  }
  for (const alert of routed) stdout.write(describe(alert));
}

function toRouted(decision: RouteDecision): RoutedAlert['routes'][number] {
  const digest = decision.digest === undefined ? [] : [`${decision.digest} digest`];
  return { route: decision.route, destinations: [...decision.reaches.map(describeDestination), ...digest] };
}

function describe(alert: RoutedAlert): string {
  const where = [alert.attributes.groupName ?? alert.attributes.groupId, alert.attributes.orgName]
    .filter((part) => part !== undefined)
    .join(', ');
  const head = `${alert.at}: ${alert.ruleId ?? 'an alert'} (${alert.severity ?? 'no severity'}${where === '' ? '' : `, ${where}`})`;
  if (alert.routes.length === 0) return `${head}\n  reaches no route: nobody is told\n`;
  const width = Math.max(...alert.routes.map((route) => route.route.length));
  return `${head}\n${alert.routes
    .map((route) => `  ${route.route.padEnd(width)}  ${route.destinations.join(', ')}`)
    .join('\n')}\n`;
}

/** The deploy configuration as `cdk synth` resolves it from `cwd`: an error says what and where. */
function readDeployConfig(configFile: string | undefined, cwd: string): DeployConfig {
  try {
    return resolveDeployConfig({ context: cdkJsonContext(cwd), configFile, projectRoot: cwd });
  } catch (error) {
    if (error instanceof DeployConfigError || error instanceof DeployConfigFileError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}

/** The alerts of a JSON file (one alert or entry, or a list) or a JSON lines file, with their place. */
async function readAlerts(
  path: string,
  cwd: string,
): Promise<
  Array<{ at: string; ruleId: string | undefined; severity: string | undefined; attributes: Attributes }>
> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read --alert file ${path} (${code}): check the path`);
  }
  const parsed = parseJsonEntries(
    text,
    (line, reason) =>
      `--alert file ${path}, line ${line}: not JSON (${reason}): give one alert or SNS entry per line, or one JSON document`,
  );
  let values: Array<{ at: string; value: unknown }>;
  if (parsed.kind === 'lines') {
    values = parsed.values.map(({ line, value }) => ({ at: `${path}:${line}`, value }));
  } else {
    const list: unknown[] = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    values = list.map((value, index) => ({ at: list.length === 1 ? path : `${path}[${index}]`, value }));
  }
  if (values.length === 0) throw new UsageError(`--alert file ${path} holds no alert`);
  return values.map(({ at, value }) => ({ at, ...attributesOf(value, at) }));
}

/** The message attributes of an SNS entry as given, or of an alert as the poller would publish it. */
function attributesOf(
  value: unknown,
  at: string,
): { ruleId: string | undefined; severity: string | undefined; attributes: Attributes } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `${at}: an alert is a JSON object, found ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  }
  const record = value as Record<string, unknown>;
  const entryAttributes = record.MessageAttributes;
  if (typeof entryAttributes === 'object' && entryAttributes !== null) {
    const attributes = entryAttributes as Attributes;
    for (const [name, value] of Object.entries(entryAttributes)) {
      const { DataType, StringValue } = (value ?? {}) as Record<string, unknown>;
      if (typeof DataType !== 'string' || typeof StringValue !== 'string') {
        throw new UsageError(
          `${at}: MessageAttributes.${name} is not an SNS message attribute: give {"DataType": "String", "StringValue": "..."}, as --notify outbox: writes it`,
        );
      }
    }
    return {
      ruleId: attributes.ruleId?.StringValue,
      severity: attributes.severity?.StringValue,
      attributes,
    };
  }
  const severity = record.severity;
  if (typeof severity !== 'string' || !(SEVERITIES as readonly string[]).includes(severity)) {
    throw new UsageError(
      `${at}: an alert needs a severity (${SEVERITIES.join(', ')}), or the MessageAttributes of an SNS entry`,
    );
  }
  if (typeof record.ruleId !== 'string') {
    throw new UsageError(`${at}: an alert needs its ruleId, or the MessageAttributes of an SNS entry`);
  }
  const alert = {
    ruleId: record.ruleId,
    severity: severity as Severity,
    // What routes match on beside the rule and the severity: where the event happened, and the tags.
    events: Array.isArray(record.events) ? (record.events as AtlasEvent[]) : [],
    tags: Array.isArray(record.tags) ? record.tags.filter((tag) => typeof tag === 'string') : [],
    ...(typeof record.context === 'object' && record.context !== null
      ? { context: record.context as AlertContext }
      : {}),
  };
  return { ruleId: alert.ruleId, severity, attributes: buildMessageAttributes(alert) };
}
