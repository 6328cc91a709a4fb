import ipaddr from 'ipaddr.js';
import type { AtlasEvent } from '../shared/atlas/types.js';
import {
  AccessHistoryLog,
  type AccessLogFields,
  mongodAuthLogLine,
  type StoredAccessLog,
} from './access-history.js';
import { SimulatorEventError } from './errors.js';
import { EventLog, type StoredEvent } from './event-log.js';
import type { ObjectIdGenerator } from './object-id.js';
import type {
  SeedAccessListEntry,
  SeedCluster,
  SeedEvent,
  SeedProjectAccessListEntry,
  SeedRole,
  ValidSeed,
} from './seed-schema.js';

/** Where an event belongs: a project (`groupId`) or an organization (`orgId`). */
export type EventScope = { groupId: string } | { orgId: string };

/** An event to store: Atlas fields; `id` and `created` are filled in when absent. */
export type NewEvent = AtlasEvent & { eventTypeName: string };

export interface OrgRecord {
  readonly id: string;
  readonly name: string;
  /** Its teams by id. */
  readonly teams: ReadonlyMap<string, { readonly id: string; readonly name: string }>;
  readonly log: EventLog;
}

/** One cluster of a project, with its access history. */
export interface ClusterRecord {
  readonly id: string;
  readonly name: string;
  readonly clusterType: SeedCluster['clusterType'];
  readonly providerSettings: SeedCluster['providerSettings'];
  readonly created: string;
  /** `name.abcde.mongodb.net`: the SRV record's host. */
  readonly srvHost: string;
  /** Its three replica set members, the hosts its access history names. */
  readonly hosts: readonly string[];
  /** Empty for shared-tier and Flex clusters, which keep none. */
  readonly accessHistory: AccessHistoryLog;
  /** The mongod connection number of the next generated log line. */
  nextConnection: number;
}

/** An authentication attempt to store at run time; every field but the first three has a default. */
export interface NewAccessLog {
  username: string;
  ipAddress: string;
  authResult: boolean;
  /** ISO-8601, or milliseconds since the epoch. Default: now on the simulator's clock. */
  timestamp?: string | number | undefined;
  /** Default `admin`. */
  authSource?: string | undefined;
  /** Failures only. Default: a wrong password (`AuthenticationFailed: ...`). */
  failureReason?: string | undefined;
  /** One of the cluster's hosts. Default: its hosts in turn. */
  hostname?: string | undefined;
  /** Default: the mongod log line of the attempt. */
  logLine?: string | undefined;
}

/** What a failed attempt's `failureReason` is when none is given: a wrong password. */
export const WRONG_PASSWORD = 'AuthenticationFailed: SCRAM authentication failed, storedKey mismatch';

/**
 * Whether a cluster keeps database access history: dedicated tiers do; shared tiers (M0, M2, M5) and
 * Flex clusters do not ("You can't use this feature on tenant-tier clusters").
 */
export function keepsAccessHistory(cluster: Pick<ClusterRecord, 'providerSettings'>): boolean {
  const provider = cluster.providerSettings.providerName;
  return provider !== 'TENANT' && provider !== 'FLEX';
}

/** A short, stable tag for a cluster's host names when the seed gives no SRV string. */
function hostTag(name: string): string {
  let hash = 2166136261;
  for (const ch of name) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
  return hash.toString(36).padStart(5, '0').slice(-5);
}

/**
 * The SRV host and the member hosts of a cluster, as Atlas names them:
 * `payments-main.x7kq2.mongodb.net` and `payments-main-shard-00-0N.x7kq2.mongodb.net`.
 */
export function clusterHosts(cluster: Pick<SeedCluster, 'name' | 'connectionStrings'>): {
  srvHost: string;
  hosts: string[];
} {
  const srvHost =
    cluster.connectionStrings?.standardSrv.slice('mongodb+srv://'.length) ??
    `${cluster.name.toLowerCase()}.${hostTag(cluster.name)}.mongodb.net`;
  const dot = srvHost.indexOf('.');
  const [label, domain] = [srvHost.slice(0, dot), srvHost.slice(dot)];
  return { srvHost, hosts: [0, 1, 2].map((n) => `${label}-shard-00-0${n}${domain}`) };
}

