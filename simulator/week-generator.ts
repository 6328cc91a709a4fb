import type { AtlasEvent } from '../shared/atlas/types.js';
import { buildAccessHistoryEvent } from '../shared/rules/access-history-events.js';
import { SimulatorOptionsError } from './errors.js';
import { createObjectIdGenerator } from './object-id.js';
import { createPrng } from './prng.js';
import { formatAtlasDate } from './simulator-data.js';

/** How {@link generateWeek} builds an organization's week. */
export interface GenerateWeekOptions {
  /** PRNG seed: the same seed and options give the same events, ids included. Default 1. */
  seed?: number;
  /**
   * Seed of the organization's and projects' ids (default `seed`): two weeks of one organization
   * share it, with seeds of their own for their events.
   */
  organizationSeed?: number;
  /** The first day's midnight, UTC, in milliseconds: a Monday. Default Monday 2026-11-16. */
  start?: number;
  /** Days to generate. Default 7. */
  days?: number;
  /** Projects of the organization. Default 20. */
  projects?: number;
  /** Whether to plant the incidents (see {@link PlantedIncident}). Default true. */
  incidents?: boolean;
}

/** Where an event is read from, as the poller names its sources. */
export type WeekSource = `org:${string}` | `project:${string}` | `cluster:${string}`;

/** One event of the week and the source the poller reads it from. */
export interface WeekEvent {
  source: WeekSource;
  event: AtlasEvent;
}

/** The kinds of incident {@link generateWeek} plants. */
export type IncidentKind =
  | 'owner-key-open-to-internet'
  | 'brute-force'
  | 'data-explorer-deletion'
  | 'mfa-made-optional';

/** Something a security team must hear of on its own, planted among the routine. */
export interface PlantedIncident {
  kind: IncidentKind;
  /** What happened, in words. */
  description: string;
  /** When it began, in milliseconds since the epoch. */
  at: number;
  /** The ids of its events, oldest first. */
  eventIds: readonly string[];
}

