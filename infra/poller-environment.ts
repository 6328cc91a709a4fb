import { type ConnectionInput, connectionSchema } from '../shared/poll/connections.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../shared/poll/metric-names.js';
import { POLLER_CONFIG_ENV, type PollerConfig, pollerConfigSchema } from '../shared/poll/poller-config.js';
import { planDigests } from '../shared/routes/digest-route.js';
import { accountDestinationPolicies } from './account-destinations.js';
import type { DeployConfig } from './config.js';
import { deliveryRoutes } from './delivery-routes.js';
import { InfraError, PollerEnvironmentTooLargeError } from './errors.js';

/** Lambda refuses a function whose environment variables, names and values together, exceed 4 KB. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/**
 * The longest values the deployment-time references can take: at synth they are still CloudFormation
 * tokens, so the size check and the schema check run on these instead. Each is the longest the service
 * allows (table names 255 characters, topic names 256, secret names 512) in the longest partition and
 * region names.
 */
const LONGEST_REFERENCES = {
  tableName: 't'.repeat(255),
  topicArn: `arn:aws-us-gov:sns:us-gov-west-1:123456789012:${'t'.repeat(256)}`,
  secretArn: `arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:${'s'.repeat(512)}-AbCdEf`,
  eventBusName: 'e'.repeat(256),
  securityHubProductArn: 'arn:aws-us-gov:securityhub:us-gov-west-1:123456789012:product/123456789012/default',
} as const;

/** Where the poller finds its resources; at synth these are usually CloudFormation tokens. */
export interface PollerResourceReferences {
  tableName: string;
  topicArn: string;
  /** The secret of the top-level settings (the connection `default`), when they are polled. */
  secretArn?: string | undefined;
  /** The secret of each connection of `connections`, by its name. */
  connectionSecrets?: readonly ConnectionSecretReference[] | undefined;
  /** The EventBridge bus alerts go to, when a route sends to one: `default`, a name or an ARN. */
  eventBusName?: string | undefined;
  /** The account's default Security Hub product, when a route sends to Security Hub. */
  securityHubProductArn?: string | undefined;
}

/** Where one connection's credentials are. */
export interface ConnectionSecretReference {
  /** The connection's name. */
  name: string;
  /** The secret's ARN: a token for a secret the stack creates. */
  secretArn: string;
  /**
   * The longest the ARN can be once deployed, which the 4 KB check counts: the ARN itself for an
   * existing secret, a bound of the name CloudFormation gives a created one.
   */
  longestSecretArn: string;
}

/** Variables a function carries beside the poller's (the fan-out settings). */
export interface ExtraEnvironment {
  /** As deployed: values may hold tokens. */
  variables: Record<string, string>;
  /** The same variables at their longest once every token is resolved: what the 4 KB check counts. */
  longest: Record<string, string>;
}

export interface PollerEnvironmentOptions {
  config: DeployConfig;
  resources: PollerResourceReferences;
  /** Serialises a value that holds tokens, such as `Stack.of(scope).toJsonString`. */
  toJsonString: (value: unknown) => string;
  /** The function's own variables beside the poller's; they count against the same 4 KB. */
  extra?: ExtraEnvironment | undefined;
}

/**
 * Builds the poller's environment variables: its configuration as JSON in `ATLAS_AUDIT_ALERTS_CONFIG`,
 * validated by the same schema the handler parses it with, the Powertools settings whose service
 * name and namespace the alarms and dashboard read, and the function's `extra` variables (the fan-out
 * dispatcher's and worker's settings).
 *
 * @throws {PollerEnvironmentTooLargeError} when the variables, `extra` included, could exceed Lambda's
 *   4 KB limit once the resource names are known; the message says how much must go.
 * @throws {z.ZodError} only if the deploy schema ever accepted a value the poller schema rejects.
 * @example
 * ```ts
 * const environment = pollerEnvironment({
 *   config,
 *   resources: { tableName: table.tableName, topicArn: topic.topicArn, secretArn: secret.secretArn },
 *   toJsonString: (value) => Stack.of(this).toJsonString(value),
 * });
 * ```
 */
