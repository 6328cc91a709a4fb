import { describe, expect, it } from 'vitest';
import type { AtlasApiKey } from '../../shared/atlas/index.js';
import { diffInventory, inventoryKey } from '../../shared/poll/inventory-diff.js';
import type { InventoryApiKeyEntry, InventorySnapshot } from '../../shared/state/index.js';

const ORG = '6650a1b2c3d4e5f601000001';
const PROJECT = '6650a1b2c3d4e5f602000011';

function key(
  id: string,
  roles: NonNullable<AtlasApiKey['roles']>,
  cidrs: string[] = [],
): InventoryApiKeyEntry {
  return {
    apiKey: { id, publicKey: `pub-${id}`, desc: `key ${id}`, roles },
    accessList: cidrs.map((cidrBlock) => ({ cidrBlock })),
  };
}

function snapshot(takenAt: number, ...apiKeys: InventoryApiKeyEntry[]): InventorySnapshot {
  return { orgId: ORG, takenAt, apiKeys };
}

const readOnly = [{ orgId: ORG, roleName: 'ORG_READ_ONLY' }];
const owner = [{ orgId: ORG, roleName: 'ORG_OWNER' }];

describe('diffInventory', () => {
  it('finds no change between equal snapshots, whatever the order of keys, roles and entries', () => {
    // Prepare
    const previous = snapshot(
      1,
      key(
        'k1',
        [...readOnly, { groupId: PROJECT, roleName: 'GROUP_READ_ONLY' }],
        ['10.0.0.0/8', '203.0.113.0/24'],
      ),
      key('k2', owner),
    );
    const current = snapshot(
      2,
      key('k2', owner),
      key(
        'k1',
        [{ groupId: PROJECT, roleName: 'GROUP_READ_ONLY' }, ...readOnly],
        ['203.0.113.0/24', '10.0.0.0/8'],
      ),
    );

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(changes).toEqual([]);
  });

  it('reports a new owner key with its access list as added, owner granted, and each entry added', () => {
    // Prepare
    const previous = snapshot(1, key('k1', readOnly));
    const current = snapshot(2, key('k1', readOnly), key('k9', owner, ['0.0.0.0/0']));

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(changes.map((change) => change.type)).toEqual([
      'INVENTORY_API_KEY_ADDED',
      'INVENTORY_API_KEY_OWNER_ROLE_GRANTED',
      'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
    ]);
    expect(changes[2]).toMatchObject({ apiKey: { id: 'k9' }, entry: { cidrBlock: '0.0.0.0/0' } });
  });

  it('reports a key gone as removed, without one change per entry', () => {
    // Prepare
    const previous = snapshot(1, key('k1', readOnly, ['10.0.0.0/8', '10.1.0.0/16']));
    const current = snapshot(2);

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(changes).toEqual([
      { type: 'INVENTORY_API_KEY_REMOVED', apiKey: inventoryKey(previous.apiKeys[0]?.apiKey as AtlasApiKey) },
    ]);
  });

  it('reports a role change, and an owner grant when an owner role is among the new roles', () => {
    // Prepare
    const previous = snapshot(1, key('k1', readOnly, ['10.0.0.0/8']), key('k2', readOnly));
    const current = snapshot(
      2,
      key('k1', [...readOnly, { groupId: PROJECT, roleName: 'GROUP_OWNER' }], ['10.0.0.0/8']),
      key('k2', [{ orgId: ORG, roleName: 'ORG_MEMBER' }]),
    );

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(changes.map((change) => [change.type, 'apiKey' in change ? change.apiKey.id : ''])).toEqual([
      ['INVENTORY_API_KEY_ROLES_CHANGED', 'k1'],
      ['INVENTORY_API_KEY_OWNER_ROLE_GRANTED', 'k1'],
      ['INVENTORY_API_KEY_ROLES_CHANGED', 'k2'],
    ]);
    expect(changes[0]).toMatchObject({ rolesBefore: readOnly });
  });

  it('reports a key with no access list that becomes an owner as without an access list, once', () => {
    // Prepare
    const previous = snapshot(1, key('k1', readOnly), key('k2', owner), key('k3', readOnly, ['10.0.0.0/8']));
    const current = snapshot(
      2,
      key('k1', [...readOnly, ...owner]),
      key('k2', [...owner, { groupId: PROJECT, roleName: 'GROUP_OWNER' }]),
      key('k3', owner),
    );

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(
      changes
        .filter((change) => change.type === 'INVENTORY_API_KEY_WITHOUT_ACCESS_LIST')
        .map((change) => ('apiKey' in change ? change.apiKey.id : '')),
    ).toEqual(['k1', 'k3']);
  });

  it('reports access-list entries added and removed, a bare IP address being its /32', () => {
    // Prepare
    const previous: InventorySnapshot = snapshot(1, {
      apiKey: { id: 'k1', roles: readOnly },
      accessList: [{ ipAddress: '198.51.100.7' }, { cidrBlock: '10.0.0.0/8' }],
    });
    const current: InventorySnapshot = snapshot(2, {
      apiKey: { id: 'k1', roles: readOnly },
      accessList: [
        { cidrBlock: '198.51.100.7/32', ipAddress: '198.51.100.7', count: 4 },
        { cidrBlock: '::/0' },
      ],
    });

    // Act
    const changes = diffInventory({ previous, current });

    // Assess
    expect(changes).toEqual([
      {
        type: 'INVENTORY_ACCESS_LIST_ENTRY_ADDED',
        apiKey: { id: 'k1', roles: readOnly },
        entry: { cidrBlock: '::/0' },
      },
      {
        type: 'INVENTORY_ACCESS_LIST_ENTRY_REMOVED',
        apiKey: { id: 'k1', roles: readOnly },
        entry: { cidrBlock: '10.0.0.0/8' },
      },
    ]);
  });
});

describe('inventoryKey', () => {
  it('keeps the id, public key, description and roles, and never the private key', () => {
    // Act
    const key = inventoryKey({
      id: 'k1',
      publicKey: 'abcdefgh',
      desc: 'deploy',
      privateKey: '********-****-****-1234',
      roles: readOnly,
      links: [],
    });

    // Assess
    expect(key).toEqual({ id: 'k1', publicKey: 'abcdefgh', desc: 'deploy', roles: readOnly });
  });
});