/** An organization's simulated week. */
export interface SimulatedWeek {
  orgId: string;
  projectIds: readonly string[];
  /** Every event, sorted by time then id, as a poll reads them. */
  events: readonly WeekEvent[];
  incidents: readonly PlantedIncident[];
  start: number;
  end: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 16 November 2026, 00:00 UTC. */
const DEFAULT_START = Date.UTC(2026, 10, 16);

const PEOPLE = [
  'ana.silva',
  'ben.okafor',
  'chen.wei',
  'dara.kelly',
  'emil.novak',
  'fatima.haddad',
  'gus.lindqvist',
  'hana.sato',
  'ivan.petrov',
  'jo.martin',
  'kofi.mensah',
  'lena.fischer',
].map((name) => `${name}@acme.example`);
/** The office and VPN egress addresses people work from: the access lists know them. */
const OFFICE = ['198.51.100.10', '198.51.100.11', '198.51.100.12', '198.51.100.14', '192.0.2.40'];
/** The CI runners the automation key is used from. */
const CI = ['192.0.2.10', '192.0.2.11'];
const APP_USERS = ['app-writer', 'app-reader', 'reporting-svc', 'etl-batch'];
const APP_ADDRESSES = ['10.20.1.15', '10.20.1.16', '10.20.3.40', '10.20.7.9'];
const METRICS = [
  'CONNECTIONS',
  'OPCOUNTER_CMD',
  'QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED',
  'DISK_PARTITION_SPACE_USED_DATA',
];
/** Public keys: the automation key holds Organization Owner. */
const AUTOMATION_KEY = 'tfautoma';
const BRUTE_FORCE_ADDRESS = '185.220.101.34';
const BRUTE_FORCE_USERS = [
  'admin',
  'root',
  'mongo',
  'mongodb',
  'test',
  'user',
  'app-writer',
  'app-reader',
  'backup',
  'dbadmin',
  'administrator',
  'guest',
  'oracle',
  'postgres',
  'support',
  'dev',
  'prod',
  'service',
  'api',
  'web',
];

/**
 * Builds a realistic week of one Atlas organization of 20 projects (each with an application cluster,
 * every other one an analytics cluster too), deterministically from a seed: routine administration
 * on weekdays and much less at weekends (cluster edits by people and by the automation key from CI,
 * backups, metric alerts that flap, access list entries added and removed from the office, users
 * invited and joining, database users added and updated, Data Explorer reads and the odd write,
 * alert settings tuned and acknowledged, applications' database logins and a client with a stale
 * password now and then), and four planted incidents: the Organization Owner automation key's access
 * list opened to 0.0.0.0/0 (Wednesday), a brute force on a cluster's database users from one address
 * at night (Thursday), a collection dropped through Data Explorer (Friday) and the organization's MFA
 * requirement turned off (Saturday night). Event type names are Atlas's own (`shared/atlas`);
 * database logins are access-history events, as the access-history source builds them.
 *
 * @throws {SimulatorOptionsError} for days or projects below 1, or a start that is not a time.
 * @example
 * ```ts
 * const week = generateWeek({ seed: 7 });
 * week.incidents.map((incident) => incident.kind);
 * ```
 */
export function generateWeek(options: GenerateWeekOptions = {}): SimulatedWeek {
  const seed = options.seed ?? 1;
  const start = options.start ?? DEFAULT_START;
  const days = options.days ?? 7;
  const projectCount = options.projects ?? 20;
  if (!Number.isInteger(days) || days < 1 || !Number.isInteger(projectCount) || projectCount < 1) {
    throw new SimulatorOptionsError(
      `generateWeek needs whole days >= 1 and projects >= 1 (got days ${days}, projects ${projectCount}).`,
    );
  }
  if (!Number.isFinite(start))
    throw new SimulatorOptionsError(`generateWeek needs a start time (got ${start}).`);
  const random = createPrng(seed);
  const ids = createObjectIdGenerator({ seed: seed ^ 0x3eed });
  const organizationIds = createObjectIdGenerator({ seed: (options.organizationSeed ?? seed) ^ 0x0c6a });
  const founded = Date.UTC(2024, 0, 8);
  const orgId = organizationIds.next(founded);
  const projects = Array.from({ length: projectCount }, (_, at) => ({
    id: organizationIds.next(founded + at * DAY),
    name: `${['payments', 'orders', 'catalog', 'search', 'identity'][at % 5]}-${['prod', 'staging', 'dev', 'eu', 'us'][Math.floor(at / 5) % 5]}${at >= 25 ? `-${at}` : ''}`,
    clusters: at % 2 === 0 ? ['app-main', 'analytics'] : ['app-main'],
  }));
  const events: WeekEvent[] = [];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (from: number, to: number): number => from + Math.floor(random() * (to - from));
  /** A time on day `day` in working hours (07:00 to 19:00), to the second. */
  const workTime = (day: number): number =>
    start + day * DAY + Math.floor(between(7 * HOUR, 19 * HOUR) / 1000) * 1000;
  const anyTime = (day: number): number => start + day * DAY + Math.floor(between(0, DAY) / 1000) * 1000;
  const person = () => ({ username: pick(PEOPLE), remoteAddress: pick(OFFICE), isGlobalAdmin: false });
  const automation = () => ({ publicKey: AUTOMATION_KEY, remoteAddress: pick(CI), isGlobalAdmin: false });
  const push = (
    scope: { orgId: string } | { groupId: string },
    time: number,
    eventTypeName: string,
    fields: Record<string, unknown>,
  ): AtlasEvent => {
    const id = ids.next(time);
    const event: AtlasEvent = {
      created: formatAtlasDate(time),
      eventTypeName,
      ...fields,
      ...('groupId' in scope ? { groupId: scope.groupId, orgId } : { orgId }),
      id,
    };
    events.push({ source: 'groupId' in scope ? `project:${scope.groupId}` : `org:${orgId}`, event });
    return event;
  };
  const login = (
    groupId: string,
    clusterName: string,
    time: number,
    line: Record<string, unknown>,
  ): AtlasEvent => {
    const event = buildAccessHistoryEvent(
      {
        hostname: `${clusterName}-shard-00-00.x7kq2.mongodb.net`,
        authSource: 'admin',
        timestampMs: time,
        ...line,
      },
      { groupId, clusterName },
    );
    events.push({ source: `cluster:${groupId}:${clusterName}`, event });
    return event;
  };

  for (let day = 0; day < days; day++) {
    const weekday = new Date(start + day * DAY).getUTCDay();
    const busy = weekday === 0 || weekday === 6 ? 0.25 : 1;
    const times = (perDay: number): number => {
      const mean = perDay * busy;
      return Math.floor(mean) + (random() < mean - Math.floor(mean) ? 1 : 0);
    };
    for (const project of projects) {
      const scope = { groupId: project.id };
      // Backups every six hours, weekends too.
      for (const clusterName of project.clusters) {
        for (let slot = 0; slot < 4; slot++) {
          push(
            scope,
            start + day * DAY + slot * 6 * HOUR + between(0, 20 * 60_000),
            'CPS_SNAPSHOT_COMPLETED_AUDIT',
            { clusterName },
          );
        }
      }
      // Metric alerts: a host crosses a threshold, often several times in an hour.
      for (let burst = times(1.5); burst > 0; burst--) {
        const clusterName = pick(project.clusters);
        const hostname = `${clusterName}-shard-00-0${between(0, 3)}.x7kq2.mongodb.net`;
        const metricName = pick(METRICS);
        let time = anyTime(day);
        for (let flap = between(1, 7); flap > 0; flap--) {
          push(scope, time, 'OUTSIDE_METRIC_THRESHOLD', {
            clusterName,
            hostname,
            port: 27017,
            hostnameAndPort: `${hostname}:27017`,
            metricName,
            currentValue: { number: between(80, 5_000), units: 'RAW' },
          });
          push(scope, time + between(60_000, 5 * 60_000), 'INSIDE_METRIC_THRESHOLD', {
            clusterName,
            hostname,
            port: 27017,
            hostnameAndPort: `${hostname}:27017`,
            metricName,
          });
          time += between(5 * 60_000, 40 * 60_000);
        }
      }
      // Index builds and alerts acknowledged.
      for (let n = times(1); n > 0; n--)
        push(scope, workTime(day), 'INDEX_SUCCESS_INDEX_BUILD', { clusterName: 'app-main' });
      for (let n = times(0.8); n > 0; n--) {
        push(scope, workTime(day), 'ALERT_ACKNOWLEDGED_AUDIT', {
          ...person(),
          alertId: ids.next(workTime(day)),
        });
      }
      // Applications' database logins, and now and then a client with a stale password.
      for (const clusterName of project.clusters) {
        for (let n = times(6) + 2; n > 0; n--) {
          login(project.id, clusterName, anyTime(day), {
            username: pick(APP_USERS),
            ipAddress: pick(APP_ADDRESSES),
            authResult: true,
          });
        }
      }
      if (random() < 0.12 * busy) {
        const time = anyTime(day);
        const username = pick(APP_USERS);
        const ipAddress = pick(APP_ADDRESSES);
        for (let n = between(2, 8); n > 0; n--) {
          login(project.id, 'app-main', time + n * between(10_000, 50_000), {
            username,
            ipAddress,
            authResult: false,
            failureReason: 'AuthenticationFailed',
          });
        }
      }
    }
    const scopeOf = () => ({ groupId: pick(projects).id });
    // Cluster edits, by people from the office and by the automation key from CI.
    for (let n = times(4); n > 0; n--) {
      const scope = scopeOf();
      const time = workTime(day);
      const who = random() < 0.6 ? automation() : person();
      push(scope, time, 'CLUSTER_UPDATE_STARTED', { ...who, clusterName: 'app-main' });
      push(scope, time + between(5 * 60_000, 25 * 60_000), 'CLUSTER_UPDATE_COMPLETED', {
        clusterName: 'app-main',
      });
    }
    // Access list entries from the office, most removed again later that day.
    for (let n = times(3); n > 0; n--) {
      const scope = scopeOf();
      const time = workTime(day);
      const entry = `${pick(OFFICE)}/32`;
      push(scope, time, 'NETWORK_PERMISSION_ENTRY_ADDED', { ...person(), whitelistEntry: entry });
      if (random() < 0.7) {
        push(scope, time + between(HOUR, 5 * HOUR), 'NETWORK_PERMISSION_ENTRY_REMOVED', {
          ...person(),
          whitelistEntry: entry,
        });
      }
    }
    // Users invited to the organization and to projects, and joining.
    if (random() < 0.3 * busy) {
      const newcomer = `new.hire${day}@acme.example`;
      const time = workTime(day);
      push({ orgId }, time, 'INVITED_TO_ORG', { ...person(), targetUsername: newcomer });
      push({ orgId }, time + between(HOUR, 4 * HOUR), 'JOINED_ORG', {
        username: newcomer,
        remoteAddress: pick(OFFICE),
      });
    }
    for (let n = times(1); n > 0; n--) {
      const scope = scopeOf();
      const time = workTime(day);
      const member = pick(PEOPLE);
      push(scope, time, 'INVITED_TO_GROUP', { ...person(), targetUsername: member });
      push(scope, time + between(10 * 60_000, 2 * HOUR), 'JOINED_GROUP', {
        username: member,
        remoteAddress: pick(OFFICE),
      });
    }
    // Database users added and changed, by people and by the automation key.
    for (let n = times(2); n > 0; n--) {
      const who = random() < 0.5 ? automation() : person();
      push(scopeOf(), workTime(day), random() < 0.4 ? 'MONGODB_USER_ADDED' : 'MONGODB_USER_UPDATED', {
        ...who,
        dbUserUsername: `svc-${pick(['orders', 'search', 'billing', 'etl', 'reports'])}`,
      });
    }
    // Data Explorer: support reads documents, and now and then edits one.
    for (let n = times(8); n > 0; n--) {
      push(scopeOf(), workTime(day), 'DATA_EXPLORER', {
        ...person(),
        clusterName: 'app-main',
        database: 'orders',
        collection: pick(['invoices', 'customers', 'carts']),
        opType: pick(['find', 'find', 'aggregate', 'listIndexes']),
      });
    }
    for (let n = times(0.6); n > 0; n--) {
      push(scopeOf(), workTime(day), 'DATA_EXPLORER_CRUD', {
        ...person(),
        clusterName: 'app-main',
        database: 'orders',
        collection: 'customers',
        opType: 'insertDocument',
      });
    }
    // A new CI runner's address added to the automation key's access list, from the office.
    if (weekday === 2) {
      push({ orgId }, workTime(day), 'API_KEY_ACCESS_LIST_ENTRY_ADDED', {
        ...person(),
        targetPublicKey: AUTOMATION_KEY,
        whitelistEntry: `192.0.2.${between(12, 30)}/32`,
      });
    }
    // Alert settings tuned.
    for (let n = times(0.7); n > 0; n--) {
      push(scopeOf(), workTime(day), 'ALERT_CONFIG_CHANGED_AUDIT', {
        ...person(),
        alertConfigId: ids.next(start),
      });
    }
  }

  const incidents: PlantedIncident[] = [];
  if (options.incidents !== false) {
    const dayAt = (day: number, hours: number, minutes: number) =>
      start + Math.min(day, days - 1) * DAY + hours * HOUR + minutes * 60_000;
    const openAt = dayAt(2, 14, 12);
    const open = push({ orgId }, openAt, 'API_KEY_ACCESS_LIST_ENTRY_ADDED', {
      ...person(),
      targetPublicKey: AUTOMATION_KEY,
      whitelistEntry: '0.0.0.0/0',
    });
    incidents.push({
      kind: 'owner-key-open-to-internet',
      description: `the access list of ${AUTOMATION_KEY}, the Organization Owner automation key, opened to 0.0.0.0/0`,
      at: openAt,
      eventIds: [String(open.id)],
    });
    const victim = projects[Math.min(6, projects.length - 1)] as (typeof projects)[number];
    const bruteAt = dayAt(3, 2, 5);
    const attempts: string[] = [];
    for (let n = 0; n < 400; n++) {
      const attempt = login(victim.id, 'app-main', bruteAt + n * 6_000 + between(0, 3_000), {
        username: BRUTE_FORCE_USERS[n % BRUTE_FORCE_USERS.length],
        ipAddress: BRUTE_FORCE_ADDRESS,
        authResult: false,
        failureReason: 'AuthenticationFailed',
      });
      attempts.push(String(attempt.id));
    }
    incidents.push({
      kind: 'brute-force',
      description: `400 failed logins to ${BRUTE_FORCE_USERS.length} database user names on app-main of ${victim.name} from ${BRUTE_FORCE_ADDRESS} in 40 minutes`,
      at: bruteAt,
      eventIds: attempts,
    });
    const dropAt = dayAt(4, 16, 40);
    const drop = push(
      { groupId: (projects[0] as (typeof projects)[number]).id },
      dropAt,
      'DATA_EXPLORER_CRUD',
      {
        username: PEOPLE[9],
        remoteAddress: '203.0.113.87',
        isGlobalAdmin: false,
        clusterName: 'app-main',
        database: 'orders',
        collection: 'invoices',
        opType: 'dropCollection',
      },
    );
    incidents.push({
      kind: 'data-explorer-deletion',
      description: 'the orders.invoices collection of the first project dropped through Data Explorer',
      at: dropAt,
      eventIds: [String(drop.id)],
    });
    const mfaAt = dayAt(5, 3, 15);
    const mfa = push({ orgId }, mfaAt, 'ORG_TWO_FACTOR_AUTH_OPTIONAL', {
      username: PEOPLE[4],
      remoteAddress: '203.0.113.201',
      isGlobalAdmin: false,
    });
    incidents.push({
      kind: 'mfa-made-optional',
      description: "the organization's multi-factor authentication requirement turned off",
      at: mfaAt,
      eventIds: [String(mfa.id)],
    });
  }
  events.sort((a, b) => {
    const at = Date.parse(String(a.event.created)) - Date.parse(String(b.event.created));
    return at !== 0
      ? at
      : String(a.event.id) < String(b.event.id)
        ? -1
        : String(a.event.id) > String(b.event.id)
          ? 1
          : 0;
  });
  return {
    orgId,
    projectIds: projects.map((project) => project.id),
    events,
    incidents,
    start,
    end: start + days * DAY,
  };
}
