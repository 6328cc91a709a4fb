import { effectiveConnections } from '../../shared/poll/connections.js';
import { POLLER_CONFIG_ENV, type PollerConfig, pollerConfigSchema } from '../../shared/poll/index.js';
import { PollerConfigError } from './errors.js';

/**
 * The poller's configuration as the Lambda needs it: the table and topic are required, and so is the
 * secret of every connection polled (`secretArn` for the top-level settings when they are polled,
 * `connections[].secretArn` for the others).
 */
export type LambdaPollerConfig = PollerConfig & {
  tableName: string;
  topicArn: string;
};

/** Options of {@link readLambdaConfig}. */
export interface ReadLambdaConfigOptions {
  /** The function's environment, as `process.env` holds it. */
  env: Readonly<Record<string, string | undefined>>;
}

const REDEPLOY =
  'deploy the stack again (npx cdk deploy), which writes it, or correct the variable in the function configuration';

/**
 * Reads the poller's configuration from the `ATLAS_AUDIT_ALERTS_CONFIG` environment variable (JSON,
 * checked by the same schema the CDK stack writes it with) and checks that it names the state table,
 * the alert topic and the credentials secret of each connection.
 *
 * @throws {PollerConfigError} when the variable is missing or empty, is not JSON, breaks the schema
 *   (every problem listed with its path), or lacks `tableName`, `topicArn` or the secret of a
 *   connection it polls.
 * @example
 * ```ts
 * const config = readLambdaConfig({ env: process.env });
 * config.tableName; // 'AtlasAuditAlerts-StateTable…'
 * ```
 */
export function readLambdaConfig(options: ReadLambdaConfigOptions): LambdaPollerConfig {
  const text = options.env[POLLER_CONFIG_ENV];
  if (text === undefined || text.trim() === '') {
    throw new PollerConfigError(`${POLLER_CONFIG_ENV} is not set: ${REDEPLOY}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new PollerConfigError(
      `${POLLER_CONFIG_ENV} is not JSON (${(error as Error).message}): ${REDEPLOY}`,
      {
        cause: error,
      },
    );
  }
  const parsed = pollerConfigSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new PollerConfigError(
      `${POLLER_CONFIG_ENV} is not a valid configuration (${problems}): ${REDEPLOY}`,
      {
        cause: parsed.error,
      },
    );
  }
  const config = parsed.data;
  const missing: string[] = (['tableName', 'topicArn'] as const).filter((key) => config[key] === undefined);
  for (const connection of effectiveConnections(config)) {
    if (connection.secretArn !== undefined) continue;
    const index = (config.connections ?? []).findIndex((candidate) => candidate.name === connection.name);
    missing.push(connection.legacy ? 'secretArn' : `connections[${index}].secretArn`);
  }
  if (missing.length > 0) {
    throw new PollerConfigError(
      `${POLLER_CONFIG_ENV} lacks ${missing.join(', ')}: the Lambda needs its state table, alert topic and credentials secret (one per connection); ${REDEPLOY}`,
    );
  }
  return config as LambdaPollerConfig;
}
