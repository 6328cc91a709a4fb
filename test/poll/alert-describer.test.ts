import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../shared/logger.js';
import type { Alert } from '../../shared/notify/alert.js';
import { formatChatbotNotification } from '../../shared/notify/chatbot-formatter.js';
import { formatEmailText } from '../../shared/notify/email-formatter.js';
import { AlertDescriber } from '../../shared/poll/alert-describer.js';
import { NameCache } from '../../shared/poll/name-cache.js';
import { orgSource } from '../../shared/poll/poll-source.js';
import type { InventorySnapshot } from '../../shared/state/index.js';
import { fileStoreFactory, ids, type PollFixture, startPollFixture } from './support/poll-fixture.js';

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

/** A describer over a poll fixture whose store holds {@link plantedSnapshot}. */
async function describerWithPlantedSnapshot() {
  fixture = await startPollFixture({ store: fileStoreFactory() });
  const { store, atlas, clock } = fixture;
  await store.writeInventory({ snapshot: plantedSnapshot(clock.now()) });
  const describer = new AlertDescriber({
    atlas,
    store,
    names: new NameCache(),
    clock,
    logger: silentLogger,
    signal: new AbortController().signal,
  });
  return { describer, clock };
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
        roles: ['ORG_BILLING_ADMIN', 'GROUP_READ_ONLY on project 6650…011'],
      },
    });
    expect(accountContext.credential).toMatchObject({
      kind: 'service-account',
      id: 'mdb_sa_id_6650a1b2c3d4e5f6',
      description: 'deployer: CD pipeline',
      roles: ['ORG_OWNER'],
    });
    expect(outputs[0]).toMatch(/^API key: +billexpt: billing export$/m);
    expect(outputs[3]).toMatch(/^Service account: +mdb_sa_id_6650a1b2c3d4e5f6: deployer: CD pipeline$/m);
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
});
