import { describe, expect, it } from 'vitest';
import {
  buildInventoryEvent,
  INVENTORY_EVENT_TYPES,
  ownerRolesGranted,
} from '../../shared/rules/inventory-events.js';

const apiKey = {
  id: '5f1a00000000000000000001',
  publicKey: 'zmmrboas',
  desc: 'terraform',
  privateKey: '********-****-****-****-********1234',
  roles: [
    { orgId: 'org1', roleName: 'ORG_MEMBER' },
    { groupId: 'g1', roleName: 'GROUP_READ_ONLY' },
  ],
};
const context = {
  orgId: 'org1',
  snapshotAt: Date.UTC(2024, 2, 18, 15),
  previousSnapshotAt: '2024-03-18T14:00:00Z',
};

describe('buildInventoryEvent', () => {
  it('builds an Atlas-shaped event for a new key, without its private key', () => {
    const event = buildInventoryEvent({ type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey }, context);

    expect(event).toEqual({
      id: expect.stringMatching(/^inv-[0-9a-f]{32}$/),
      created: '2024-03-18T15:00:00.000Z',
      eventTypeName: 'INVENTORY_API_KEY_ADDED',
      source: 'inventory',
      orgId: 'org1',
      apiKeyId: apiKey.id,
      targetPublicKey: 'zmmrboas',
      apiKeyDescription: 'terraform',
      previousSnapshotAt: '2024-03-18T14:00:00.000Z',
      finding: 'new since the last inventory',
      roles: [
        { groupId: 'g1', roleName: 'GROUP_READ_ONLY' },
        { orgId: 'org1', roleName: 'ORG_MEMBER' },
      ],
    });
    expect(JSON.stringify(event)).not.toContain('1234');
  });

  it('gives the same id when the same change is detected again, and another for another change', () => {
    const change = { type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey } as const;

    const first = buildInventoryEvent(change, context);
    const redetected = buildInventoryEvent(change, { ...context, snapshotAt: context.snapshotAt + 60_000 });
    const laterReAdd = buildInventoryEvent(change, {
      ...context,
      previousSnapshotAt: '2024-03-19T00:00:00Z',
    });
    const removal = buildInventoryEvent({ type: INVENTORY_EVENT_TYPES.apiKeyRemoved, apiKey }, context);

    expect(redetected.id).toBe(first.id);
    expect(new Set([first.id, laterReAdd.id, removal.id]).size).toBe(3);
  });

  it('lists the roles added and removed by a role change', () => {
    const event = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.apiKeyOwnerRoleGranted,
        apiKey: {
          ...apiKey,
          roles: [
            { orgId: 'org1', roleName: 'ORG_OWNER' },
            { groupId: 'g1', roleName: 'GROUP_READ_ONLY' },
          ],
        },
        rolesBefore: apiKey.roles,
      },
      context,
    );

    expect(event).toMatchObject({
      eventTypeName: 'INVENTORY_API_KEY_OWNER_ROLE_GRANTED',
      rolesAdded: [{ orgId: 'org1', roleName: 'ORG_OWNER' }],
      rolesRemoved: [{ orgId: 'org1', roleName: 'ORG_MEMBER' }],
    });
  });

  it('names an access-list entry by its CIDR block, else its IP address', () => {
    const byCidr = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
        apiKey,
        entry: { cidrBlock: '0.0.0.0/0', ipAddress: null },
      },
      context,
    );
    const byIp = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.accessListEntryRemoved, apiKey, entry: { ipAddress: '203.0.113.7' } },
      context,
    );

    expect(byCidr).toMatchObject({ accessListEntry: '0.0.0.0/0', cidrBlock: '0.0.0.0/0' });
    expect(byCidr).not.toHaveProperty('ipAddress');
    expect(byIp).toMatchObject({ accessListEntry: '203.0.113.7', ipAddress: '203.0.113.7' });
  });

  it('says since when what it found exists, as Atlas records it, and nothing for what was removed', () => {
    const entry = { cidrBlock: '0.0.0.0/0', created: '2024-03-18T14:41:10Z' };
    const account = { clientId: 'mdb_sa_id_1', name: 'ci', createdAt: '2025-02-03T09:20:00Z' };

    const added = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry },
      context,
    );
    const removed = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.accessListEntryRemoved, apiKey, entry },
      context,
    );
    const accountEntry = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.serviceAccountAccessListEntryAdded,
        serviceAccount: account,
        entry: { cidrBlock: '0.0.0.0/0', createdAt: '2025-02-04T10:00:00Z' },
      },
      context,
    );
    const accountAdded = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.serviceAccountAdded, serviceAccount: account },
      context,
    );
    const undated = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
        apiKey,
        entry: { cidrBlock: '0.0.0.0/0', created: 'soon' },
      },
      context,
    );

    expect(added.existsSince).toBe('2024-03-18T14:41:10.000Z');
    expect(removed).not.toHaveProperty('existsSince');
    expect(accountEntry.existsSince).toBe('2025-02-04T10:00:00.000Z');
    expect(accountAdded.existsSince).toBe('2025-02-03T09:20:00.000Z');
    expect(undated).not.toHaveProperty('existsSince');
    expect(added.id).toBe(
      buildInventoryEvent(
        { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry: { cidrBlock: '0.0.0.0/0' } },
        context,
      ).id,
    );
  });

  it('refuses an entry with no address and a snapshot time that is not a time', () => {
    expect(() =>
      buildInventoryEvent(
        { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry: { ipAddress: null } },
        context,
      ),
    ).toThrow(RangeError);
    expect(() =>
      buildInventoryEvent(
        { type: INVENTORY_EVENT_TYPES.apiKeyAdded, apiKey },
        { ...context, snapshotAt: 'soon' },
      ),
    ).toThrow(RangeError);
  });
});

describe('ownerRolesGranted', () => {
  it('lists owner roles present after and not before', () => {
    const before = [{ groupId: 'g1', roleName: 'GROUP_OWNER' }];
    const after = [
      { groupId: 'g1', roleName: 'GROUP_OWNER' },
      { groupId: 'g2', roleName: 'GROUP_OWNER' },
      { orgId: 'o', roleName: 'ORG_READ_ONLY' },
    ];

    expect(ownerRolesGranted(before, after)).toEqual([{ groupId: 'g2', roleName: 'GROUP_OWNER' }]);
    expect(ownerRolesGranted(after, before)).toEqual([]);
  });
});