export function pollerEnvironment({
  config,
  resources,
  toJsonString,
  extra,
}: PollerEnvironmentOptions): Record<string, string> {
  const settings = pollerSettings(config);
  const { connectionSecrets = [], secretArn, eventBusName, securityHubProductArn, ...references } = resources;
  const policies = accountDestinationPolicies(config);
  const planned = planDigests(deliveryRoutes(config));
  const digests = planned.length === 0 ? {} : { digests: planned };
  const destinationsWith = (bus: string | undefined, productArn: string | undefined) => {
    const { eventBridge, securityHub } = policies;
    if (eventBridge === undefined && securityHub === undefined) return {};
    if (
      (eventBridge !== undefined && bus === undefined) ||
      (securityHub !== undefined && productArn === undefined)
    ) {
      throw new InfraError(
        'a route sends to EventBridge or Security Hub: the stack passes the bus and product references',
      );
    }
    return {
      destinations: {
        ...(eventBridge === undefined
          ? {}
          : { eventBridge: { busName: bus as string, policies: eventBridge } }),
        ...(securityHub === undefined
          ? {}
          : { securityHub: { productArn: productArn as string, policies: securityHub } }),
      },
    };
  };
  const secretOf = (name: string): ConnectionSecretReference => {
    const secret = connectionSecrets.find((candidate) => candidate.name === name);
    if (secret === undefined) {
      throw new InfraError(
        `connection "${name}" has no secret reference: the stack passes one per connection`,
      );
    }
    return secret;
  };
  const connectionsWith = (arnOf: (secret: ConnectionSecretReference) => string) =>
    settings.connections?.map((connection) => ({
      ...connection,
      secretArn: arnOf(secretOf(connection.name)),
    }));
  const longestConnections = connectionsWith((secret) => secret.longestSecretArn);
  // Checked by the poller's own schema at their longest, and measured as written: without defaults.
  const { connections: _longestParsed, ...longestOthers } = pollerConfigSchema.parse({
    ...settings,
    ...(longestConnections === undefined ? {} : { connections: longestConnections }),
    tableName: LONGEST_REFERENCES.tableName,
    topicArn: LONGEST_REFERENCES.topicArn,
    ...(secretArn === undefined ? {} : { secretArn: LONGEST_REFERENCES.secretArn }),
    ...destinationsWith(
      eventBusName === undefined || !isToken(eventBusName) ? eventBusName : LONGEST_REFERENCES.eventBusName,
      securityHubProductArn === undefined ? undefined : LONGEST_REFERENCES.securityHubProductArn,
    ),
    ...digests,
  });
  const longest = {
    ...longestOthers,
    ...(longestConnections === undefined ? {} : { connections: longestConnections }),
  };
  const fixed: Record<string, string> = {
    POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: config.poller.logLevel,
    NODE_OPTIONS: '--enable-source-maps',
  };
  const extraBytes = extra === undefined ? 0 : environmentBytes(extra.longest);
  const worstCase = environmentBytes({ ...fixed, [POLLER_CONFIG_ENV]: JSON.stringify(longest) }) + extraBytes;
  if (worstCase > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
    throw new PollerEnvironmentTooLargeError(
      tooLargeMessage({ config, connections: longestConnections ?? [], worstCase, extra, extraBytes }),
    );
  }
  // The connections are written as given: their secrets are tokens here, checked at their longest above.
  const { connections: _parsed, ...parsed } = pollerConfigSchema.parse(settings);
  const connections = connectionsWith((secret) => secret.secretArn);
  const pollerConfig = {
    ...parsed,
    ...(connections === undefined ? {} : { connections }),
    ...references,
    ...(secretArn === undefined ? {} : { secretArn }),
    ...destinationsWith(eventBusName, securityHubProductArn),
    ...digests,
  };
  return { ...fixed, [POLLER_CONFIG_ENV]: toJsonString(pollerConfig), ...extra?.variables };
}

/**
 * What must go when the environment could pass 4 KB: project ids, when there are enough of them;
 * else the connections' bytes.
 */
