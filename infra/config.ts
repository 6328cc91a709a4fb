import * as z from 'zod';
import { SEVERITIES } from '../shared/notify/alert.js';
import { connectionProblems, connectionSchema, DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import {
  atlasFlavorSchema,
  DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS,
  inventorySettingsSchema,
  MAX_CONNECTIONS,
  sourcesSchema,
  timingSchema,
} from '../shared/poll/poller-config.js';
import { describeSettingIssue } from '../shared/poll/setting-issues.js';
import { planRoutes } from '../shared/routes/route-plan.js';
import {
  accountDestinationSchema,
  digestSettingsSchema,
  routesSchema,
  slackChannelShape,
} from '../shared/routes/route-settings.js';
import { auditLogSettingsSchema, normalizedAuditPrefix } from './audit-log-settings.js';
import { DEFAULT_ROUTE, deliveryRoutePath, deliveryRoutes, hasDefaultRoute } from './delivery-routes.js';
import { connectionIdPart, deployedConnections, pollsTopLevelSources } from './deploy-connections.js';
import { DeployConfigError, type DeployConfigProblem } from './errors.js';
import { fanOutSettingsSchema } from './fan-out-settings.js';
import { NETWORK_CHECKS, networkSettingsSchema } from './network-settings.js';
import { pushSettingsSchema, webhookSecretSchema } from './push-settings.js';
import type { SettingLocator } from './setting-positions.js';

/** The `cdk.json` context key that holds the deploy configuration. */
export const DEPLOY_CONFIG_CONTEXT_KEY = 'atlasAuditAlerts';
/** The context key that names an optional configuration file: `--context config=path.yaml`. */
export const DEPLOY_CONFIG_FILE_CONTEXT_KEY = 'config';

/** The retention periods CloudWatch Logs accepts, in days. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/**
 * The heartbeat alarm waits three schedule periods; CloudWatch evaluates at most one day of periods, so
 * the schedule can be at most a third of a day.
 */
export const MAX_SCHEDULE_MINUTES = 480;

const severitySchema = z.enum(SEVERITIES);

const secretArnSchema = z
  .string()
  .regex(
    /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/,
    'must be the complete ARN of a Secrets Manager secret, ending in its 6-character suffix (copy it from the console)',
  );

const kmsKeyArnSchema = z
  .string()
  .regex(/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, 'must be the ARN of a KMS key');

/** An event bus name (`default`, `create` here meaning one the stack makes) or an event bus ARN. */
const EVENT_BUS_PATTERN =
  /^(?:[/.\-_A-Za-z0-9]{1,256}|arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[/.\-_A-Za-z0-9]{1,256})$/;

const emailListSchema = z.array(z.email('must be an email address')).default([]);

const baseUrlSchema = z.url({
  protocol: /^https?$/,
  error:
    'must be an http(s) URL: https://cloud.mongodb.com, or your Ops Manager such as https://opsmanager.example.com:8443',
});

/** Where a connection's credentials are: the top-level `credentials` and each connection's. */
const credentialsSchema = z.strictObject({
  /** An existing secret holding the credentials; when absent the stack creates one to fill in. */
  secretArn: secretArnSchema.optional(),
  /** The customer managed key that encrypts the existing secret, if it is not the default key. */
  kmsKeyArn: kmsKeyArnSchema.optional(),
});

/**
 * One more Atlas organization or Ops Manager, polled with credentials of its own: the poller's
 * connection settings, with the secret given the way the top-level `credentials` give it.
 */
const deployConnectionSchema = connectionSchema.omit({ secretArn: true }).extend({
  baseUrl: baseUrlSchema.default('https://cloud.mongodb.com'),
  // A connection is there to poll something: `allowNone` is the deployment's alone.
  sources: sourcesSchema.omit({ allowNone: true }),
  credentials: credentialsSchema.prefault({}),
  /** With `push.enabled`: the secret of this connection's Atlas Webhook integrations. */
  webhookSecret: webhookSecretSchema.prefault({}),
  /** Atlas database audit logs exported to a bucket of this connection's own (see docs/audit-logs.md). */
  auditLogs: auditLogSettingsSchema.optional(),
});

const slackSchema = z.strictObject({
  ...slackChannelShape,
  /** Alerts below this severity do not reach the channel. */
  minSeverity: severitySchema.default('low'),
});

/**
 * The settings, one by one. One schema gives the defaults, the validation and the type the stack is
 * built from; the poller's own settings (`atlas`, `sources`, `timing`, `concurrency`) reuse the poller's
 * schemas, so a value accepted here is a value the Lambda accepts.
 */
export const deploySettingsSchema = z.strictObject({
  /** The CloudFormation stack name. */
  stackName: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9-]{0,100}$/,
      'must start with a letter and hold only letters, digits and hyphens (at most 101 characters)',
    )
    .default('AtlasAuditAlerts'),
  /** Pins the stack to an account and region; by default the CLI's credentials and region decide. */
  env: z
    .strictObject({
      account: z
        .string()
        .regex(/^\d{12}$/, 'must be a 12-digit AWS account id')
        .optional(),
      region: z
        .string()
        .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as eu-west-1')
        .optional(),
    })
    .optional(),
  atlas: z
    .strictObject({
      flavor: atlasFlavorSchema.default('atlas-v2'),
      baseUrl: baseUrlSchema.default('https://cloud.mongodb.com'),
    })
    .prefault({}),
  sources: sourcesSchema
    .extend({
      /**
       * Deploy with no organization and no project, on purpose (to create the secret and topics before
       * the ids are known): the poller then runs and reads nothing. Without it such a stack fails synth.
       */
      allowNone: z.boolean().default(false),
    })
    .prefault({}),
  timing: timingSchema
    .extend({
      /** How often the poller runs, in minutes. */
      scheduleMinutes: z
        .number()
        .int()
        .min(1)
        .max(
          MAX_SCHEDULE_MINUTES,
          `must be at most ${MAX_SCHEDULE_MINUTES}: the heartbeat alarm waits three periods, and CloudWatch alarms look back one day at most`,
        )
        .default(5),
    })
    .prefault({}),
  /** Inventory snapshots: `baselineFindings: false` stores first snapshots without alerts. */
  inventory: inventorySettingsSchema.prefault({}),
  /** How many sources one tick polls at once. */
  concurrency: z.number().int().min(1).max(32).default(4),
  alerts: z
    .strictObject({
      /** Addresses that receive alerts by email; each confirms its subscription once. */
      emails: emailListSchema,
      /** Alerts below this severity are not emailed. */
      emailMinSeverity: severitySchema.default('medium'),
      /** The AWS Chatbot Slack channel that receives alerts; none when absent. */
      slack: slackSchema.optional(),
      /** Every alert (at or above its `minSeverity`) also goes to the EventBridge bus `eventBridge.bus` names. */
      eventBridge: accountDestinationSchema.optional(),
      /** Every alert (at or above its `minSeverity`) also becomes a Security Hub finding. */
      securityHub: accountDestinationSchema.optional(),
      /**
       * The digest of the route these settings make: alerts below `below` reach its email and Slack
       * in one message `every` day or hour. Default: info and low alerts in a daily digest; `false`
       * sends them one by one (at or above the floors) as before.
       */
      digest: z.union([z.literal(false), digestSettingsSchema]).default({ below: 'medium', every: 'daily' }),
    })
    .prefault({}),
  /**
   * The EventBridge bus alerts go to, for the routes (or `alerts.eventBridge`) that send to it: the
   * account's `default` bus, one the stack creates (`create`), or an existing bus by name or ARN.
   */
  eventBridge: z
    .strictObject({
      bus: z
        .string()
        .regex(
          EVENT_BUS_PATTERN,
          'must be default, create, the name of an existing bus (letters, digits, ".", "-", "_", "/"), or its ARN',
        )
        .default('default'),
    })
    .optional(),
  /**
   * More routes for alerts, beside the one `alerts` makes: each takes the alerts its match holds
   * for (connections, organizations, projects, rules, tags, a severity floor) to its own email
   * addresses or Slack channel. See docs/deploy.md.
   */
  routes: routesSchema.default([]),
  operations: z
    .strictObject({
      /** Addresses that receive the stack's own alarms (failed ticks, Atlas refusing the key). */
      emails: emailListSchema,
      /** The watermark lag, in minutes, above which the lag alarm fires. */
      watermarkLagAlarmMinutes: z.number().int().min(2).max(10_080).default(60),
    })
    .prefault({}),
  rules: z
    .strictObject({
      /**
       * Rule layers in order: directories (or files) relative to the project root, `builtin` for the
       * pack shipped with this version. A later layer tunes an earlier one.
       */
      directories: z.array(z.string().min(1)).min(1, 'must name at least one directory').default(['builtin']),
      /**
       * Which rule warnings fail synth. Unset (the default): unknown event types and fields in your
       * own layers, as `rules validate` does; `true`: every warning, as `rules validate --strict`;
       * `false`: none, as `rules validate --no-strict`. Warnings that do not fail are synth warnings.
       */
      strict: z.boolean().optional(),
    })
    .prefault({}),
  /** The credentials of the top-level `atlas` and `sources` settings (the connection `default`). */
  credentials: credentialsSchema.prefault({}),
  /**
   * More Atlas organizations and Ops Manager instances, each with its own flavour, base URL,
   * credentials (a secret of its own) and sources, and optionally its own timings and inventory
   * settings. The top-level `atlas`, `sources` and `credentials` stay the connection `default`.
   * See docs/deploy.md.
   */
  connections: z.array(deployConnectionSchema).max(MAX_CONNECTIONS).default([]),
  table: z
    .strictObject({
      /** `retain` keeps the table (watermarks, alert history) when the stack is deleted. */
      removalPolicy: z.enum(['retain', 'destroy']).default('retain'),
      /** Defaults to on when the table is retained, off when it is destroyed with the stack. */
      deletionProtection: z.boolean().optional(),
    })
    .prefault({}),
  poller: z
    .strictObject({
      timeoutSeconds: z.number().int().min(30).max(900).default(180),
      memoryMiB: z.number().int().min(128).max(10_240).default(256),
      logRetentionDays: z
        .number()
        .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
          message: `must be one of ${LOG_RETENTION_DAYS.join(', ')}`,
        })
        .default(30),
      logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
      /**
       * Reserve one concurrent execution so ticks never run side by side. Accounts whose concurrency
       * quota is still at the new-account minimum cannot reserve any: turn it off there (the per-source
       * lease still keeps two ticks from working the same source).
       */
      reservedConcurrency: z.boolean().default(true),
    })
    .prefault({}),
  /** Where the poller runs: outside any VPC (the default), in a VPC the stack creates, or in yours. */
  network: networkSettingsSchema.prefault({}),
  /** One invocation for every source (`off`), or a dispatcher and SQS-driven workers (see docs/fan-out.md). */
  fanOut: fanOutSettingsSchema.prefault({}),
  /**
   * Atlas webhooks that wake a poll of one source at once (a Lambda function URL that verifies the
   * push and queues its source on the fan-out queue); off by default. See docs/push.md.
   */
  push: pushSettingsSchema.prefault({}),
  /**
   * The connection `default`'s Atlas database audit logs, exported by the projects listed to a bucket
   * the stack creates, read by a function through the rules; absent by default. A connection of
   * `connections` has its own. See docs/audit-logs.md.
   */
  auditLogs: auditLogSettingsSchema.optional(),
});

