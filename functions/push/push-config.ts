import {
  PUSH_CONFIG_ENV,
  PushConfigError,
  type PushRuntimeConfig,
  pushRuntimeSchema,
} from '../../shared/push/index.js';

const REDEPLOY =
  'deploy the stack again (npx cdk deploy) with push.enabled, which writes it, or correct the variable in the function configuration';

/**
 * Reads the push receiver's settings from `ATLAS_AUDIT_ALERTS_PUSH` (JSON written by the stack).
 *
 * @throws {PushConfigError} when the variable is missing, not JSON, or breaks the schema (each problem
 *   with its path, never a value).
 * @example
 * ```ts
 * const config = readPushConfig({ env: process.env });
 * config.connections.map((connection) => connection.name); // ['default']
 * ```
 */
export function readPushConfig(options: {
  env: Readonly<Record<string, string | undefined>>;
}): PushRuntimeConfig {
  const text = options.env[PUSH_CONFIG_ENV];
  if (text === undefined || text.trim() === '') {
    throw new PushConfigError(`${PUSH_CONFIG_ENV} is not set: ${REDEPLOY}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new PushConfigError(`${PUSH_CONFIG_ENV} is not JSON (${(error as Error).message}): ${REDEPLOY}`, {
      cause: error,
    });
  }
  const parsed = pushRuntimeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new PushConfigError(`${PUSH_CONFIG_ENV} is not valid (${problems}): ${REDEPLOY}`, {
      cause: parsed.error,
    });
  }
  const missing = parsed.data.connections.filter((connection) => connection.secretArn === undefined);
  if (missing.length > 0) {
    throw new PushConfigError(
      `${PUSH_CONFIG_ENV} names no webhook secret for connection ${missing.map((connection) => connection.name).join(', ')}: ${REDEPLOY}`,
    );
  }
  return parsed.data;
}
