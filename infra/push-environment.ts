import { METRICS_NAMESPACE, METRICS_SERVICE } from '../shared/poll/metric-names.js';
import { PUSH_CONFIG_ENV, type PushRuntimeConfig, pushRuntimeSchema } from '../shared/push/push-settings.js';
import type { DeployConfig } from './config.js';
import { PollerEnvironmentTooLargeError } from './errors.js';
import { LAMBDA_ENVIRONMENT_LIMIT_BYTES } from './poller-environment.js';

/** The longest a table name and a FIFO queue URL can be once deployed (see `poller-environment.ts`). */
const LONGEST_TABLE_NAME = 't'.repeat(255);
const LONGEST_QUEUE_URL = `https://sqs.us-gov-west-1.amazonaws.com.cn/123456789012/${'q'.repeat(75)}.fifo`;

/** One connection taking pushes, with its webhook secret's ARN (a token for a created one). */
export interface PushConnectionReference {
  name: string;
  sources: { orgIds: readonly string[]; projectIds: readonly string[]; allProjectsOfOrgs: boolean };
  secretArn: string;
  /** The longest `secretArn` can be once deployed: what the 4 KB check counts. */
  longestSecretArn: string;
}

export interface PushEnvironmentOptions {
  config: DeployConfig;
  tableName: string;
  queueUrl: string;
  connections: readonly PushConnectionReference[];
  /** Serialises a value that holds tokens, such as `Stack.of(scope).toJsonString`. */
  toJsonString: (value: unknown) => string;
}

/**
 * The push receiver's environment: its settings as JSON in `ATLAS_AUDIT_ALERTS_PUSH` (checked by the
 * schema the receiver reads it with, at its longest once the names are known) and the Powertools
 * settings the poller has too.
 *
 * @throws {PollerEnvironmentTooLargeError} when the variables could pass Lambda's 4 KB limit.
 * @example
 * ```ts
 * const environment = pushEnvironment({ config, tableName: table.tableName, queueUrl: queue.queueUrl,
 *   connections, toJsonString: (value) => Stack.of(this).toJsonString(value) });
 * ```
 */
export function pushEnvironment(options: PushEnvironmentOptions): Record<string, string> {
  const { config } = options;
  const settings = (
    tableName: string,
    queueUrl: string,
    arnOf: (connection: PushConnectionReference) => string,
  ) => ({
    tableName,
    queueUrl,
    connections: options.connections.map((connection) => ({
      name: connection.name,
      secretArn: arnOf(connection),
      sources: {
        ...(connection.sources.orgIds.length === 0 ? {} : { orgIds: [...connection.sources.orgIds] }),
        ...(connection.sources.projectIds.length === 0
          ? {}
          : { projectIds: [...connection.sources.projectIds] }),
        ...(connection.sources.allProjectsOfOrgs ? { allProjectsOfOrgs: true } : {}),
      },
    })),
    maxAgeSeconds: config.push.maxAgeSeconds,
    coalesceSeconds: config.push.coalesceSeconds,
    secretTtlSeconds: config.push.secretTtlSeconds,
  });
  const longest: PushRuntimeConfig = pushRuntimeSchema.parse(
    settings(LONGEST_TABLE_NAME, LONGEST_QUEUE_URL, (connection) => connection.longestSecretArn),
  );
  const fixed: Record<string, string> = {
    POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: config.poller.logLevel,
    NODE_OPTIONS: '--enable-source-maps',
  };
  const bytes = Object.entries({ ...fixed, [PUSH_CONFIG_ENV]: JSON.stringify(longest) }).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value),
    0,
  );
  if (bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
    throw new PollerEnvironmentTooLargeError(
      `The push receiver's environment could reach ${bytes} bytes once the table, queue and secret names are known, over Lambda's limit of ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes: it lists every project id of sources.projectIds. List their organizations in sources.orgIds with sources.allProjectsOfOrgs: true instead, or turn push off.`,
    );
  }
  return {
    ...fixed,
    [PUSH_CONFIG_ENV]: options.toJsonString(
      settings(options.tableName, options.queueUrl, (connection) => connection.secretArn),
    ),
  };
}
