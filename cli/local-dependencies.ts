import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { AtlasClient } from '../shared/atlas/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import {
  type ConsoleLinkOptions,
  ConsoleNotifier,
  type Notifier,
  NotifyConfigError,
  OutboxNotifier,
  SnsNotifier,
} from '../shared/notify/index.js';
import {
  ConnectionUnavailableError,
  DEFAULT_CONNECTION,
  DiscoveryCache,
  NameCache,
  type TickDependencies,
} from '../shared/poll/index.js';
import { createRuleEngine, type RulePack } from '../shared/rules/index.js';
import { rulePackWarnings } from '../shared/rules/lint/index.js';
import { formatRuleWarnings } from '../shared/rules/problem-format.js';
import { DynamoDbStateStore, FileStateStore, type StateStore } from '../shared/state/index.js';
import { connectionCredentialEnv } from './atlas-credentials.js';
import { requireAwsRegion } from './aws-region.js';
import { UsageError } from './errors.js';
import { loadRuleLayers } from './rule-layers.js';
import type { RunSettings } from './run-options.js';

/**
 * How long a local run's lease on a source holds; ticks that run longer renew it. Short, so a run
 * killed mid-tick holds its sources for two minutes at most.
 */
export const LOCAL_LEASE_MS = 2 * 60_000;

/** Options of {@link openLocalPoll}. */
export interface OpenLocalPollOptions {
  settings: RunSettings;
  clock: Clock;
  logger: Logger;
  /** Where the console notifier prints alerts. */
  stdout: NodeJS.WritableStream;
  /** Replaces the notifier `settings.notify` names (the demo prints alerts its own way). */
  notifier?: Notifier;
  /** Console links in messages. Default: the console of `settings.config.atlas`. */
  consoleLinks?: ConsoleLinkOptions | null;
  /** Where the rule warnings (unknown event types and fields, ...) are printed before the run; none when absent. */
  ruleWarnings?: NodeJS.WritableStream;
  /** ANSI colours in the alerts the console notifier prints. Default: none. */
  color?: boolean;
}

/** The dependencies of local ticks, opened once for the whole run. */
export interface LocalPoll {
  deps: TickDependencies;
  /** The first connection's client (`default` when it is polled). */
  atlas: AtlasClient;
  store: StateStore;
  /** The rules the engine runs, as loaded. */
  pack: RulePack;
  /** Closes the Atlas connections and the store (releasing a state file's lock). */
  close(): Promise<void>;
}

/**
 * Opens what local ticks run on, once per run: the rules (loaded and checked first, so a broken rule
 * stops the run before anything else, and their warnings printed to `ruleWarnings`), the state store (`file:` locks its file for the life of the
 * run; `dynamodb:` uses the default AWS credentials and region), the rule engine over that store, the
 * Atlas client and the notifier.
 *
 * @throws {RuleLoadError} when a rule file is invalid (every problem with file, line and column).
 * @throws {AtlasConfigError} when the Atlas options are unusable.
 * @throws {StateFileLockedError} when another run holds the state file; {@link StateFileCorruptError}
 *   when it is not a state file.
 * @throws {UsageError} when the SNS topic ARN is invalid.
 * @example
 * ```ts
 * const poll = await openLocalPoll({ settings, clock: systemClock, logger, stdout: process.stdout });
 * try {
 *   await runTick(poll.deps, { config: settings.config, owner: 'cli' });
 * } finally {
 *   await poll.close();
 * }
 * ```
 */
