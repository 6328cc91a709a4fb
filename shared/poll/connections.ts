import * as z from 'zod';
import { atlasFlavorSchema, inventorySettingsSchema, sourcesSchema, timingSchema } from './poll-settings.js';
import type { PollerConfig } from './poller-config.js';

/** A connection's name: what metrics, alarms, `status` and routes call it. */
export const CONNECTION_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** The name the single `atlas` + `sources` settings of earlier versions are known by. */
export const DEFAULT_CONNECTION = 'default';

/**
 * The settings of `schema`, each optional and without its default: a connection's own timings and
 * inventory settings hold only what it changes, the deployment's giving the rest.
 */
function overrides<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [
      key,
      (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType)).optional(),
    ]),
  ) as { [Key in keyof Shape]: z.ZodOptional<z.ZodType<Exclude<z.output<Shape[Key]>, undefined>>> };
  return z.strictObject(shape);
}

/**
 * One Atlas organization's credentials (or an Ops Manager's) and what to poll with them: a
 * deployment holds several, each with its own base URL, flavour, secret and sources, and optionally
 * its own timings and inventory settings over the deployment's.
 */
export const connectionSchema = z.strictObject({
  name: z
    .string()
    .regex(CONNECTION_NAME, 'must be 1 to 32 characters of a-z, 0-9 and "-", starting with a letter'),
  flavor: atlasFlavorSchema.default('atlas-v2'),
  baseUrl: z.url().default('https://cloud.mongodb.com'),
  /** Secrets Manager secret holding this connection's credentials (Lambda only). */
  secretArn: z.string().startsWith('arn:').optional(),
  sources: sourcesSchema,
  /** Its own timings; the deadline margin is the tick's, so it is not among them. */
  timing: overrides(timingSchema.omit({ deadlineMarginSeconds: true })).optional(),
  inventory: overrides(inventorySettingsSchema).optional(),
});

export type ConnectionInput = z.input<typeof connectionSchema>;
export type ConnectionSettings = z.output<typeof connectionSchema>;

/** A connection with the deployment's settings under its own: what a tick polls it with. */
export interface EffectiveConnection {
  readonly name: string;
  readonly flavor: PollerConfig['atlas']['flavor'];
  readonly baseUrl: string;
  readonly secretArn: string | undefined;
  readonly sources: PollerConfig['sources'];
  readonly timing: PollerConfig['timing'];
  readonly inventory: PollerConfig['inventory'];
  /** Whether it stands for the `atlas` + `sources` settings of a configuration without connections. */
  readonly legacy: boolean;
}

/** A mistake in the connections of a configuration, at a path of its settings. */
export interface ConnectionProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The connections a configuration polls: the top-level `atlas`, `sources` and `secretArn` as the
 * connection `default` when they name a source (so a configuration of an earlier version polls as
 * before, reading the state it wrote), then each of `connections` with the deployment's timings and
 * inventory settings under its own.
 *
 * @example
 * ```ts
 * effectiveConnections(config, [{ name: 'prod', flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com', sources }]);
 * // [{ name: 'prod', ... }]
 * ```
 */
export function effectiveConnections(
  config: PollerConfig,
  connections: readonly ConnectionSettings[] = config.connections ?? [],
): EffectiveConnection[] {
  const effective: EffectiveConnection[] = [];
  const { orgIds, projectIds } = config.sources;
  if (orgIds.length > 0 || projectIds.length > 0 || connections.length === 0) {
    effective.push({
      name: DEFAULT_CONNECTION,
      flavor: config.atlas.flavor,
      baseUrl: config.atlas.baseUrl,
      secretArn: config.secretArn,
      sources: config.sources,
      timing: config.timing,
      inventory: config.inventory,
      legacy: true,
    });
  }
  for (const connection of connections) {
    effective.push({
      name: connection.name,
      flavor: connection.flavor,
      baseUrl: connection.baseUrl,
      secretArn: connection.secretArn,
      sources: connection.sources,
      timing: { ...config.timing, ...definedOnly(connection.timing) },
      inventory: { ...config.inventory, ...definedOnly(connection.inventory) },
      legacy: false,
    });
  }
  return effective;
}