type DeploySettings = z.output<typeof deploySettingsSchema>;

/** A rule across settings, checked only once the settings it reads are valid on their own. */
interface CrossCheck {
  /** The settings it reads, as path prefixes. */
  inputs: readonly (readonly string[])[];
  check(config: DeploySettings, fail: (path: (string | number)[], message: string) => void): void;
}

const uniqueLists = (
  [
    ['sources', 'orgIds'],
    ['sources', 'projectIds'],
    ['alerts', 'emails'],
    ['operations', 'emails'],
    ['rules', 'directories'],
  ] as const
).map(
  ([section, key]): CrossCheck => ({
    inputs: [[section, key]],
    check(config, fail) {
      const values: readonly string[] =
        (config[section] as unknown as Record<string, readonly string[]>)[key] ?? [];
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value.toLowerCase())) fail([section, key, index], `${value} is listed twice`);
        seen.add(value.toLowerCase());
      });
    },
  }),
);

const CROSS_CHECKS: readonly CrossCheck[] = [
  {
    inputs: [['sources']],
    check(config, fail) {
      const { orgIds, projectIds, allProjectsOfOrgs, allowNone } = config.sources;
      const none = orgIds.length === 0 && projectIds.length === 0;
      if (allProjectsOfOrgs && orgIds.length === 0) {
        fail(['sources', 'allProjectsOfOrgs'], 'needs at least one org id in sources.orgIds');
      } else if (!none && allowNone) {
        fail(
          ['sources', 'allowNone'],
          'is only for a deployment with no organization and no project: remove it, so that emptying the lists by mistake fails the synth',
        );
      }
    },
  },
  ...uniqueLists,
  {
    inputs: [['sources'], ['connections']],
    check(config, fail) {
      const named = config.connections.some(
        ({ sources }) => sources.orgIds.length > 0 || sources.projectIds.length > 0,
      );
      if (config.sources.allowNone && named) {
        fail(
          ['sources', 'allowNone'],
          'is only for a deployment with no organization and no project, and its connections name some: remove it',
        );
      }
      // The one checker the poller runs too; a top-level id listed twice is reported as such above.
      for (const problem of connectionProblems(config, config.connections)) {
        if (problem.path[0] !== 'sources') fail([...problem.path], problem.message);
      }
    },
  },
  {
    inputs: [['connections']],
    check(config, fail) {
      const ids = new Map<string, string>();
      config.connections.forEach((connection, index) => {
        const at = ['connections', index] as const;
        const { orgIds, projectIds, allProjectsOfOrgs } = connection.sources;
        if (orgIds.length === 0 && projectIds.length === 0) {
          fail(
            [...at, 'sources'],
            'names no organization and no project: give the connection sources.orgIds or sources.projectIds, or remove it',
          );
        } else if (allProjectsOfOrgs && orgIds.length === 0) {
          fail([...at, 'sources', 'allProjectsOfOrgs'], 'needs at least one org id in sources.orgIds');
        }
        if (
          connection.credentials.kmsKeyArn !== undefined &&
          connection.credentials.secretArn === undefined
        ) {
          fail(
            [...at, 'credentials', 'kmsKeyArn'],
            `only applies to an existing secret: set connections[${index}].credentials.secretArn too`,
          );
        }
        const id = connectionIdPart(connection.name);
        const other = ids.get(id);
        if (other !== undefined && other !== connection.name) {
          fail(
            [...at, 'name'],
            `"${connection.name}" and "${other}" give the same CloudFormation names (${id}): rename one`,
          );
        }
        ids.set(id, connection.name);
      });
    },
  },
  {
    inputs: [
      ['timing', 'deadlineMarginSeconds'],
      ['poller', 'timeoutSeconds'],
    ],
    check(config, fail) {
      if (config.timing.deadlineMarginSeconds >= config.poller.timeoutSeconds) {
        fail(
          ['timing', 'deadlineMarginSeconds'],
          `must be less than poller.timeoutSeconds (${config.poller.timeoutSeconds}), or no tick could start any work`,
        );
      }
    },
  },
  {
    inputs: [
      ['operations', 'watermarkLagAlarmMinutes'],
      ['timing', 'scheduleMinutes'],
    ],
    check(config, fail) {
      if (config.operations.watermarkLagAlarmMinutes <= config.timing.scheduleMinutes) {
        fail(
          ['operations', 'watermarkLagAlarmMinutes'],
          `must be more than timing.scheduleMinutes (${config.timing.scheduleMinutes}), or it fires between two ticks`,
        );
      }
    },
  },
  {
    inputs: [
      ['sources'],
      ['timing', 'accessHistorySettleSeconds'],
      ['timing', 'scheduleMinutes'],
      ['operations', 'watermarkLagAlarmMinutes'],
      ['connections'],
    ],
    check(config, fail) {
      // An idle cluster's watermark stays the settle time behind now (docs/access-history.md).
      const topLevel = config.timing.accessHistorySettleSeconds ?? DEFAULT_ACCESS_HISTORY_SETTLE_SECONDS;
      const reading = [
        { path: ['timing'], settle: topLevel, on: config.sources.accessHistory === true },
        ...config.connections.map((connection, index) => ({
          path: ['connections', index, 'timing'],
          settle: connection.timing?.accessHistorySettleSeconds ?? topLevel,
          on: connection.sources.accessHistory === true,
        })),
      ];
      const alarmSeconds = config.operations.watermarkLagAlarmMinutes * 60;
      const scheduleSeconds = config.timing.scheduleMinutes * 60;
      for (const { path, settle, on } of reading) {
        if (on && settle + scheduleSeconds >= alarmSeconds) {
          fail(
            [...path, 'accessHistorySettleSeconds'],
            `is ${settle} seconds: with timing.scheduleMinutes (${config.timing.scheduleMinutes}) it reaches operations.watermarkLagAlarmMinutes (${config.operations.watermarkLagAlarmMinutes}), so every idle cluster would raise the lag alarm; lower it, or raise the alarm's threshold`,
          );
        }
      }
    },
  },
  {
    inputs: [['table']],
    check(config, fail) {
      if (config.table.removalPolicy === 'destroy' && config.table.deletionProtection === true) {
        fail(
          ['table', 'deletionProtection'],
          'cannot be on when table.removalPolicy is destroy: CloudFormation could not delete the table',
        );
      }
    },
  },
  {
    inputs: [['credentials']],
    check(config, fail) {
      if (config.credentials.kmsKeyArn !== undefined && config.credentials.secretArn === undefined) {
        fail(
          ['credentials', 'kmsKeyArn'],
          'only applies to an existing secret: set credentials.secretArn too',
        );
      }
    },
  },
  {
    inputs: [['routes'], ['alerts'], ['connections'], ['sources'], ['atlas'], ['credentials']],
    check(config, fail) {
      const hasDefault = hasDefaultRoute(config);
      config.routes.forEach((route, index) => {
        if (hasDefault && route.name === DEFAULT_ROUTE) {
          fail(
            ['routes', index, 'name'],
            `${DEFAULT_ROUTE} is the route the alerts settings make (emails, slack, eventBridge, securityHub): give this route another name`,
          );
        }
        // An alert names the connection it came through: a name no connection has would match nothing.
        const polled = deployedConnections(config).map((connection) => connection.name);
        route.match.connections?.forEach((name, position) => {
          if (polled.includes(name)) return;
          fail(
            ['routes', index, 'match', 'connections', position],
            `no connection is named "${name}": this deployment polls ${polled.map((known) => `"${known}"`).join(', ')}, and an alert carries the name of the one it came through`,
          );
        });
      });
      for (const problem of planRoutes(deliveryRoutes(config)).problems) {
        fail(deliveryRoutePath(config, problem.path), problem.message);
      }
    },
  },
  {
    inputs: [['eventBridge'], ['alerts'], ['routes']],
    check(config, fail) {
      const sends = deliveryRoutes(config).some((route) => route.eventBridge !== undefined);
      if (config.eventBridge !== undefined && !sends) {
        fail(
          ['eventBridge'],
          'names a bus no route sends to: add alerts.eventBridge: {} (every alert) or eventBridge: {} to a route, or remove this setting',
        );
      }
    },
  },
  ...NETWORK_CHECKS,
  {
    inputs: [['push'], ['fanOut', 'mode'], ['connections']],
    check(config, fail) {
      const secrets = [
        { path: ['push', 'webhookSecret'], secret: config.push.webhookSecret },
        ...config.connections.map((connection, index) => ({
          path: ['connections', index, 'webhookSecret'],
          secret: connection.webhookSecret,
        })),
      ];
      for (const { path, secret } of secrets) {
        if (secret.kmsKeyArn !== undefined && secret.secretArn === undefined) {
          fail(
            [...path, 'kmsKeyArn'],
            `only applies to an existing secret: set ${formatSettingPath(path)}.secretArn too`,
          );
        }
      }
      if (config.push.enabled && config.fanOut.mode === 'off') {
        fail(
          ['push', 'enabled'],
          'needs the fan-out queue, which a push puts its source on: set fanOut.mode to automatic (the dispatcher still polls small ticks itself) or on, or turn push off',
        );
      }
    },
  },
  {
    inputs: [['auditLogs'], ['connections'], ['sources']],
    check(config, fail) {
      const sections = [
        { path: ['auditLogs'], name: DEFAULT_CONNECTION, settings: config.auditLogs },
        ...config.connections.map((connection, index) => ({
          path: ['connections', index, 'auditLogs'],
          name: connection.name,
          settings: connection.auditLogs,
        })),
      ];
      if (config.auditLogs !== undefined && !pollsTopLevelSources(config)) {
        fail(
          ['auditLogs'],
          'belongs to the connection default (the top-level sources), which this deployment does not poll: move it into the connection whose credentials read these projects',
        );
      }
      // A project's lines are told apart by project: its audit logs come in through one connection.
      const owners = new Map<string, string>();
      for (const { path, name, settings } of sections) {
        if (settings === undefined) continue;
        const prefixes = new Map<string, number>();
        settings.projects.forEach((project, index) => {
          const owner = owners.get(project.projectId);
          if (owner !== undefined) {
            fail(
              [...path, 'projects', index, 'projectId'],
              `project ${project.projectId} exports its audit logs to ${owner === name ? 'this bucket' : `the bucket of connection "${owner}"`} already: list each project once`,
            );
          }
          owners.set(project.projectId, name);
          const prefix = normalizedAuditPrefix(project.prefix);
          const other = prefixes.get(prefix);
          if (other !== undefined) {
            fail(
              [...path, 'projects', index, 'prefix'],
              `is the prefix of projects[${other}] too: objects under it could not be told apart by project; give each project's log integration its own prefixPath`,
            );
          }
          prefixes.set(prefix, index);
        });
      }
    },
  },
  {
    inputs: [['fanOut'], ['timing', 'deadlineMarginSeconds']],
    check(config, fail) {
      const { fanOut } = config;
      if (fanOut.mode === 'off') return;
      if (config.timing.deadlineMarginSeconds >= fanOut.workerTimeoutSeconds) {
        fail(
          ['fanOut', 'workerTimeoutSeconds'],
          `must be more than timing.deadlineMarginSeconds (${config.timing.deadlineMarginSeconds}), or no worker could start any work`,
        );
      }
      if (fanOut.maxConcurrencyPerOrg > fanOut.maxConcurrency) {
        fail(
          ['fanOut', 'maxConcurrencyPerOrg'],
          `is more than fanOut.maxConcurrency (${fanOut.maxConcurrency}), the workers there are in all: lower it or raise maxConcurrency`,
        );
      }
    },
  },
];

