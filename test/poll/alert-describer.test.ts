import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../shared/logger.js';
import type { Alert } from '../../shared/notify/alert.js';
import { formatChatbotNotification } from '../../shared/notify/chatbot-formatter.js';
import { formatEmailText } from '../../shared/notify/email-formatter.js';
import { AlertDescriber } from '../../shared/poll/alert-describer.js';
import { NameCache } from '../../shared/poll/name-cache.js';
import { orgSource, projectSource } from '../../shared/poll/poll-source.js';
import type { InventorySnapshot } from '../../shared/state/index.js';
import type { SeedData } from '../../simulator/index.js';
import {
  fileStoreFactory,
  ids,
  type PollFixture,
  pollSeed,
  startPollFixture,
} from './support/poll-fixture.js';

const PLANTED_PRIVATE_KEY = 'fake-private-key-planted-7f3a9c';
const PLANTED_CLIENT_SECRET = 'fake-client-secret-planted-4e1b2d';

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A stored snapshot whose key and account carry secrets, as a careless writer might leave them. */
function plantedSnapshot(takenAt: number): InventorySnapshot {
  const account = {
    clientId: 'mdb_sa_id_6650a1b2c3d4e5f6',
    name: 'deployer',
    description: 'CD pipeline',
    roles: ['ORG_OWNER'],
    clientSecret: PLANTED_CLIENT_SECRET,
    secrets: [{ secret: PLANTED_CLIENT_SECRET }],
  };
  return {
    orgId: ids.org,
    takenAt,
    apiKeys: [
      {
        apiKey: {
          id: '6650a1b2c3d4e5f603000009',
          publicKey: 'billexpt',
          desc: 'billing export',
          privateKey: PLANTED_PRIVATE_KEY,
          roles: [
            { orgId: ids.org, roleName: 'ORG_BILLING_ADMIN' },
            { groupId: ids.project, roleName: 'GROUP_READ_ONLY' },
          ],
        },
        accessList: [],
      },
    ],
    serviceAccounts: [{ serviceAccount: account, accessList: [] }],
  };
}

function alertOn(event: Record<string, unknown>, context: Alert['context']): Alert {
  return {
    ruleId: 'test-rule',
    ruleName: 'Test rule',
    severity: 'high',
    title: 'A key changed',
    summary: 'A key changed.',
    tags: [],
    events: [event],
    groupKey: '',
    fingerprint: 'test-rule:e1',
    allowMentions: false,
    raisedAt: 0,
    ...(context === undefined ? {} : { context }),
  };
}