export interface ProjectRecord {
  readonly id: string;
  readonly name: string;
  readonly orgId: string;
  readonly created: string;
  /** What `GET /groups/{groupId}` reports. */
  clusterCount: number;
  /** Its clusters by name, in the order they were added. */
  readonly clusters: Map<string, ClusterRecord>;
  /** The project's IP access list; replaced by `setProjectAccessList`. */
  accessList: readonly SeedProjectAccessListEntry[];
  /** Its alert configurations by id, as Atlas serves them; the Alert Configurations API writes them. */
  readonly alertConfigs: Map<string, Readonly<Record<string, unknown>>>;
  /**
   * Its third-party integrations by type (`WEBHOOK`...), as they were written, secrets included: the
   * API serves them redacted. Atlas holds one per type and project.
   */
  readonly integrations: Map<string, Readonly<Record<string, unknown>>>;
  readonly log: EventLog;
}

/** One access-list entry of an API key or a service account, with its usage counters. */
export interface AccessListRecord {
  readonly cidrBlock: string;
  readonly ipAddress: string | null;
  readonly created: string;
  readonly range: ReturnType<typeof ipaddr.parseCIDR>;
  count: number;
  lastUsed: string | undefined;
  lastUsedAddress: string | undefined;
}

/** Who can call the API: an API key (digest) or a service account (OAuth bearer tokens). */
export interface Principal {
  /** A service account's name (its `clientId` is `id`). */
  readonly displayName?: string;
  /** When a service account was created, ISO-8601. */
  readonly createdAt?: string;
  readonly kind: 'apiKey' | 'serviceAccount';
  /** The API key's id, or the service account's client id. */
  readonly id: string;
  /** The public key, or the client id: the user name it authenticates with. */
  readonly name: string;
  /** The private key or client secret. Never logged or served. */
  readonly secret: string;
  readonly desc: string;
  readonly roles: readonly SeedRole[];
  readonly accessList: AccessListRecord[];
}

/** What `X-MongoDB-Service-Version` reports unless the seed says otherwise. */
const DEFAULT_SERVICE_VERSION = {
  gitHash: '3f9c2d7e41b8a05c6d2e9f1a7b4c8d0e5f6a7b8c',
  versionString: 'simulator-1.0.0',
};

/**
 * The canonical form of an event time: ISO-8601 UTC, no milliseconds when they are zero, as Atlas
 * writes `created`.
 *
 * @example
 * ```ts
 * formatAtlasDate(Date.UTC(2026, 0, 31, 9, 15)); // '2026-01-31T09:15:00Z'
 * ```
 */
