import { SimulatorOptionsError } from './errors.js';
import type { StoredEvent } from './event-log.js';
import { createObjectIdGenerator } from './object-id.js';
import { createPrng } from './prng.js';
import { formatAtlasDate, type NewEvent, type ProjectRecord, type SimulatorData } from './simulator-data.js';

/** How `generateEvents` fills the simulator with bulk data (benchmarks, load tests). */
export interface GenerateEventsOptions {
  /** How many project events to create. */
  count: number;
  /**
   * How many projects to spread them over. The seeded projects are used first; more are created in
   * the organizations of `orgIds`. Default: every project the data holds (at least one).
   */
  projects?: number;
  /**
   * The organizations the projects created are spread over, in turn (the first project in the first
   * organization, the second in the second...). Default: the first organization of the data.
   */
  orgIds?: readonly string[];
  /** PRNG seed: the same seed and options give the same events and ids. Default 1. */
  seed?: number;
  /** The events' `created` fall in `[endMs - spanMs, endMs]`. Default one hour. */
  spanMs?: number;
  /** Default: the simulator clock's now. */
  endMs?: number;
  /** The share of events of security-relevant types (the rest are routine), 0 to 1. Default 0.05. */
  securityShare?: number;
}

/** What `generateEvents` created. */
export interface GeneratedEvents {
  count: number;
  /** The projects the events were spread over, in order. */
  projectIds: string[];
  /** How many of the events each project of `projectIds` received, in the same order. */
  projectCounts: number[];
  oldest: string | undefined;
  newest: string | undefined;
}

type Random = () => number;