export async function openLocalPoll(options: OpenLocalPollOptions): Promise<LocalPoll> {
  const { settings, clock, logger } = options;
  const pack = await loadRuleLayers(settings.rules);
  if (options.ruleWarnings !== undefined) {
    const warnings = rulePackWarnings(pack);
    if (warnings.length > 0) options.ruleWarnings.write(`${formatRuleWarnings(warnings)}\n`);
  }
  const consoleLinks =
    options.consoleLinks === null
      ? undefined
      : (options.consoleLinks ?? {
          flavor: settings.config.atlas.flavor,
          baseUrl: settings.config.atlas.baseUrl,
        });
  const clients = new Map(
    settings.connections.map(({ connection, atlas }) => [
      connection.name,
      new AtlasClient({ ...atlas, clock, logger }),
    ]),
  );
  if (clients.size === 0)
    clients.set(DEFAULT_CONNECTION, new AtlasClient({ ...settings.atlas, clock, logger }));
  // Settings list the connection default first when it is polled.
  const atlas = clients.values().next().value as AtlasClient;
  const closers: Array<() => Promise<void> | void> = [...clients.values()].map(
    (client) => () => client.close(),
  );
  const close = async (): Promise<void> => {
    for (const closeOne of closers.reverse()) await closeOne();
    closers.length = 0;
  };
  try {
    const store = await openStore(settings, clock, logger, closers);
    const engine = createRuleEngine({ pack, counters: store, firstSeen: store, logger, clock });
    const notifier =
      options.notifier ??
      createNotifier(settings, options.stdout, clock, logger, consoleLinks, closers, options.color === true);
    return {
      deps: {
        atlas: async (connection) => {
          const client = clients.get(connection.name);
          if (client !== undefined) return client;
          throw new ConnectionUnavailableError(
            `connection "${connection.name}" has no credentials in this run: set ${connectionCredentialEnv(connection.name).publicKey} and ${connectionCredentialEnv(connection.name).privateKey}`,
          );
        },
        store,
        engine,
        notifier,
        clock,
        logger,
        discoveryCache: new DiscoveryCache(),
        names: new NameCache(),
      },
      atlas,
      store,
      pack,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openStore(
  settings: RunSettings,
  clock: Clock,
  logger: Logger,
  closers: Array<() => Promise<void> | void>,
): Promise<StateStore> {
  if (settings.state.kind === 'file') {
    const store = await FileStateStore.open({ path: settings.state.path, clock, logger });
    closers.push(() => store.close());
    return store;
  }
  const client = new DynamoDBClient({});
  closers.push(() => client.destroy());
  await requireAwsRegion(client, `--state dynamodb:${settings.state.tableName}`);
  const store = new DynamoDbStateStore({ client, tableName: settings.state.tableName, clock, logger });
  closers.push(() => store.close());
  return store;
}

function createNotifier(
  settings: RunSettings,
  stdout: NodeJS.WritableStream,
  clock: Clock,
  logger: Logger,
  consoleLinks: ConsoleLinkOptions | undefined,
  closers: Array<() => Promise<void> | void>,
  color: boolean,
): Notifier {
  const links = {
    ...(consoleLinks === undefined ? {} : { console: consoleLinks }),
    // Each connection's alerts link to its own console, an Ops Manager's host among them.
    connectionConsoles: new Map(
      settings.connections
        .filter(({ connection }) => !connection.legacy)
        .map(({ connection }) => [
          connection.name,
          { flavor: connection.flavor, baseUrl: connection.baseUrl },
        ]),
    ),
  };
  switch (settings.notify.kind) {
    case 'console':
      return new ConsoleNotifier({ stream: stdout, clock, logger, color, ...links });
    case 'outbox':
      return new OutboxNotifier({ path: settings.notify.path, clock, logger, ...links });
    case 'sns': {
      // The topic's ARN names its region: no region needs to be set for SNS.
      const region = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:/.exec(settings.notify.topicArn)?.[1];
      const client = new SNSClient(region === undefined ? {} : { region });
      closers.push(() => client.destroy());
      try {
        return new SnsNotifier({ client, topicArn: settings.notify.topicArn, clock, logger, ...links });
      } catch (error) {
        // The topic ARN came from the command line or the config file: a usage mistake.
        if (error instanceof NotifyConfigError)
          throw new UsageError(`--notify: ${error.message}`, { cause: error });
        throw error;
      }
    }
  }
}