function startsWith(path: readonly PropertyKey[], prefix: readonly PropertyKey[]): boolean {
  return prefix.every((segment, index) => path[index] === segment);
}

/**
 * Whether an issue at `path` touches a setting under `input`: it is inside it, or at one of its
 * parents (a section that is `null`), so the setting is not there to read.
 */
function touches(path: readonly PropertyKey[], input: readonly string[]): boolean {
  return startsWith(path, input) || startsWith(input, path);
}

/**
 * Everything a deployment can tune: {@link deploySettingsSchema} and the rules across settings. A
 * rule across settings runs once the settings it reads are valid, so one error lists every wrong
 * setting without also blaming its neighbours.
 */
export const deployConfigSchema = CROSS_CHECKS.reduce(
  (schema, { inputs, check }) =>
    schema.superRefine(
      (config, context) => {
        check(config, (path, message) => context.addIssue({ code: 'custom', path, message }));
      },
      {
        when: (payload) =>
          !payload.issues.some((issue) => inputs.some((input) => touches(issue.path ?? [], input))),
      },
    ),
  deploySettingsSchema,
);

export type DeployConfig = z.output<typeof deployConfigSchema>;
export type DeployConfigInput = z.input<typeof deployConfigSchema>;

export interface ParseDeployConfigOptions {
  /** The merged configuration, as read from `cdk.json` context and the configuration file. */
  input: unknown;
  /** Where the input came from, for the error message (`cdk.json context "atlasAuditAlerts"`). */
  origin: string;
  /** Finds a setting in the configuration file, so a problem there names its file, line and column. */
  locate?: SettingLocator | undefined;
}

