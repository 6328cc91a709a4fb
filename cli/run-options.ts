import type { AtlasClientOptions } from '../shared/atlas/index.js';
import {
  describeSettingIssue,
  type EffectiveConnection,
  effectiveConnections,
  type PollerConfig,
  pollerConfigSchema,
} from '../shared/poll/index.js';
import { type CredentialEnvNames, resolveAtlasClientOptions } from './atlas-credentials.js';
import type { Environment } from './atlas-options.js';
import { UsageError } from './errors.js';
import type { PollCommandOptions } from './poll-options.js';
import { DEFAULT_RULE_LAYERS } from './rule-layers.js';
import { readRunConfigFile } from './run-config-file.js';
import {
  DEFAULT_STATE_FILE,
  type NotifyTarget,
  parseNotifyTarget,
  parseStateTarget,
  type StateTarget,
} from './run-targets.js';

/** Everything a local poll needs, from the flags, the config file and the environment. */
export interface RunSettings {
  /** The poller configuration: the file's, with the flags on top, defaults filled in. */
  config: PollerConfig;
  /** The Atlas client's options of the first connection (`default` when it is polled), credentials included. */
  atlas: AtlasClientOptions;
  /**
   * Every connection polled, `default` first when its sources are set, each with its Atlas client's
   * options (credentials from the environment, see `connectionCredentialEnv`).
   */
  connections: RunConnection[];
  /** Rule files and directories. */
  rules: string[];
  state: StateTarget;
  notify: NotifyTarget;
  /** The polling period the config file asks for (`local.every`), if any. */
  everyMs: number | undefined;
}

/** A connection of a local run and the options of its Atlas client. */
export interface RunConnection {
  connection: EffectiveConnection;
  atlas: AtlasClientOptions;
}

/** Options of {@link resolveRunSettings}. */
export interface ResolveRunSettingsOptions {
  options: PollCommandOptions;
  /** Whether `--flavor` was given (its value is otherwise commander's default, which the file may override). */
  flavorGiven: boolean;
  env: Environment;
  /** Relative flag paths are resolved against it. */
  cwd: string;
  /** The variables a connection's credentials are read from, when not the poller's (`webhooks apply`). */
  credentialNames?: (connection: string) => CredentialEnvNames;
}

/**
 * Merges the config file (if `--config`), the flags and the environment into the settings of a local
 * poll, and checks them with the poller's own schema.
 *
 * @throws UsageError when the config file is unusable, nothing is configured to poll, `--all-projects`
 *   has no org, a setting is out of range, or the credentials in the environment are missing or
 *   incomplete (the message names the variables, never their values).
 * @example
 * ```ts
 * const settings = await resolveRunSettings({ options, flavorGiven: false, env: process.env, cwd: process.cwd() });
 * ```
 */
export async function resolveRunSettings(input: ResolveRunSettingsOptions): Promise<RunSettings> {
  const { options, cwd } = input;
  const file =
    options.config === undefined ? undefined : await readRunConfigFile({ path: options.config, cwd });
  const base: PollerConfig = file?.config ?? pollerConfigSchema.parse({});
  const timing = { ...base.timing };
  const toSeconds = (ms: number): number => Math.round(ms / 1000);
  if (options.overlap !== undefined) timing.overlapSeconds = toSeconds(options.overlap);
  if (options.lag !== undefined) timing.lagSeconds = toSeconds(options.lag);
  if (options.lookback !== undefined) timing.initialLookbackSeconds = toSeconds(options.lookback);
  if (options.inventoryInterval !== undefined) {
    timing.inventoryIntervalSeconds = toSeconds(options.inventoryInterval);
  }
  const merged = {
    ...base,
    atlas: {
      baseUrl: options.baseUrl ?? base.atlas.baseUrl,
      flavor: input.flavorGiven && options.flavor !== undefined ? options.flavor : base.atlas.flavor,
    },
    sources: {
      ...base.sources,
      orgIds: options.org ?? base.sources.orgIds,
      projectIds: options.project ?? base.sources.projectIds,
      allProjectsOfOrgs: options.allProjects === true || base.sources.allProjectsOfOrgs,
      ...(options.accessHistory === true ? { accessHistory: true } : {}),
    },
    timing,
    concurrency: options.concurrency ?? base.concurrency,
  };
  const parsed = pollerConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) =>
      describeSettingIssue(issue, merged).map((problem) => {
        const path = problem.path.join('.');
        return `${FLAG_OF_PATH[path] ?? path}: ${problem.message}`;
      }),
    );
    throw new UsageError(`the poll settings are not valid: ${problems.join('; ')}`, { cause: parsed.error });
  }
  const config = parsed.data;
  const { sources } = config;
  const polled = effectiveConnections(config).filter(
    (connection) => connection.sources.orgIds.length > 0 || connection.sources.projectIds.length > 0,
  );
  if (polled.length === 0) {
    throw new UsageError(
      'nothing to poll: give --org ID and/or --project ID (or sources in a --config file); --all-projects adds every project of each org',
    );
  }
  if (sources.allProjectsOfOrgs && sources.orgIds.length === 0 && (config.connections ?? []).length === 0) {
    throw new UsageError('--all-projects polls the projects of each --org: give at least one --org ID');
  }
  const connections = polled.map((connection) => ({
    connection,
    atlas: resolveAtlasClientOptions(
      {
        baseUrl: connection.baseUrl,
        flavor: connection.flavor,
        ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
        ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      },
      input.env,
      connection.name,
      input.credentialNames?.(connection.name),
    ),
  }));
  const atlas = (connections[0] as RunConnection).atlas;
  const state =
    options.state !== undefined
      ? parseStateTarget(options.state, { origin: '--state', baseDirectory: cwd })
      : (file?.state ??
        parseStateTarget(`file:${DEFAULT_STATE_FILE}`, { origin: '--state', baseDirectory: cwd }));
  const notify =
    options.notify !== undefined
      ? parseNotifyTarget(options.notify, { origin: '--notify', baseDirectory: cwd })
      : (file?.notify ?? { kind: 'console' as const });
  return {
    config,
    atlas,
    connections,
    rules: options.rules ?? file?.rules ?? [...DEFAULT_RULE_LAYERS],
    state,
    notify,
    everyMs: file?.everyMs,
  };
}

const FLAG_OF_PATH: Readonly<Record<string, string>> = {
  'atlas.baseUrl': '--base-url',
  'sources.accessHistory': '--access-history',
  'timing.overlapSeconds': '--overlap',
  'timing.lagSeconds': '--lag',
  'timing.initialLookbackSeconds': '--lookback',
  'timing.inventoryIntervalSeconds': '--inventory-interval',
  concurrency: '--concurrency',
};
