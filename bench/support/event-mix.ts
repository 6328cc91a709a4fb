import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRandom, type Random } from './random.js';

/**
 * A realistic mix of Atlas events for benchmarks: mostly the routine traffic of a busy organization
 * (cluster and backup housekeeping 45%, metric alerts 20%, automation publishes 15%), then Data
 * Explorer use (10%) and the changes the rules look for (access lists, keys, users, deletions: 10%).
 * About a fifth of the events raise an alert with the default pack, more than a real feed does, so
 * the figures err on the slow side.
 */

export interface EventMixOptions {
  /** How many events to generate. */
  count: number;
  /** The same seed gives the same events. */
  seed?: number;
  /** Time of the first event, in milliseconds since the epoch. */
  start?: number;
}

type Template = (random: Random) => Omit<AtlasEvent, 'id' | 'created'>;

const GROUPS = Array.from(
  { length: 12 },
  (_, index) => `65f1a2b3c4d5e6f7a8b9c${index.toString(16).padStart(3, '0')}`,
);
const ORG = '4888442a3354817a7320eb61';
const USERS = [
  'ana@example.com',
  'bo@example.com',
  'chen@example.com',
  'dee@contractor.example',
  'svc-deploy@example.com',
];
const KEYS = ['zmmrboas', 'qwertyui', 'asdfghjk', 'zxcvbnm0'];
const HOSTS = Array.from(
  { length: 9 },
  (_, index) => `atlas-abc123-shard-00-0${index % 3}.x${index}.mongodb.net`,
);
const ENTRIES = [
  '203.0.113.7/32',
  '198.51.100.0/24',
  '10.0.0.0/8',
  '0.0.0.0/0',
  '52.94.0.0/16',
  '2001:db8::/48',
  '::/0',
];
const ADDRESSES = ['216.172.40.186', '203.0.113.9', '198.51.100.23', '2600:1f18::7', '10.1.2.3'];
const ROUTINE_TYPES = [
  'CLUSTER_UPDATE_COMPLETED',
  'CPS_SNAPSHOT_SUCCESSFUL',
  'CPS_SNAPSHOT_STARTED',
  'ALERT_ACKNOWLEDGED_AUDIT',
  'HOST_UP',
  'HOST_RESTARTED',
  'PRIMARY_ELECTED',
  'BACKUP_SNAPSHOT_CREATED',
  'MAINTENANCE_COMPLETED',
  'REPLICATION_OPLOG_WINDOW_HEALTHY',
  'INDEX_BUILD_COMPLETED',
  'CLUSTER_CREATED',
];

const actor = (random: Random): Partial<AtlasEvent> =>
  random.next() < 0.8
    ? {
        userId: '5bc76130ff7a25df17bbd9d9',
        username: random.pick(USERS),
        remoteAddress: random.pick(ADDRESSES),
      }
    : {
        apiKeyId: '32b6e34b3d91647abb20e7be',
        publicKey: random.pick(KEYS),
        remoteAddress: random.pick(ADDRESSES),
      };