/**
 * Validates a deploy configuration and fills in its defaults.
 *
 * @throws {DeployConfigError} listing every wrong or unknown setting with its path, and with its
 *   file, line and column when `locate` finds it in the configuration file.
 * @example
 * ```ts
 * const config = parseDeployConfig({ input: { sources: { orgIds: ['5f4e3d2c1b0a998877665544'] } }, origin: 'test' });
 * config.timing.scheduleMinutes; // 5
 * ```
 */
export function parseDeployConfig({ input, origin, locate }: ParseDeployConfigOptions): DeployConfig {
  const settings = input ?? {};
  const result = deployConfigSchema.safeParse(settings);
  if (result.success) return result.data;
  const problems =
    typeof settings === 'object' && !Array.isArray(settings)
      ? result.error.issues.flatMap((issue) => toProblems(issue, settings, locate))
      : [
          {
            path: '',
            message: `must be a mapping of settings (such as sources, alerts and timing), found ${kindOf(settings)}`,
          },
        ];
  const list = problems
    .map(({ path, message, location }) => {
      const where = location === undefined ? '' : `${location.file}:${location.line}:${location.column}: `;
      return `  - ${where}${path || '(root)'}: ${message}`;
    })
    .join('\n');
  const count = problems.length === 1 ? '1 setting' : `${problems.length} settings`;
  throw new DeployConfigError(
    `The deploy configuration from ${origin} is invalid (${count}); fix these, then run cdk synth again:\n${list}`,
    { problems },
  );
}

/** What a value is, for messages: `a list`, `the string "hello"`, `a number`. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') {
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  }
  return `a ${typeof value}`;
}

function toProblems(
  issue: z.core.$ZodIssue,
  settings: unknown,
  locate: SettingLocator | undefined,
): DeployConfigProblem[] {
  const problem = (path: readonly PropertyKey[], message: string): DeployConfigProblem => {
    const location = locate?.(path);
    return { path: formatSettingPath(path), message, ...(location === undefined ? {} : { location }) };
  };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) =>
      problem(
        [...issue.path, key],
        'is not a known setting (check its spelling against infra/examples/config.example.yaml)',
      ),
    );
  }
  return describeSettingIssue(issue, settings).map(({ path, message }) => problem(path, message));
}

/**
 * Writes a setting's path the way a person reads it: `alerts.emails[1]`.
 *
 * @example
 * ```ts
 * formatSettingPath(['alerts', 'emails', 1]); // 'alerts.emails[1]'
 * ```
 */
export function formatSettingPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
