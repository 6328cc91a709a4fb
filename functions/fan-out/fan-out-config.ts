import {
  FAN_OUT_CONFIG_ENV,
  type FanOutRuntimeConfig,
  fanOutRuntimeSchema,
} from '../../shared/fan-out/index.js';
import { PollerConfigError } from '../poller/errors.js';

const REDEPLOY =
  'deploy the stack again (npx cdk deploy) with fanOut set, which writes it, or correct the variable in the function configuration';

/**
 * Reads the fan-out settings from `ATLAS_AUDIT_ALERTS_FAN_OUT` (JSON written by the stack).
 *
 * @throws {PollerConfigError} when the variable is missing, not JSON, or breaks the schema (each
 *   problem with its path).
 * @example
 * ```ts
 * const fanOut = readFanOutConfig({ env: process.env });
 * fanOut.queueUrl; // 'https://sqs.eu-west-1.amazonaws.com/123456789012/…-sources.fifo'
 * ```
 */
export function readFanOutConfig(options: {
  env: Readonly<Record<string, string | undefined>>;
}): FanOutRuntimeConfig {
  const text = options.env[FAN_OUT_CONFIG_ENV];
  if (text === undefined || text.trim() === '') {
    throw new PollerConfigError(`${FAN_OUT_CONFIG_ENV} is not set: ${REDEPLOY}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new PollerConfigError(
      `${FAN_OUT_CONFIG_ENV} is not JSON (${(error as Error).message}): ${REDEPLOY}`,
      {
        cause: error,
      },
    );
  }
  const parsed = fanOutRuntimeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new PollerConfigError(`${FAN_OUT_CONFIG_ENV} is not valid (${problems}): ${REDEPLOY}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