interface Context {
  random: Random;
  project: ProjectRecord;
  users: ReadonlyArray<{ id: string; username: string }>;
  publicKeys: readonly string[];
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function address(random: Random): string {
  return `${pick(random, ['198.51.100', '203.0.113', '192.0.2'])}.${1 + Math.floor(random() * 254)}`;
}

function userActor(ctx: Context): Partial<NewEvent> {
  const user = pick(ctx.random, ctx.users);
  return {
    userId: user.id,
    username: user.username,
    remoteAddress: address(ctx.random),
    isGlobalAdmin: false,
  };
}

function actor(ctx: Context): Partial<NewEvent> {
  if (ctx.publicKeys.length > 0 && ctx.random() < 0.3) {
    return {
      publicKey: pick(ctx.random, ctx.publicKeys),
      remoteAddress: address(ctx.random),
      isGlobalAdmin: false,
    };
  }
  return userActor(ctx);
}

function host(ctx: Context): Partial<NewEvent> {
  const shard = Math.floor(ctx.random() * 3);
  const cluster = pick(ctx.random, ['cluster0', 'cluster1']);
  return {
    clusterName: cluster === 'cluster0' ? 'Cluster0' : 'Cluster1',
    hostname: `${cluster}-shard-00-0${shard}.x7kq2.mongodb.net`,
    port: 27017,
    replicaSetName: `atlas-${ctx.project.id.slice(-6)}-shard-0`,
  };
}

/** Routine events, with relative weights. */
const ROUTINE: ReadonlyArray<readonly [string, number, (ctx: Context) => Partial<NewEvent>]> = [
  [
    'OUTSIDE_METRIC_THRESHOLD',
    8,
    (ctx) => ({
      ...host(ctx),
      metricName: pick(ctx.random, [
        'CONNECTIONS',
        'OPCOUNTER_CMD',
        'QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED',
      ]),
      currentValue: { number: Math.round(ctx.random() * 5000), units: 'RAW' },
    }),
  ],
  [
    'INSIDE_METRIC_THRESHOLD',
    8,
    (ctx) => ({
      ...host(ctx),
      metricName: 'CONNECTIONS',
      currentValue: { number: Math.round(ctx.random() * 100), units: 'RAW' },
    }),
  ],
  ['HOST_UP', 4, host],
  ['ONE_PRIMARY', 3, host],
  ['CLUSTER_UPDATE_STARTED', 3, (ctx) => ({ ...actor(ctx), clusterName: 'Cluster0' })],
  ['CLUSTER_UPDATE_COMPLETED', 3, () => ({ clusterName: 'Cluster0' })],
  ['CPS_SNAPSHOT_COMPLETED_AUDIT', 6, () => ({ clusterName: 'Cluster0' })],
  ['INDEX_SUCCESS_INDEX_BUILD', 3, host],
  [
    'ALERT_ACKNOWLEDGED_AUDIT',
    2,
    (ctx) => ({
      ...userActor(ctx),
      alertId: Math.floor(ctx.random() * 2 ** 32)
        .toString(16)
        .padStart(8, '0')
        .repeat(3),
    }),
  ],
  [
    'DATA_EXPLORER',
    4,
    (ctx) => ({
      ...userActor(ctx),
      database: 'orders',
      collection: 'invoices',
      opType: pick(ctx.random, ['find', 'aggregate', 'listIndexes']),
    }),
  ],
  [
    'CLUSTER_CONNECTION_FIND_DOCUMENTS',
    3,
    (ctx) => ({ ...userActor(ctx), clusterName: 'Cluster0', database: 'orders', collection: 'invoices' }),
  ],
  ['JOINED_GROUP', 1, userActor],
];

/** Security-relevant events the rule pack alerts on, with relative weights. */
const SECURITY: ReadonlyArray<readonly [string, number, (ctx: Context) => Partial<NewEvent>]> = [
  [
    'NETWORK_PERMISSION_ENTRY_ADDED',
    3,
    (ctx) => ({
      ...userActor(ctx),
      whitelistEntry: ctx.random() < 0.2 ? '0.0.0.0/0' : `10.${Math.floor(ctx.random() * 255)}.0.0/16`,
    }),
  ],
  [
    'DATA_EXPLORER_CRUD',
    4,
    (ctx) => ({
      ...userActor(ctx),
      database: 'orders',
      collection: 'invoices',
      opType: pick(ctx.random, ['insertDocument', 'updateDocument', 'deleteDocument']),
    }),
  ],
  [
    'MONGODB_USER_ADDED',
    2,
    (ctx) => ({ ...actor(ctx), dbUserUsername: `svc-${Math.floor(ctx.random() * 1000)}` }),
  ],
  [
    'MONGODB_USER_UPDATED',
    2,
    (ctx) => ({ ...actor(ctx), dbUserUsername: `svc-${Math.floor(ctx.random() * 1000)}` }),
  ],
  ['MONGODB_ROLE_UPDATED', 1, actor],
  [
    'API_KEY_ADDED_TO_GROUP',
    1,
    (ctx) => ({
      ...userActor(ctx),
      targetPublicKey: pick(ctx.random, ctx.publicKeys.length > 0 ? ctx.publicKeys : ['abcdefgh']),
    }),
  ],
  ['AUTOMATION_CONFIG_PUBLISHED_AUDIT', 2, actor],
  ['ALERT_CONFIG_DISABLED_AUDIT', 1, (ctx) => ({ ...userActor(ctx), alertConfigId: ctx.project.id })],
  ['CPS_SNAPSHOT_DELETED_AUDIT', 1, (ctx) => ({ ...userActor(ctx), clusterName: 'Cluster0' })],
  ['CLUSTER_DELETE_SUBMITTED', 1, (ctx) => ({ ...userActor(ctx), clusterName: 'Cluster1' })],
];

function weightedPicker(
  table: ReadonlyArray<readonly [string, number, (ctx: Context) => Partial<NewEvent>]>,
): (random: Random) => readonly [string, number, (ctx: Context) => Partial<NewEvent>] {
  const total = table.reduce((sum, [, weight]) => sum + weight, 0);
  return (random) => {
    let draw = random() * total;
    for (const entry of table) {
      draw -= entry[1];
      if (draw < 0) return entry;
    }
    return table[table.length - 1] as (typeof table)[number];
  };
}

const pickRoutine = weightedPicker(ROUTINE);
const pickSecurity = weightedPicker(SECURITY);

/**
 * Adds `count` project events spread over projects and over a time span, quickly and reproducibly:
 * the same options give the same events with the same ids. Event times are whole seconds, so many
 * events share a second, as on a busy project. Mostly routine types, a share of security types.
 *
 * @throws {SimulatorOptionsError} for a negative count, share or span.
 * @example
 * ```ts
 * generateEvents(data, { count: 100_000, projects: 20, seed: 7 }, clock.now());
 * ```
 */
export function generateEvents(
  data: SimulatorData,
  options: GenerateEventsOptions,
  now: number,
): GeneratedEvents {
  const { count } = options;
  const spanMs = options.spanMs ?? 3_600_000;
  const share = options.securityShare ?? 0.05;
  if (!Number.isInteger(count) || count < 0 || spanMs < 0 || share < 0 || share > 1) {
    throw new SimulatorOptionsError(
      `generateEvents needs a whole count >= 0, spanMs >= 0 and securityShare from 0 to 1 (got count ${count}, spanMs ${spanMs}, securityShare ${share}).`,
    );
  }
  const seed = options.seed ?? 1;
  const random = createPrng(seed);
  const ids = createObjectIdGenerator({ seed: seed ^ 0x5eed });
  const endMs = options.endMs ?? now;
  const existing = [...data.projects.values()];
  const wanted = Math.max(1, options.projects ?? existing.length);
  const orgIds = options.orgIds ?? [data.orgs.keys().next().value as string];
  const unknownOrg = orgIds.find((orgId) => !data.orgs.has(orgId));
  if (orgIds.length === 0 || unknownOrg !== undefined) {
    throw new SimulatorOptionsError(
      orgIds.length === 0
        ? 'generateEvents needs at least one organization in orgIds, or none given for the first one.'
        : `generateEvents cannot create projects in organization ${unknownOrg}: the data has no such organization.`,
    );
  }
  const projects = existing.slice(0, wanted);
  for (let n = projects.length; n < wanted; n++) {
    projects.push(
      data.addProject({
        orgId: orgIds[(n - existing.length) % orgIds.length] as string,
        name: `load-project-${String(n + 1).padStart(3, '0')}`,
        id: ids.next(endMs - spanMs),
      }),
    );
  }
  const users =
    data.users.length > 0
      ? data.users
      : [{ id: ids.next(endMs - spanMs), username: 'load.user@example.com' }];
  const publicKeys = data.apiKeys.map((key) => key.name);
  const batches = projects.map((): StoredEvent[] => []);
  const dates = new Map<number, string>();
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) {
    const index = Math.floor(random() * projects.length);
    const project = projects[index] as ProjectRecord;
    const createdMs = Math.floor((endMs - random() * spanMs) / 1000) * 1000;
    oldest = Math.min(oldest, createdMs);
    newest = Math.max(newest, createdMs);
    let created = dates.get(createdMs);
    if (created === undefined) {
      created = formatAtlasDate(createdMs);
      dates.set(createdMs, created);
    }
    const [eventTypeName, , fields] = random() < share ? pickSecurity(random) : pickRoutine(random);
    const id = ids.next(createdMs);
    const body = {
      created,
      eventTypeName,
      ...fields({ random, project, users, publicKeys }),
      groupId: project.id,
      id,
      orgId: project.orgId,
    };
    (batches[index] as StoredEvent[]).push({
      id,
      createdMs,
      eventTypeName,
      clusterName: typeof body.clusterName === 'string' ? body.clusterName : undefined,
      body,
      raw: undefined,
    });
  }
  projects.forEach((project, index) => {
    data.insertTrustedEvents(project.id, batches[index] as StoredEvent[]);
  });
  return {
    count,
    projectIds: projects.map((project) => project.id),
    projectCounts: batches.map((batch) => batch.length),
    oldest: count === 0 ? undefined : formatAtlasDate(oldest),
    newest: count === 0 ? undefined : formatAtlasDate(newest),
  };
}
