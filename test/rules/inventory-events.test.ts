import { describe, expect, it } from 'vitest';
import { alertFinding } from '../../shared/notify/alert-finding.js';
import {
  buildInventoryEvent,
  INVENTORY_EVENT_TYPES,
  type InventoryFindingResolvedChange,
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

  it('carries the posture finding an opening change names, and nothing on one that opens none', () => {
    const entry = { cidrBlock: '0.0.0.0/0' };
    const opening = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry },
      { ...context, postureFinding: 'org/org1/api-key/k1/access-list/0.0.0.0%2F0' },
    );
    const plain = buildInventoryEvent(
      { type: INVENTORY_EVENT_TYPES.accessListEntryAdded, apiKey, entry },
      context,
    );

    expect(opening.postureFinding).toBe('org/org1/api-key/k1/access-list/0.0.0.0%2F0');
    expect(plain).not.toHaveProperty('postureFinding');
    expect(opening.id).toBe(plain.id);
    expect(alertFinding({ events: [opening] })).toEqual({ id: opening.postureFinding, state: 'open' });
  });

  it('builds a resolved finding with the subject the opening event had, its id from the finding and the old snapshot', () => {
    const resolved = (overrides: Partial<InventoryFindingResolvedChange> = {}, at = context) =>
      buildInventoryEvent(
        {
          type: INVENTORY_EVENT_TYPES.findingResolved,
          postureFinding: 'org/org1/api-key/k1/access-list/0.0.0.0%2F0',
          opening: {
            type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
            apiKey,
            entry: { cidrBlock: '0.0.0.0/0', comment: 'temporary', created: '2024-03-18T14:41:10Z' },
          },
          resolution: "the entry was removed from the key's access list",
          firstFoundAt: '2024-03-18T14:00:00Z',
          ...overrides,
        },
        at,
      );

    const event = resolved();
    const retried = resolved({}, { ...context, snapshotAt: context.snapshotAt + 60_000 });
    const later = resolved({}, { ...context, previousSnapshotAt: '2024-03-19T00:00:00Z' });

    expect(event).toEqual({
      id: expect.stringMatching(/^inv-[0-9a-f]{32}$/),
      created: '2024-03-18T15:00:00.000Z',
      eventTypeName: 'INVENTORY_FINDING_RESOLVED',
      source: 'inventory',
      orgId: 'org1',
      previousSnapshotAt: '2024-03-18T14:00:00.000Z',
      finding: 'resolved: gone since the last inventory',
      postureFinding: 'org/org1/api-key/k1/access-list/0.0.0.0%2F0',
      resolvedFindingType: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
      apiKeyId: apiKey.id,
      targetPublicKey: 'zmmrboas',
      apiKeyDescription: 'terraform',
      accessListEntry: '0.0.0.0/0',
      cidrBlock: '0.0.0.0/0',
      comment: 'temporary',
      problem: 'API key zmmrboas open to 0.0.0.0/0',
      resolution: "the entry was removed from the key's access list",
      openSince: '2024-03-18T14:41:10.000Z',
      opened: "2024-03-18 14:41:10 UTC, as Atlas records the entry's creation",
    });
    expect(retried.id).toBe(event.id);
    expect(later.id).not.toBe(event.id);
    expect(JSON.stringify(event)).not.toContain('1234');
    expect(alertFinding({ events: [event] })).toEqual({ id: event.postureFinding, state: 'resolved' });
  });

  it('says since when an owner without an access list was open, from when the inventory first found it', () => {
    const owner = {
      type: INVENTORY_EVENT_TYPES.findingResolved,
      postureFinding: 'org/org1/service-account/mdb_sa_id_1/owner-without-access-list',
      opening: {
        type: INVENTORY_EVENT_TYPES.serviceAccountWithoutAccessList,
        serviceAccount: {
          clientId: 'mdb_sa_id_1',
          name: 'ci',
          createdAt: '2020-01-01T00:00:00Z',
          roles: [{ orgId: 'org1', roleName: 'ORG_OWNER' }],
        },
      },
      resolution: 'an access list was added',
      firstFoundAt: Date.UTC(2024, 2, 18, 14),
    } as const;

    const found = buildInventoryEvent(owner, { ...context, preExisting: true });
    const baseline = buildInventoryEvent({ ...owner, foundPreExisting: true }, context);
    const unknown = buildInventoryEvent({ ...owner, firstFoundAt: undefined }, context);

    expect(found).toMatchObject({
      problem: 'owner service account ci without an access list',
      serviceAccountClientId: 'mdb_sa_id_1',
      holdsOwnerRole: true,
      roles: [{ orgId: 'org1', roleName: 'ORG_OWNER' }],
      openSince: '2024-03-18T14:00:00.000Z',
      opened: '2024-03-18 14:00:00 UTC, when the inventory found it',
    });
    expect(found).not.toHaveProperty('preExisting');
    expect(found).not.toHaveProperty('existsSince');
    expect(baseline.opened).toBe(
      '2024-03-18 14:00:00 UTC or earlier: the first inventory found it already there',
    );
    expect(unknown).not.toHaveProperty('openSince');
    expect(unknown).not.toHaveProperty('opened');
  });

  it('words a resolved entry that is not an address, and a project entry', () => {
    const unreadable = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.findingResolved,
        postureFinding: 'org/org1/api-key/k1/access-list/0.0.0.0%20%2F0',
        opening: {
          type: INVENTORY_EVENT_TYPES.accessListEntryAdded,
          apiKey: { id: 'k1' },
          entry: { cidrBlock: '0.0.0.0 /0' },
        },
        resolution: 'the API key was deleted',
      },
      context,
    );
    const projectEntry = buildInventoryEvent(
      {
        type: INVENTORY_EVENT_TYPES.findingResolved,
        postureFinding: 'project/g1/access-list/::%2F0',
        opening: {
          type: INVENTORY_EVENT_TYPES.projectAccessListEntryAdded,
          groupId: 'g1',
          entry: { cidrBlock: '::/0' },
        },
        resolution: "the entry was removed from the project's IP access list",
      },
      { groupId: 'g1', snapshotAt: context.snapshotAt, previousSnapshotAt: context.previousSnapshotAt },
    );

    expect(unreadable.problem).toBe('API key k1 holding 0.0.0.0 /0, which is not an address');
    expect(projectEntry).toMatchObject({
      groupId: 'g1',
      accessListEntry: '::/0',
      problem: 'project IP access list open to ::/0',
    });
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