/** Templates with their weights, out of 1000. */
const TEMPLATES: readonly (readonly [number, Template])[] = [
  [
    450,
    (random) => ({
      eventTypeName: random.pick(ROUTINE_TYPES),
      groupId: random.pick(GROUPS),
      orgId: ORG,
      isGlobalAdmin: false,
    }),
  ],
  [
    200,
    (random) => ({
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      groupId: random.pick(GROUPS),
      orgId: ORG,
      hostname: random.pick(HOSTS),
      port: 27017,
      metricName: random.pick([
        'CONNECTIONS',
        'OPCOUNTER_CMD',
        'DISK_PARTITION_SPACE_USED_DATA',
        'QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED',
      ]),
      currentValue: { number: random.int(1000), units: 'RAW' },
    }),
  ],
  [
    150,
    (random) => ({
      eventTypeName: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      diffs:
        random.next() < 0.3
          ? [
              {
                id: `app${random.int(20)}@admin`,
                type: 'USERS',
                status: random.pick(['NEW', 'MODIFIED']),
                roles: [{ db: 'sales', role: random.pick(['readWrite', 'read', 'dbOwner']) }],
              },
            ]
          : [{ id: 'agent', type: 'AUTOMATION_AGENT', status: 'MODIFIED' }],
    }),
  ],
  [
    80,
    (random) => ({
      eventTypeName: 'DATA_EXPLORER',
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      database: random.pick(['sales', 'users', 'logs']),
      collection: random.pick(['orders', 'profiles', 'events']),
      opType: random.pick(['find', 'aggregate', 'listCollections', 'count']),
    }),
  ],
  [
    20,
    (random) => ({
      eventTypeName: 'DATA_EXPLORER_CRUD',
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      database: random.pick(['sales', 'users']),
      collection: random.pick(['orders', 'profiles']),
      opType: random.pick(['insertDocument', 'updateDocument', 'deleteDocument', 'replaceDocument']),
    }),
  ],
  [
    60,
    (random) => ({
      eventTypeName: random.pick([
        'NETWORK_PERMISSION_ENTRY_ADDED',
        'NETWORK_PERMISSION_ENTRY_UPDATED',
        'NETWORK_PERMISSION_ENTRY_REMOVED',
      ]),
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      whitelistEntry: random.pick(ENTRIES),
    }),
  ],
  [
    30,
    (random) => ({
      eventTypeName: random.pick([
        'API_KEY_CREATED',
        'API_KEY_DELETED',
        'API_KEY_ROLES_CHANGED',
        'API_KEY_ADDED_TO_GROUP',
        'API_KEY_ACCESS_LIST_ENTRY_ADDED',
        'API_KEY_ACCESS_LIST_ENTRY_DELETED',
      ]),
      orgId: ORG,
      ...actor(random),
      targetPublicKey: random.pick(KEYS),
      whitelistEntry: random.pick(ENTRIES),
    }),
  ],
  [
    25,
    (random) => ({
      eventTypeName: random.pick([
        'MONGODB_USER_ADDED',
        'MONGODB_USER_UPDATED',
        'MONGODB_USER_DELETED',
        'USER_ROLES_CHANGED_AUDIT',
        'INVITED_TO_ORG',
        'JOINED_ORG',
        'ALERT_CONFIG_CHANGED_AUDIT',
      ]),
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      dbUserUsername: `app${random.int(20)}`,
      targetUsername: random.pick(USERS),
    }),
  ],
  [
    15,
    (random) => ({
      eventTypeName: random.pick([
        'CLUSTER_DELETE_SUBMITTED',
        'CPS_SNAPSHOT_DELETED_AUDIT',
        'GROUP_DELETED',
        'ORG_TWO_FACTOR_AUTH_OPTIONAL',
        'AUDIT_LOG_CONFIGURATION_UPDATED',
        'ALERT_CONFIG_DISABLED_AUDIT',
        'MONGODB_LOGS_DOWNLOADED',
      ]),
      groupId: random.pick(GROUPS),
      orgId: ORG,
      ...actor(random),
      clusterName: random.pick(['prod', 'staging', 'analytics']),
    }),
  ],
];

const TOTAL_WEIGHT = TEMPLATES.reduce((sum, [weight]) => sum + weight, 0);

/**
 * Generates `count` events in time order, as the poller hands them to the engine: ISO-8601 `created`
 * one to three seconds apart, 24-hex ids.
 *
 * @example
 * ```ts
 * const events = generateEventMix({ count: 100_000, seed: 7 });
 * ```
 */
export function generateEventMix(options: EventMixOptions): AtlasEvent[] {
  const random = createRandom(options.seed ?? 1);
  let time = options.start ?? Date.UTC(2024, 2, 18, 0, 0, 0);
  const events: AtlasEvent[] = [];
  for (let index = 0; index < options.count; index++) {
    time += 1000 + random.int(2000);
    let roll = random.int(TOTAL_WEIGHT);
    let template = TEMPLATES[0]?.[1] as Template;
    for (const [weight, candidate] of TEMPLATES) {
      if (roll < weight) {
        template = candidate;
        break;
      }
      roll -= weight;
    }
    events.push({
      id: (index + 0x5f00000000).toString(16).padStart(24, '0'),
      created: new Date(time).toISOString(),
      ...template(random),
    });
  }
  return events;
}
