import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import {
  DEPLOY_CONFIG_CONTEXT_KEY,
  type DeployConfig,
  deploySettingsSchema,
  parseDeployConfig,
} from '../infra/config.js';
import { mergeSettings } from '../infra/config-source.js';
import { DeployConfigError } from '../infra/errors.js';
import { pollerSettings } from '../infra/poller-environment.js';
import { type SettingLocator, settingLocator } from '../infra/setting-positions.js';
import {
  checkConnections,
  describeSettingIssue,
  type PollerConfig,
  pollerConfigSchema,
  pollerSettingsSchema,
} from '../shared/poll/index.js';
import { BUILTIN_LAYER } from '../shared/rules/index.js';
import { explainYamlSyntax, formatYamlSyntaxProblem } from '../shared/rules/yaml-syntax.js';
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
export const runConfigFileSchema = pollerSettingsSchema
  .omit({ tableName: true, topicArn: true, secretArn: true })
  .extend({ local: localSettingsSchema.optional() })
  .superRefine(checkConnections);

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
 * Reads the config file of a local run or a preflight: a run configuration (the poller's settings plus
 * `local:`), or the deploy configuration `cdk deploy --context config=FILE` reads, so that one file
 * serves both. A deploy configuration is laid over the `atlasAuditAlerts` context of a `cdk.json` in
 * `cwd`, as `cdk synth` does, and checked with the deploy schema; its poller settings and
 * `rules.directories` (relative to `cwd`, the project root) are used. Relative paths of a run
 * configuration are relative to the file.
 *
 * @throws UsageError when the file cannot be read, is not YAML (with the line, a caret and what to
 *   write instead), or breaks its schema; every problem is listed with its path in the file.
 * @example
 * ```ts
 * const file = await readRunConfigFile({ path: 'deploy/prod.yaml', cwd: process.cwd() });
 * file.config.sources.orgIds; // ['5f4e3d2c1b0a998877665544']
 * ```
 */
export async function readRunConfigFile(options: { path: string; cwd?: string }): Promise<RunConfigFile> {
  const cwd = options.cwd ?? process.cwd();
  const path = resolve(cwd, options.path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(`cannot read config file ${path} (${code}): check the --config path`, {
      cause: error,
    });
  }
  const value = parseConfigText(path, text) ?? {};
  const locate = settingLocator({ text, file: path });
  if (isDeployConfig(value)) return readDeployConfig(path, value, cwd, locate);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const connections = (value as { connections?: unknown }).connections;
    const lambdaKeys: string[] = LAMBDA_ONLY_KEYS.filter((key) => key in value);
    if (Array.isArray(connections)) {
      connections.forEach((connection, index) => {
        if (typeof connection === 'object' && connection !== null && 'secretArn' in connection) {
          lambdaKeys.push(`connections[${index}].secretArn`);
        }
      });
    }
    if (lambdaKeys.length > 0) {
      throw new UsageError(
        `config file ${path}: ${lambdaKeys.join(', ')} ${lambdaKeys.length === 1 ? 'is a setting' : 'are settings'} of the Lambda; locally use local.state: dynamodb:TABLE and local.notify: sns:TOPIC_ARN, with credentials from the environment (a connection's from the variables named after it, such as MONGODB_ATLAS_PUBLIC_API_KEY_DEV for connection dev)`,
      );
    }
  }
  const parsed = runConfigFileSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map(
            (key) =>
              `${where(locate, [...issue.path, key])}${settingPath([...issue.path, key])}: is not a known setting (see cli/examples/run.example.yaml, or infra/examples/config.example.yaml for a deploy configuration)`,
          )
        : describeSettingIssue(issue, value).map(
            (problem) => `${where(locate, problem.path)}${settingPath(problem.path)}: ${problem.message}`,
          ),
    );
    throw new UsageError(`config file ${path} is not valid: ${problems.join('; ')}`, { cause: parsed.error });
  }
  const { local, ...config } = parsed.data;
  const baseDirectory = dirname(path);
  const result: RunConfigFile = { path, config: pollerConfigSchema.parse(config) };
  if (local?.rules !== undefined) result.rules = layersFrom(local.rules, baseDirectory);
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