function tooLargeMessage(options: {
  config: DeployConfig;
  /** The connections as written, each secret ARN at its longest. */
  connections: readonly unknown[];
  worstCase: number;
  extra: ExtraEnvironment | undefined;
  extraBytes: number;
}): string {
  const { config, connections, worstCase, extra, extraBytes } = options;
  const sources = [config.sources, ...config.connections.map((connection) => connection.sources)];
  const ids = sources.reduce((sum, { orgIds, projectIds }) => sum + orgIds.length + projectIds.length, 0);
  const projectIds = sources.reduce((sum, { projectIds }) => sum + projectIds.length, 0);
  // Each id takes 27 bytes in the JSON: 24 characters, two quotes and a comma.
  const excess = Math.ceil((worstCase - LAMBDA_ENVIRONMENT_LIMIT_BYTES) / 27);
  const names =
    extra === undefined ? '' : ` and ${Object.keys(extra.longest).join(', ')} (${extraBytes} bytes)`;
  const listed =
    connections.length === 0
      ? `it lists ${ids} org and project ids.`
      : `it lists ${ids} org and project ids and ${connections.length === 1 ? '1 connection' : `${connections.length} connections`}, which take ${Buffer.byteLength(JSON.stringify(connections))} bytes with each secret ARN at its longest.`;
  const orgs = config.connections.length === 0 ? 'sources.orgIds' : "sources.orgIds (or a connection's)";
  const created = config.connections.some((connection) => connection.credentials.secretArn === undefined);
  const advice =
    connections.length === 0 || projectIds >= excess
      ? `Remove at least ${excess} project ${excess === 1 ? 'id' : 'ids'}: list their orgs in ${orgs} with sources.allProjectsOfOrgs: true instead.`
      : `${created ? "Name the existing secret of some connections (connections[].credentials.secretArn): an ARN you give counts at its own length, far less than the longest a created secret's can be. Or split" : 'Split'} the connections between two deployments (each with its own stackName).`;
  return `The poller's environment${names} could reach ${worstCase} bytes once the table, topic, secret${extra === undefined ? '' : ' and queue'} names are known, over Lambda's limit of ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes; ${listed} ${advice}`;
}

/** The poller's settings a deploy configuration gives: all but the resources and the connections' secrets. */
export type PollerSettings = Omit<PollerConfig, 'tableName' | 'topicArn' | 'secretArn' | 'connections'> & {
  /**
   * Each without the settings it leaves at their defaults (the variable has a size limit; the poller
   * fills them in again). Absent when there is none, so the environment of a deployment without
   * connections is unchanged.
   */
  connections?: ConnectionInput[];
};

/** The settings of a connection that names nothing: its defaults. */
const CONNECTION_DEFAULTS = connectionSchema.parse({ name: 'defaults', sources: {} });

/**
 * The poller's settings from the deploy configuration, without the resource references: what the
 * Lambda runs with, and what `run --config` and `check --config` read from a deploy configuration.
 * A connection's secret is there when the configuration names an existing one; the stack gives the
 * ARNs of those it creates.
 *
 * @example
 * ```ts
 * pollerSettings(parseDeployConfig({ input, origin })).sources.orgIds;
 * ```
 */
export function pollerSettings(config: DeployConfig): PollerSettings {
  const { scheduleMinutes: _schedule, ...timing } = config.timing;
  const { allowNone, ...sources } = config.sources;
  const connections = config.connections.map(
    ({
      credentials,
      flavor,
      baseUrl,
      sources: { orgIds, projectIds, allProjectsOfOrgs, accessHistory },
      ...others
    }) => ({
      name: others.name,
      ...(flavor === CONNECTION_DEFAULTS.flavor ? {} : { flavor }),
      ...(baseUrl === CONNECTION_DEFAULTS.baseUrl ? {} : { baseUrl }),
      sources: {
        ...(orgIds.length === 0 ? {} : { orgIds }),
        ...(projectIds.length === 0 ? {} : { projectIds }),
        ...(allProjectsOfOrgs === CONNECTION_DEFAULTS.sources.allProjectsOfOrgs ? {} : { allProjectsOfOrgs }),
        ...(accessHistory === true ? { accessHistory } : {}),
      },
      ...(others.timing === undefined ? {} : { timing: others.timing }),
      ...(others.inventory === undefined ? {} : { inventory: others.inventory }),
      ...(credentials.secretArn === undefined ? {} : { secretArn: credentials.secretArn }),
    }),
  );
  return {
    atlas: config.atlas,
    // Written only when set: the variable has a size limit, and the poller reads its absence as false.
    sources: allowNone ? { ...sources, allowNone } : sources,
    timing,
    inventory: config.inventory,
    concurrency: config.concurrency,
    ...(connections.length === 0 ? {} : { connections }),
  };
}

function environmentBytes(environment: Record<string, string>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(environment)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  return bytes;
}

/** Whether a value is still a CDK token (resolved only at deploy), as a created bus's name is at synth. */
function isToken(value: string): boolean {
  return value.includes('${Token[');
}