/** A describer over a poll fixture whose store holds {@link plantedSnapshot}, and what it logged. */
async function describerWithPlantedSnapshot(options: { seed?: SeedData; snapshot?: InventorySnapshot } = {}) {
  fixture = await startPollFixture({
    store: fileStoreFactory(),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  const { store, atlas, clock } = fixture;
  await store.writeInventory({ snapshot: options.snapshot ?? plantedSnapshot(clock.now()) });
  const logged: Array<{ level: string; message: string }> = [];
  const logger = {
    ...silentLogger,
    debug: (message: string) => logged.push({ level: 'debug', message }),
    info: (message: string) => logged.push({ level: 'info', message }),
    warn: (message: string) => logged.push({ level: 'warn', message }),
    error: (message: string) => logged.push({ level: 'error', message }),
  };
  const describer = new AlertDescriber({
    atlas,
    store,
    names: new NameCache(),
    clock,
    logger,
    signal: new AbortController().signal,
  });
  return { describer, clock, logged };
}

describe('AlertDescriber', () => {
  it('gives an API key and a service account their description and roles, never a secret', async () => {
    // Prepare
    const { describer, clock } = await describerWithPlantedSnapshot();
    const keyEvent = {
      id: 'e1',
      eventTypeName: 'API_KEY_ROLES_CHANGED',
      orgId: ids.org,
      targetPublicKey: 'billexpt',
    };
    const accountEvent = {
      id: 'e2',
      eventTypeName: 'INVENTORY_SERVICE_ACCOUNT_ROLES_CHANGED',
      orgId: ids.org,
      serviceAccountClientId: 'mdb_sa_id_6650a1b2c3d4e5f6',
    };

    // Act
    const keyContext = await describer.describe(keyEvent, orgSource(ids.org));
    const accountContext = await describer.describe(accountEvent, orgSource(ids.org));
    const outputs = [keyContext, accountContext].flatMap((context, index) => {
      const alert = alertOn(index === 0 ? keyEvent : accountEvent, context);
      return [
        formatEmailText(alert, { context: { now: clock.now() } }),
        JSON.stringify(formatChatbotNotification(alert, { context: { now: clock.now() } })),
        JSON.stringify(alert),
      ];
    });

    // Assess
    expect(keyContext).toMatchObject({
      orgName: 'Acme',
      credential: {
        kind: 'api-key',
        id: 'billexpt',
        description: 'billing export',
        roles: ['ORG_BILLING_ADMIN in Acme (6650…001)', 'GROUP_READ_ONLY in payments (6650…011)'],
      },
    });
    expect(accountContext.credential).toMatchObject({
      kind: 'service-account',
      id: 'mdb_sa_id_6650a1b2c3d4e5f6',
      name: 'deployer',
      description: 'CD pipeline',
      roles: ['ORG_OWNER in Acme (6650…001)'],
    });
    expect(outputs[0]).toMatch(/^API key: +billexpt: billing export$/m);
    expect(outputs[3]).toMatch(/^Service account: +deployer \(mdb_sa_id_6650a1b2c3d4e5f6\): CD pipeline$/m);
    for (const output of outputs) {
      expect(output).not.toContain(PLANTED_PRIVATE_KEY);
      expect(output).not.toContain(PLANTED_CLIENT_SECRET);
    }
  });

  it('gives no key details for an event about no key, and takes an actor key for no subject', async () => {
    // Prepare
    const { describer } = await describerWithPlantedSnapshot();

    // Act: in an Atlas event, apiKeyId names the key that acted, not what the event is about.
    const context = await describer.describe(
      { id: 'e3', eventTypeName: 'GROUP_DELETED', orgId: ids.org, apiKeyId: '6650a1b2c3d4e5f603000009' },
      orgSource(ids.org),
    );

    // Assess
    expect(context.credential).toBeUndefined();
    expect(context.orgName).toBe('Acme');
  });

  it('names the service account an Atlas event is about by its name, not its client id', async () => {
    // Prepare
    const { describer, clock } = await describerWithPlantedSnapshot();
    const event = {
      id: 'e4',
      eventTypeName: 'SERVICE_ACCOUNT_ROLES_CHANGED',
      orgId: ids.org,
      targetClientId: 'mdb_sa_id_6650a1b2c3d4e5f6',
      username: 'ana@example.com',
    };

    // Act
    const context = await describer.describe(event, orgSource(ids.org));
    const email = formatEmailText(alertOn(event, context), { context: { now: clock.now() } });

    // Assess
    expect(context.credential).toMatchObject({ kind: 'service-account', name: 'deployer' });
    expect(email).toMatch(/^Service account: +deployer \(mdb_sa_id_6650a1b2c3d4e5f6\): CD pipeline$/m);
    const read = email.slice(0, email.indexOf('\nRaw event'));
    expect(read).not.toContain('targetClientId');
    expect(read.match(/mdb_sa_id_6650a1b2c3d4e5f6/g)).toHaveLength(1);
  });

  it('says in which organization each role of a key of two organizations holds, this one first', async () => {
    // Prepare
    const { describer, logged } = await describerWithPlantedSnapshot({
      snapshot: {
        orgId: ids.org,
        takenAt: 0,
        apiKeys: [
          {
            apiKey: {
              id: '6650a1b2c3d4e5f603000010',
              publicKey: 'twoorgsk',
              roles: [
                { orgId: ids.otherOrg, roleName: 'ORG_OWNER' },
                { orgId: ids.org, roleName: 'ORG_READ_ONLY' },
                { orgId: ids.org, roleName: 'ORG_MEMBER' },
              ],
            },
            accessList: [],
          },
        ],
      },
    });

    // Act
    const context = await describer.describe(
      { id: 'e5', eventTypeName: 'API_KEY_ROLES_CHANGED', orgId: ids.org, targetPublicKey: 'twoorgsk' },
      orgSource(ids.org),
    );

    // Assess: the poller's key may not read the other organization: its id stands, and no warning.
    expect(context.credential?.roles).toEqual([
      'ORG_READ_ONLY, ORG_MEMBER in Acme (6650…001)',
      'ORG_OWNER in organization 6650…002',
    ]);
    expect(logged.filter((entry) => entry.level !== 'debug')).toEqual([]);
  });

  it('finds the organization of a project finding, and names the team and the alert configuration', async () => {
    // Prepare
    const seed = pollSeed();
    seed.orgs[0] = {
      ...seed.orgs[0],
      id: ids.org,
      name: 'Acme',
      teams: [{ id: '6650a1b2c3d4e5f605000001', name: 'dbas' }],
    };
    seed.projects = (seed.projects ?? []).map((project) =>
      project.id === ids.project
        ? {
            ...project,
            alertConfigs: [
              {
                id: '6650a1b2c3d4e5f606000001',
                eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
                metricThreshold: {
                  metricName: 'CONNECTIONS',
                  operator: 'GREATER_THAN',
                  threshold: 500,
                  units: 'RAW',
                },
              },
            ],
          }
        : project,
    );
    const { describer } = await describerWithPlantedSnapshot({ seed });

    // Act
    const finding = await describer.describe(
      {
        id: 'inv-1',
        eventTypeName: 'INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED',
        source: 'inventory',
        groupId: ids.project,
      },
      projectSource(ids.project),
    );
    const team = await describer.describe(
      { id: 'e6', eventTypeName: 'TEAM_CREATED', orgId: ids.org, teamId: '6650a1b2c3d4e5f605000001' },
      orgSource(ids.org),
    );
    const config = await describer.describe(
      {
        id: 'e7',
        eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
        groupId: ids.project,
        alertConfigId: '6650a1b2c3d4e5f606000001',
      },
      projectSource(ids.project),
    );
    const deleted = await describer.describe(
      {
        id: 'e8',
        eventTypeName: 'ALERT_CONFIG_DELETED_AUDIT',
        groupId: ids.project,
        alertConfigId: '6650a1b2c3d4e5f606000009',
      },
      projectSource(ids.project),
    );

    // Assess
    expect(finding).toMatchObject({
      orgId: ids.org,
      orgName: 'Acme',
      projectId: ids.project,
      projectName: 'payments',
    });
    expect(team.team).toEqual({ id: '6650a1b2c3d4e5f605000001', name: 'dbas' });
    expect(config.alertConfig).toEqual({ id: '6650a1b2c3d4e5f606000001', name: 'CONNECTIONS above 500' });
    expect(deleted.alertConfig).toEqual({ id: '6650a1b2c3d4e5f606000009' });
  });
});