export function formatAtlasDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function toAccessListRecord(entry: SeedAccessListEntry, defaultCreated: string): AccessListRecord {
  let cidrBlock = entry.cidrBlock;
  if (cidrBlock === undefined) {
    const address = ipaddr.parse(entry.ipAddress as string);
    cidrBlock = `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  }
  const range = ipaddr.parseCIDR(cidrBlock);
  const single = range[1] === (range[0].kind() === 'ipv4' ? 32 : 128);
  return {
    cidrBlock,
    ipAddress: entry.ipAddress ?? (single ? range[0].toString() : null),
    created: entry.created ?? defaultCreated,
    range,
    count: 0,
    lastUsed: undefined,
    lastUsedAddress: undefined,
  };
}

/**
 * Everything the simulator serves: organizations and projects with their event logs, API keys,
 * service accounts and the people named in events. Built from a validated seed; events are added
 * at run time through `addEvents`.
 */
export class SimulatorData {
  readonly orgs = new Map<string, OrgRecord>();
  readonly projects = new Map<string, ProjectRecord>();
  /** API keys in seed order; the first is the one the simulator hands out as its credentials. */
  readonly apiKeys: Principal[] = [];
  readonly apiKeysByPublicKey = new Map<string, Principal>();
  readonly serviceAccounts = new Map<string, Principal>();
  readonly users: ReadonlyArray<{ readonly id: string; readonly username: string }>;
  readonly serviceVersion: { readonly gitHash: string; readonly versionString: string };
  private readonly ids: ObjectIdGenerator;
  private readonly startedAt: number;

  /** A new object id, as the API gives what it creates (alert configurations, integrations). */
  newId(now: number): string {
    return this.ids.next(now);
  }

  constructor(options: { seed: ValidSeed; startedAt: number; ids: ObjectIdGenerator }) {
    const { seed } = options;
    this.ids = options.ids;
    this.startedAt = options.startedAt;
    const started = formatAtlasDate(this.startedAt);
    this.serviceVersion = seed.serviceVersion ?? DEFAULT_SERVICE_VERSION;
    this.users = seed.users.map((user) => ({ id: user.id, username: user.username }));
    for (const org of seed.orgs) {
      this.orgs.set(org.id, {
        id: org.id,
        name: org.name,
        teams: new Map(org.teams.map((team) => [team.id, { id: team.id, name: team.name }])),
        log: new EventLog(),
      });
    }
    for (const project of seed.projects) {
      this.projects.set(project.id, {
        id: project.id,
        name: project.name,
        orgId: project.orgId,
        created: project.created ?? started,
        clusterCount: project.clusterCount ?? project.clusters.length,
        clusters: new Map(),
        accessList: project.accessList,
        alertConfigs: new Map(project.alertConfigs.map((config) => [config.id, { ...config }])),
        integrations: new Map(),
        log: new EventLog(),
      });
    }
    for (const key of seed.apiKeys) {
      this.addApiKey({
        id: key.id,
        desc: key.desc,
        publicKey: key.publicKey,
        privateKey: key.privateKey,
        roles: key.roles,
        accessList: key.accessList.map((entry) => toAccessListRecord(entry, started)),
      });
    }
    for (const account of seed.serviceAccounts) {
      this.putServiceAccount({
        ...account,
        accessList: account.accessList,
        createdAt: account.createdAt ?? started,
      });
    }
    const startSecond = Math.floor(this.startedAt / 1000) * 1000;
    const resolve = (events: readonly SeedEvent[]): NewEvent[] =>
      events.map(({ secondsAgo, links: _links, id, created, ...event }) => ({
        ...event,
        ...(id === undefined ? {} : { id }),
        created: created ?? formatAtlasDate(startSecond - Math.round((secondsAgo ?? 0) * 1000)),
      }));
    for (const org of seed.orgs) this.addEvents({ orgId: org.id }, resolve(org.events), { copy: false });
    for (const project of seed.projects) {
      this.addEvents({ groupId: project.id }, resolve(project.events), { copy: false });
      for (const cluster of project.clusters) {
        this.addCluster(project.id, cluster);
        this.addAccessLogs(
          project.id,
          cluster.name,
          cluster.accessLogs.map(({ secondsAgo, timestamp, ...line }) => ({
            ...line,
            timestamp: timestamp ?? startSecond - Math.round((secondsAgo ?? 0) * 1000),
          })),
          this.startedAt,
        );
      }
    }
  }

  /**
   * Adds a cluster (without access history: see `addAccessLogs`) to a project.
   *
   * @throws {SimulatorEventError} for an unknown project or a name the project already has.
   */
  addCluster(groupId: string, cluster: Omit<SeedCluster, 'accessLogs'>): ClusterRecord {
    const project = this.projectFor(groupId, 'add a cluster to');
    const taken = [...project.clusters.keys()].find(
      (name) => name.toLowerCase() === cluster.name.toLowerCase(),
    );
    if (taken !== undefined) {
      throw new SimulatorEventError(
        `Project ${groupId} already has a cluster named ${taken}: choose another name.`,
      );
    }
    const record: ClusterRecord = {
      id: this.ids.next(this.startedAt),
      name: cluster.name,
      clusterType: cluster.clusterType,
      providerSettings: cluster.providerSettings,
      created: formatAtlasDate(this.startedAt),
      ...clusterHosts(cluster),
      accessHistory: new AccessHistoryLog(),
      nextConnection: 1_000,
    };
    project.clusters.set(record.name, record);
    project.clusterCount = Math.max(project.clusterCount, project.clusters.size);
    return record;
  }

  /**
   * Stores authentication attempts in a dedicated cluster's access history, all or none. Times may be
   * in the past: a line that appears late, after a reader has read its range.
   *
   * @throws {SimulatorEventError} for an unknown project or cluster, a shared-tier or Flex cluster, a
   *   missing user name, an address that is not IPv4 or IPv6, a bad time, a `failureReason` on a
   *   success, or a host that is not one of the cluster's.
   */
  addAccessLogs(
    groupId: string,
    clusterName: string,
    lines: readonly NewAccessLog[],
    nowMs: number,
  ): StoredAccessLog[] {
    const cluster = this.clusterFor(groupId, clusterName);
    if (lines.length === 0) return [];
    if (!keepsAccessHistory(cluster)) {
      throw new SimulatorEventError(
        `Cluster ${clusterName} of project ${groupId} is a ${cluster.providerSettings.instanceSizeName} cluster, which keeps no database access history: add lines to a dedicated cluster.`,
      );
    }
    let connection = cluster.nextConnection;
    const fields = lines.map((line, index): AccessLogFields => {
      const where = `access log line ${index} for cluster ${clusterName} of project ${groupId}`;
      if (typeof line.username !== 'string' || line.username === '') {
        throw new SimulatorEventError(`The ${where} has no username: every line needs one.`);
      }
      if (typeof line.ipAddress !== 'string' || !ipaddr.isValid(line.ipAddress)) {
        throw new SimulatorEventError(`The ${where} has an ipAddress that is not an IPv4 or IPv6 address.`);
      }
      if (typeof line.authResult !== 'boolean') {
        throw new SimulatorEventError(`The ${where} needs authResult true or false.`);
      }
      if (line.authResult && line.failureReason !== undefined) {
        throw new SimulatorEventError(`The ${where} succeeded, so it has no failureReason: leave it out.`);
      }
      const timestampMs =
        line.timestamp === undefined
          ? nowMs
          : typeof line.timestamp === 'number'
            ? line.timestamp
            : /^\d{4}-\d{2}-\d{2}T/.test(line.timestamp)
              ? Date.parse(line.timestamp)
              : Number.NaN;
      if (!Number.isSafeInteger(timestampMs)) {
        throw new SimulatorEventError(
          `The ${where} has timestamp ${JSON.stringify(line.timestamp)}, which is neither an ISO-8601 date and time such as 2026-01-31T09:15:00Z nor whole milliseconds since the epoch.`,
        );
      }
      const hostname = line.hostname ?? (cluster.hosts[index % cluster.hosts.length] as string);
      if (!cluster.hosts.includes(hostname)) {
        throw new SimulatorEventError(
          `The ${where} names host ${hostname}, which is not one of the cluster's (${cluster.hosts.join(', ')}).`,
        );
      }
      const authSource = line.authSource ?? 'admin';
      const failureReason = line.authResult ? null : (line.failureReason ?? WRONG_PASSWORD);
      connection += 1;
      const logLine =
        line.logLine ??
        mongodAuthLogLine({
          timestampMs,
          username: line.username,
          authSource,
          ipAddress: line.ipAddress,
          authResult: line.authResult,
          failureReason,
          connection,
          port: 50_000 + ((connection * 7_919) % 15_000),
        });
      return {
        timestampMs,
        groupId,
        hostname,
        ipAddress: line.ipAddress,
        username: line.username,
        authSource,
        authResult: line.authResult,
        failureReason,
        logLine,
      };
    });
    cluster.nextConnection = connection;
    return cluster.accessHistory.insert(fields);
  }

  /** A project's cluster, or an error naming what the project has. */
  clusterFor(groupId: string, clusterName: string): ClusterRecord {
    const project = this.projectFor(groupId, 'reach a cluster of');
    const cluster = project.clusters.get(clusterName);
    if (cluster === undefined) {
      throw new SimulatorEventError(
        `Project ${groupId} has no cluster named ${clusterName} (it has ${[...project.clusters.keys()].join(', ') || 'none'}).`,
      );
    }
    return cluster;
  }

  private projectFor(groupId: string, what: string): ProjectRecord {
    const project = this.projects.get(groupId);
    if (project === undefined) {
      throw new SimulatorEventError(
        `Cannot ${what} project ${groupId}: the simulator's data has no such project (it has ${[...this.projects.keys()].join(', ') || 'none'}).`,
      );
    }
    return project;
  }

  /** Adds an API key (or replaces the private key of one with the same public key). */
  addApiKey(key: {
    id: string;
    desc: string;
    publicKey: string;
    privateKey: string;
    roles: readonly SeedRole[];
    accessList?: AccessListRecord[];
  }): Principal {
    const existing = this.apiKeysByPublicKey.get(key.publicKey);
    const principal: Principal = {
      kind: 'apiKey',
      id: existing?.id ?? key.id,
      name: key.publicKey,
      secret: key.privateKey,
      desc: existing?.desc ?? key.desc,
      roles: existing?.roles ?? key.roles,
      accessList: existing?.accessList ?? key.accessList ?? [],
    };
    if (existing) {
      this.apiKeys[this.apiKeys.indexOf(existing)] = principal;
    } else {
      this.apiKeys.push(principal);
    }
    this.apiKeysByPublicKey.set(key.publicKey, principal);
    return principal;
  }

  /**
   * Adds a service account, or replaces the one with the same client id (its roles, access list and
   * description): what a change made in the Atlas UI looks like to the inventory.
   */
  putServiceAccount(account: {
    clientId: string;
    clientSecret: string;
    name: string;
    description?: string | undefined;
    roles: readonly SeedRole[];
    accessList: readonly SeedAccessListEntry[];
    createdAt?: string;
  }): Principal {
    const existing = this.serviceAccounts.get(account.clientId);
    const created = account.createdAt ?? existing?.createdAt ?? formatAtlasDate(this.startedAt);
    const principal: Principal = {
      kind: 'serviceAccount',
      id: account.clientId,
      name: account.clientId,
      displayName: account.name,
      createdAt: created,
      secret: account.clientSecret,
      desc: account.description ?? account.name,
      roles: account.roles,
      accessList: account.accessList.map((entry) => toAccessListRecord(entry, created)),
    };
    this.serviceAccounts.set(account.clientId, principal);
    return principal;
  }

  /** The service accounts that hold a role in the organization. */
  serviceAccountsOf(orgId: string): Principal[] {
    return [...this.serviceAccounts.values()].filter((account) =>
      account.roles.some((role) => 'orgId' in role && role.orgId === orgId),
    );
  }

  /** The API keys that hold a role in the organization or in one of its projects. */
  apiKeysOf(orgId: string): Principal[] {
    return this.apiKeys.filter((key) =>
      key.roles.some((role) =>
        'orgId' in role ? role.orgId === orgId : this.projects.get(role.groupId)?.orgId === orgId,
      ),
    );
  }

  /** Creates a project in an organization (bulk event generation spreads events over projects). */
  addProject(options: { orgId: string; name: string; id?: string }): ProjectRecord {
    const project: ProjectRecord = {
      id: options.id ?? this.ids.next(this.startedAt),
      name: options.name,
      orgId: options.orgId,
      created: formatAtlasDate(this.startedAt),
      clusterCount: 0,
      clusters: new Map(),
      accessList: [],
      alertConfigs: new Map(),
      integrations: new Map(),
      log: new EventLog(),
    };
    this.projects.set(project.id, project);
    return project;
  }

  /** A fresh ObjectId for something created at `timeMs`. */
  nextId(timeMs: number): string {
    return this.ids.next(timeMs);
  }

  /**
   * Stores events in a project's or an organization's log, all or none. Missing ids are generated
   * from the event time, `created` is normalised, `groupId` / `orgId` are filled in from the scope.
   * With `copy`, the caller's objects are cloned so later changes to them do not leak in.
   *
   * @throws {SimulatorEventError} for an unknown scope, a missing or malformed `eventTypeName` or
   *   `created`, a scope field contradicting the scope, or an id already stored in that scope.
   */
  addEvents(scope: EventScope, events: readonly NewEvent[], options: { copy: boolean }): StoredEvent[] {
    const target = this.resolveScope(scope);
    const batchIds = new Set<string>();
    const stored = events.map((input, index) => {
      const event = this.toStoredEvent(options.copy ? structuredClone(input) : input, target, index);
      if (target.log.has(event.id) || batchIds.has(event.id)) {
        throw new SimulatorEventError(
          `An event with id ${event.id} is already stored in ${target.label}: give each event a unique id, or none.`,
        );
      }
      batchIds.add(event.id);
      return event;
    });
    target.log.insert(stored);
    return stored;
  }

  /**
   * Stores events built by trusted code (the bulk generator) without re-validating each one: ids,
   * times and scope fields must already be right.
   *
   * @throws {SimulatorEventError} for an unknown project or an id already stored there.
   */
  insertTrustedEvents(groupId: string, events: readonly StoredEvent[]): void {
    const target = this.resolveScope({ groupId });
    for (const event of events) {
      if (target.log.has(event.id)) {
        throw new SimulatorEventError(
          `An event with id ${event.id} is already stored in ${target.label}: generate with another seed.`,
        );
      }
    }
    target.log.insert(events);
  }

  private resolveScope(scope: EventScope): { log: EventLog; groupId?: string; orgId: string; label: string } {
    if ('groupId' in scope) {
      const project = this.projects.get(scope.groupId);
      if (!project) {
        throw new SimulatorEventError(
          `Cannot add events to project ${scope.groupId}: the simulator's data has no such project (it has ${[...this.projects.keys()].join(', ') || 'none'}).`,
        );
      }
      return { log: project.log, groupId: project.id, orgId: project.orgId, label: `project ${project.id}` };
    }
    const org = this.orgs.get(scope.orgId);
    if (!org) {
      throw new SimulatorEventError(
        `Cannot add events to organization ${scope.orgId}: the simulator's data has no such organization (it has ${[...this.orgs.keys()].join(', ')}).`,
      );
    }
    return { log: org.log, orgId: org.id, label: `organization ${org.id}` };
  }

  private toStoredEvent(
    input: NewEvent,
    target: { groupId?: string; orgId: string; label: string },
    index: number,
  ): StoredEvent {
    const { raw, links: _links, ...fields } = input;
    const where = `event ${index} for ${target.label}`;
    if (typeof fields.eventTypeName !== 'string' || fields.eventTypeName === '') {
      throw new SimulatorEventError(
        `The ${where} has no eventTypeName: every event needs one, such as API_KEY_CREATED.`,
      );
    }
    let createdMs = this.startedAt;
    if (fields.created !== undefined) {
      createdMs =
        typeof fields.created === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(fields.created)
          ? Date.parse(fields.created)
          : Number.NaN;
      if (Number.isNaN(createdMs)) {
        throw new SimulatorEventError(
          `The ${where} has created ${JSON.stringify(fields.created)}, which is not an ISO-8601 date and time such as 2026-01-31T09:15:00Z.`,
        );
      }
    }
    if (target.groupId !== undefined && fields.groupId !== undefined && fields.groupId !== target.groupId) {
      throw new SimulatorEventError(
        `The ${where} has groupId ${fields.groupId}: leave it out or make it match.`,
      );
    }
    if (fields.orgId !== undefined && fields.orgId !== target.orgId) {
      throw new SimulatorEventError(`The ${where} has orgId ${fields.orgId}: leave it out or make it match.`);
    }
    if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
      throw new SimulatorEventError(`The ${where} has a raw value that is not an object.`);
    }
    const id = typeof fields.id === 'string' && fields.id !== '' ? fields.id : this.ids.next(createdMs);
    // Atlas writes event fields in alphabetical order.
    const body: AtlasEvent = Object.fromEntries(
      Object.entries({
        ...fields,
        id,
        created: formatAtlasDate(createdMs),
        ...(target.groupId === undefined ? {} : { groupId: target.groupId }),
        orgId: target.orgId,
      }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    return {
      id,
      createdMs,
      eventTypeName: fields.eventTypeName,
      clusterName: typeof fields.clusterName === 'string' ? fields.clusterName : undefined,
      body,
      raw,
    };
  }
}
