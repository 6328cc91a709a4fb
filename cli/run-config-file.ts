import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeSettingIssue, type PollerConfig, pollerConfigSchema } from '../shared/poll/index.js';
import { BUILTIN_LAYER } from '../shared/rules/index.js';
import { parseDurationText } from './duration-option.js';
import { UsageError } from './errors.js';
import { type NotifyTarget, parseNotifyTarget, parseStateTarget, type StateTarget } from './run-targets.js';

/** The settings only local runs have, under `local:` in a config file. */
const localSettingsSchema = z.strictObject({
  /** Rule layers in order: files or directories relative to the config file, `builtin` for the built-in pack. */
  rules: z.array(z.string().min(1)).min(1).optional(),
  /** `file:PATH` (relative to the config file) or `dynamodb:TABLE`. */
  state: z.string().min(1).optional(),
  /** `console`, `outbox:PATH` (relative to the config file) or `sns:TOPIC_ARN`. */
  notify: z.string().min(1).optional(),
  /** Poll on this period (`5m`) until stopped, as `--every` does. */
  every: z.string().min(1).optional(),
});

/**
 * A local run's config file: the poller's own settings (the schema the Lambda's configuration is
 * checked with), without the AWS resources the stack fills in, plus `local:`.
 */
export const runConfigFileSchema = pollerConfigSchema
  .omit({ tableName: true, topicArn: true, secretArn: true })
  .extend({ local: localSettingsSchema.optional() });

/** What a config file says, checked, with its paths made absolute. */
export interface RunConfigFile {
  /** The file, as an absolute path. */
  path: string;
  /** Its poller settings, defaults filled in. */
  config: PollerConfig;
  rules?: string[];
  state?: StateTarget;
  notify?: NotifyTarget;
  everyMs?: number;
}

const LAMBDA_ONLY_KEYS = ['tableName', 'topicArn', 'secretArn'] as const;

/**
 * Reads a local run's config file (YAML, or JSON, which is YAML too) and checks it with the poller's
 * schema plus the `local:` settings. Relative paths in it are relative to the file.
 *
 * @throws UsageError when the file cannot be read, is not YAML, or breaks the schema; every problem
 *   is listed with its path in the file.
 * @example
 * ```ts
 * const file = await readRunConfigFile({ path: 'atlas-audit-alerts.yaml' });
 * file.config.sources.orgIds; // ['5f4e3d2c1b0a998877665544']
 * ```
 */
export async function readRunConfigFile(options: { path: string }): Promise<RunConfigFile> {
  const path = resolve(options.path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(`cannot read config file ${path} (${code}): check the --config path`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new UsageError(`config file ${path} is not YAML or JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  value ??= {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const lambdaKeys = LAMBDA_ONLY_KEYS.filter((key) => key in value);
    if (lambdaKeys.length > 0) {
      throw new UsageError(
        `config file ${path}: ${lambdaKeys.join(', ')} ${lambdaKeys.length === 1 ? 'is a setting' : 'are settings'} of the Lambda; locally use local.state: dynamodb:TABLE and local.notify: sns:TOPIC_ARN, with credentials from the environment`,
      );
    }
  }
  const parsed = runConfigFileSchema.safeParse(value);
  if (!parsed.success) {
    const where = (path: readonly PropertyKey[]): string =>
      path.length === 0 ? '(top level)' : path.map(String).join('.');
    const problems = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map(
            (key) =>
              `${where([...issue.path, key])}: is not a known setting (see cli/examples/run.example.yaml)`,
          )
        : describeSettingIssue(issue, value).map((problem) => `${where(problem.path)}: ${problem.message}`),
    );
    throw new UsageError(`config file ${path} is not valid: ${problems.join('; ')}`, { cause: parsed.error });
  }
  const { local, ...config } = parsed.data;
  const baseDirectory = dirname(path);
  const result: RunConfigFile = { path, config: pollerConfigSchema.parse(config) };
  if (local?.rules !== undefined) {
    result.rules = local.rules.map((rule) =>
      rule === BUILTIN_LAYER || isAbsolute(rule) ? rule : resolve(baseDirectory, rule),
    );
  }
  if (local?.state !== undefined) {
    result.state = parseStateTarget(local.state, { origin: `local.state in ${path}`, baseDirectory });
  }
  if (local?.notify !== undefined) {
    result.notify = parseNotifyTarget(local.notify, { origin: `local.notify in ${path}`, baseDirectory });
  }
  if (local?.every !== undefined) {
    const everyMs = parseDurationText(local.every);
    if (everyMs === undefined || everyMs < 1_000) {
      throw new UsageError(
        `config file ${path}: local.every ${JSON.stringify(local.every)} is not a duration of a second or more, such as 5m`,
      );
    }
    result.everyMs = everyMs;
  }
  return result;
}