/** The file's YAML (or JSON) as a value; a syntax error is explained at its line and column. */
function parseConfigText(path: string, text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true });
  const syntax = explainYamlSyntax({ text, document, kind: 'configuration file' });
  if (syntax !== undefined) {
    throw new UsageError(
      `config file ${path} is not valid YAML:\n${formatYamlSyntaxProblem(path, text, syntax)}`,
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    // Aliases resolve only here: one naming no anchor, or one that expands without end.
    throw new UsageError(
      `config file ${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * The settings only a deploy configuration has: a file holding one of them is read as one. The
 * poller's own (atlas, sources, timing, inventory, concurrency) are in both.
 */
const DEPLOY_ONLY_KEYS: readonly string[] = Object.keys(deploySettingsSchema.shape).filter(
  (key) => !(key in pollerSettingsSchema.shape),
);

function isDeployConfig(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const timing = record.timing;
  return (
    DEPLOY_ONLY_KEYS.some((key) => key in record) ||
    (typeof timing === 'object' && timing !== null && 'scheduleMinutes' in timing)
  );
}

/** `file:line:column: ` of a setting the configuration file holds, or nothing for one it does not. */
function where(locate: SettingLocator, path: readonly PropertyKey[]): string {
  const location = locate(path);
  return location === undefined ? '' : `${location.file}:${location.line}:${location.column}: `;
}

/** A deploy configuration, as `cdk synth` resolves it from `cwd`, turned into a local run's settings. */
function readDeployConfig(
  path: string,
  value: Record<string, unknown>,
  cwd: string,
  locate: SettingLocator,
): RunConfigFile {
  if ('local' in value) {
    throw new UsageError(
      `config file ${path} is a deploy configuration, which cdk synth reads and which holds no local: block (synth refuses settings it does not know): give state, notify and rules with --state, --notify and --rules, or keep them in a run configuration (cli/examples/run.example.yaml)`,
    );
  }
  let config: DeployConfig;
  try {
    config = parseDeployConfig({ input: mergeSettings(cdkJsonContext(cwd), value), origin: path, locate });
  } catch (error) {
    if (!(error instanceof DeployConfigError)) throw error;
    const problems = error.problems.map(
      ({ path: setting, message, location }) =>
        `${location === undefined ? '' : `${location.file}:${location.line}:${location.column}: `}${setting || '(top level)'}: ${message}`,
    );
    throw new UsageError(
      `config file ${path} is a deploy configuration that cdk synth would refuse (${problems.length === 1 ? '1 setting' : `${problems.length} settings`}): ${problems.join('; ')}`,
      { cause: error },
    );
  }
  return {
    path,
    config: pollerConfigSchema.parse(pollerSettings(config)),
    rules: layersFrom(config.rules.directories, cwd),
  };
}

/** The `atlasAuditAlerts` context of the `cdk.json` in `directory`, which a deploy file is laid over. */
export function cdkJsonContext(directory: string): unknown {
  let text: string;
  try {
    text = readFileSync(join(directory, 'cdk.json'), 'utf8');
  } catch {
    return {};
  }
  try {
    const context = (JSON.parse(text) as { context?: Record<string, unknown> } | null)?.context;
    return context?.[DEPLOY_CONFIG_CONTEXT_KEY] ?? {};
  } catch {
    // cdk synth says what is wrong with its own file; the configuration file alone is checked here.
    return {};
  }
}

/** Rule layers with their relative paths resolved against `baseDirectory`; `builtin` as is. */
function layersFrom(layers: readonly string[], baseDirectory: string): string[] {
  return layers.map((layer) =>
    layer === BUILTIN_LAYER || isAbsolute(layer) ? layer : resolve(baseDirectory, layer),
  );
}

function settingPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}
