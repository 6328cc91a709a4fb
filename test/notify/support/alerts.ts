import type { AtlasEvent } from '../../../shared/atlas/types.js';
import type { Alert } from '../../../shared/notify/alert.js';
import type { FormatContext } from '../../../shared/notify/format-context.js';

/** The time tests format against: 2026-11-22 06:17:00 UTC. */
export const NOW = Date.parse('2026-11-22T06:17:00Z');

/** Formatting for current Atlas at {@link NOW}. */
export const ATLAS_CONTEXT: FormatContext = {
  now: NOW,
  console: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' },
};

export const PROJECT_ID = '5b43d04087d9d6357de591a2';
export const ORG_ID = '5b478b3afc4625789ce616a3';

/** A project IP access list opened to the whole internet, as current Atlas reports it. */
export function accessListEvent(overrides: Partial<AtlasEvent> = {}): AtlasEvent {
  return {
    created: '2026-11-22T06:12:41Z',
    eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
    groupId: PROJECT_ID,
    orgId: ORG_ID,
    id: '6740f1c9a3b2c1d0e9f81234',
    isGlobalAdmin: false,
    remoteAddress: '203.0.113.22',
    userId: '5898b79080eef53b3ad04e68',
    username: 'j.doe@example.com',
    whitelistEntry: '0.0.0.0/0',
    links: [
      {
        rel: 'self',
        href: `https://cloud.mongodb.com/api/atlas/v2/groups/${PROJECT_ID}/events/6740f1c9a3b2c1d0e9f81234`,
      },
    ],
    ...overrides,
  };
}

/** An org API key created by a user (synthesized from the spec's field examples). */
export function apiKeyCreatedEvent(overrides: Partial<AtlasEvent> = {}): AtlasEvent {
  return {
    created: '2026-11-22T05:58:02Z',
    eventTypeName: 'API_KEY_CREATED',
    id: '6740ee7aa3b2c1d0e9f80077',
    isGlobalAdmin: false,
    orgId: ORG_ID,
    remoteAddress: '198.51.100.7',
    targetPublicKey: 'zmcxkfop',
    userId: '5898b79080eef53b3ad04e68',
    username: 'ops-admin@example.com',
    links: [
      {
        rel: 'self',
        href: `https://cloud.mongodb.com/api/atlas/v2/orgs/${ORG_ID}/events/6740ee7aa3b2c1d0e9f80077`,
      },
    ],
    ...overrides,
  };
}

/** Documents changed through Data Explorer, by an API key. */
export function dataExplorerEvent(overrides: Partial<AtlasEvent> = {}): AtlasEvent {
  return {
    created: '2026-11-22T04:00:00Z',
    eventTypeName: 'DATA_EXPLORER_CRUD',
    groupId: PROJECT_ID,
    orgId: ORG_ID,
    id: '6740cf10a3b2c1d0e9f80001',
    publicKey: 'abcdefgh',
    apiKeyId: '5c47503320eef5e6a1f1b8f0',
    remoteAddress: '192.0.2.15',
    database: 'sales',
    collection: 'orders',
    opType: 'deleteDocument',
    ...overrides,
  };
}

/** A published automation configuration that added a database user. */
export function automationConfigEvent(overrides: Partial<AtlasEvent> = {}): AtlasEvent {
  return {
    created: '2026-11-21T22:10:00Z',
    eventTypeName: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
    groupId: PROJECT_ID,
    id: '674027a8a3b2c1d0e9f80002',
    username: 'dba@example.com',
    remoteAddress: '192.0.2.44',
    diffs: [
      {
        type: 'USERS',
        status: 'NEW',
        name: 'reporting',
        roles: [{ role: 'readWrite', db: 'sales' }],
        priviileges: null,
        params: [],
      },
    ],
    ...overrides,
  };
}

/**
 * A baseline finding of the first inventory: API key qkzvbgyt usable from 0.0.0.0/0 since 2024, as the
 * poller builds it (`buildInventoryEvent`).
 */
export function inventoryEntryEvent(overrides: Partial<AtlasEvent> = {}): AtlasEvent {
  return {
    created: '2026-11-22T06:10:00.000Z',
    source: 'inventory',
    orgId: ORG_ID,
    preExisting: true,
    finding: 'pre-existing, found by the first inventory',
    apiKeyId: '64b5cc01f1a3d40012ab3f01',
    targetPublicKey: 'qkzvbgyt',
    apiKeyDescription: 'CI automation (owner)',
    accessListEntry: '0.0.0.0/0',
    cidrBlock: '0.0.0.0/0',
    existsSince: '2024-03-18T14:41:10.000Z',
    id: 'inv-9f5022dafaf25fcb32c8b3a7dd5e3496',
    eventTypeName: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
    ...overrides,
  };
}

/** What the poller knows of {@link inventoryEntryEvent}: the organization by name, and the key. */
export const INVENTORY_CONTEXT = {
  orgId: ORG_ID,
  orgName: 'Acme Corp',
  credential: {
    kind: 'api-key' as const,
    id: 'qkzvbgyt',
    description: 'CI automation (owner)',
    roles: ['ORG_OWNER in Acme Corp (5b47…6a3)', 'ORG_READ_ONLY in Acme Labs (64b5…c02)'],
    snapshotTakenAt: Date.parse('2026-11-22T06:10:00Z'),
  },
};

/** An alert as the rule engine would raise it for one event. */
export function makeAlert(overrides: Partial<Alert> = {}): Alert {
  const events = overrides.events ?? [accessListEvent()];
  return {
    ruleId: 'network-access-open-to-internet',
    ruleName: 'Project IP access list opened to the internet',
    severity: 'critical',
    title: 'Project IP access list open to 0.0.0.0/0',
    summary:
      'j.doe@example.com added 0.0.0.0/0 to the IP access list of the project: every cluster in it now accepts connections from any address.',
    runbook:
      '- Confirm with the user that the entry was intended and temporary.\n- If not, delete it under Network Access and review the database users.',
    tags: ['network'],
    events,
    groupKey: '',
    fingerprint: `network-access-open-to-internet:${String(events[0]?.id ?? 'none')}`,
    allowMentions: false,
    raisedAt: Date.parse('2026-11-22T06:14:03Z'),
    ...overrides,
  };
}

/** Values an attacker can put in a user name or any other field. */
export const HOSTILE_VALUES = [
  '<!channel>',
  '<!here>',
  '<@U024BE7LH>',
  '<!subteam^SAZ94GDB8>',
  '<https://evil.example|click>',
  '*bold*',
  '_italic_',
  '~strike~',
  '`code`',
  '```block```',
  '@channel',
  '&lt;!channel&gt;',
  '\u001b[31mred\u001b[0m\r\nsecond line\u0007',
  '\u202Eevil\u202C',
  'lone \uD800 surrogate',
  '> quoted',
] as const;