/**
 * What is wrong with a configuration's connections, each at its path: a name given twice (or
 * `default` while the top-level sources name one), and an organization or project under two
 * connections (its state would belong to both). Empty when they are right.
 *
 * @example
 * ```ts
 * connectionProblems(config, connections).map((problem) => problem.path.join('.'));
 * // ['connections.1.sources.orgIds.0']
 * ```
 */
export function connectionProblems(
  config: Pick<PollerConfig, 'sources' | 'atlas'>,
  connections: readonly ConnectionSettings[],
): ConnectionProblem[] {
  const problems: ConnectionProblem[] = [];
  const legacy = config.sources.orgIds.length > 0 || config.sources.projectIds.length > 0;
  const names = new Map<string, number>();
  const owners = new Map<string, { readonly where: string }>();
  const claim = (id: string, kind: string, where: string, path: readonly (string | number)[]) => {
    const key = `${kind}:${id}`;
    const owner = owners.get(key);
    if (owner === undefined) {
      owners.set(key, { where });
      return;
    }
    problems.push({
      path,
      message: `${kind} ${id} is polled by ${owner.where} already: give each organization and project to one connection, whose credentials read it`,
    });
  };
  if (legacy) {
    config.sources.orgIds.forEach((id, index) => {
      claim(id, 'organization', 'the top-level sources', ['sources', 'orgIds', index]);
    });
    config.sources.projectIds.forEach((id, index) => {
      claim(id, 'project', 'the top-level sources', ['sources', 'projectIds', index]);
    });
    problems.push(...accessHistoryProblems(config.atlas.flavor, config.sources, ['sources']));
  }
  connections.forEach((connection, index) => {
    const at = ['connections', index] as const;
    if (connection.name === DEFAULT_CONNECTION && legacy) {
      problems.push({
        path: [...at, 'name'],
        message: `"${DEFAULT_CONNECTION}" names the connection of the top-level atlas and sources settings: give this one another name, or move the top-level sources into it`,
      });
    }
    const earlier = names.get(connection.name);
    if (earlier !== undefined) {
      problems.push({
        path: [...at, 'name'],
        message: `connection "${connection.name}" is named twice (connections[${earlier}] too): each connection needs a name of its own`,
      });
    } else {
      names.set(connection.name, index);
    }
    const where = `connection "${connection.name}"`;
    connection.sources.orgIds.forEach((id, position) => {
      claim(id, 'organization', where, [...at, 'sources', 'orgIds', position]);
    });
    connection.sources.projectIds.forEach((id, position) => {
      claim(id, 'project', where, [...at, 'sources', 'projectIds', position]);
    });
    problems.push(...accessHistoryProblems(connection.flavor, connection.sources, [...at, 'sources']));
  });
  return problems;
}

/**
 * `sources.accessHistory` where it cannot read anything: on Ops Manager, which keeps no access
 * history, or with no project to find clusters in.
 */
function accessHistoryProblems(
  flavor: PollerConfig['atlas']['flavor'],
  sources: PollerConfig['sources'],
  at: readonly (string | number)[],
): ConnectionProblem[] {
  if (sources.accessHistory !== true) return [];
  if (flavor === 'ops-manager') {
    return [
      {
        path: [...at, 'accessHistory'],
        message:
          'is not available on Ops Manager, which keeps no database access history: remove it, or read the clusters through an Atlas connection (flavor atlas-v2)',
      },
    ];
  }
  if (sources.projectIds.length === 0 && !sources.allProjectsOfOrgs) {
    return [
      {
        path: [...at, 'accessHistory'],
        message:
          'reads the clusters of the projects polled, and these sources poll none: add projectIds, or set allProjectsOfOrgs: true',
      },
    ];
  }
  return [];
}

/** The settings given, without the keys whose value is `undefined`. */
function definedOnly<T extends object>(
  value: T | undefined,
): { [Key in keyof T]?: Exclude<T[Key], undefined> } {
  if (value === undefined) return {};
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as {
    [Key in keyof T]?: Exclude<T[Key], undefined>;
  };
}
