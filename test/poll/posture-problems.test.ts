import { describe, expect, it } from 'vitest';
import type { AtlasApiKey } from '../../shared/atlas/index.js';
import { diffInventory } from '../../shared/poll/inventory-diff.js';
import { postureFindingOf, postureProblems } from '../../shared/poll/inventory-findings.js';
import { MAX_POSTURE_FINDING_ID_LENGTH, postureFindingId } from '../../shared/poll/posture-finding-id.js';
import { openFindingsSince, resolvedProblems } from '../../shared/poll/posture-resolutions.js';
import type { InventoryApiKeyEntry, InventorySnapshot } from '../../shared/state/index.js';

const ORG = '6650a1b2c3d4e5f601000001';
const PROJECT = '6650a1b2c3d4e5f602000011';
const readOnly = [{ orgId: ORG, roleName: 'ORG_READ_ONLY' }];
const owner = [{ orgId: ORG, roleName: 'ORG_OWNER' }];

function key(
  id: string,
  roles: NonNullable<AtlasApiKey['roles']>,
  cidrs: string[] = [],
): InventoryApiKeyEntry {
  return {
    apiKey: { id, publicKey: `pub-${id}`, roles },
    accessList: cidrs.map((cidrBlock) => ({ cidrBlock })),
  };
}

function org(
  takenAt: number,
  apiKeys: InventoryApiKeyEntry[],
  more: Pick<InventorySnapshot, 'serviceAccounts'> = {},
): InventorySnapshot {
  return { orgId: ORG, takenAt, apiKeys, ...more };
}

function account(clientId: string, roles: string[], cidrs: string[] = []) {
  return {
    serviceAccount: { clientId, name: clientId.replace('mdb_sa_id_', ''), roles },
    accessList: cidrs.map((cidrBlock) => ({ cidrBlock })),
  };
}

function project(takenAt: number, cidrs: string[]): InventorySnapshot {
  return {
    groupId: PROJECT,
    takenAt,
    apiKeys: [],
    projectAccessList: cidrs.map((cidrBlock) => ({ cidrBlock })),
  };
}

describe('postureFindingId', () => {
  it('reads as scope, subject and entry, each part percent-encoded', () => {
    expect(postureFindingId({ orgId: ORG }, { kind: 'api-key', id: 'k1', entry: '0.0.0.0/0' })).toBe(
      `org/${ORG}/api-key/k1/access-list/0.0.0.0%2F0`,
    );
    expect(
      postureFindingId({ orgId: ORG }, { kind: 'service-account', id: 'mdb_sa_id_1', entry: '::/0' }),
    ).toBe(`org/${ORG}/service-account/mdb_sa_id_1/access-list/::%2F0`);
    expect(postureFindingId({ orgId: ORG }, { kind: 'api-key', id: 'k/1' })).toBe(
      `org/${ORG}/api-key/k%2F1/owner-without-access-list`,
    );
    expect(postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: '0.0.0.0 /0' })).toBe(
      `project/${PROJECT}/access-list/0.0.0.0%20%2F0`,
    );
    expect(postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: "é~!'()*" })).toBe(
      `project/${PROJECT}/access-list/%C3%A9%7E%21%27%28%29%2A`,
    );
  });

  it('cuts an id past 256 characters to its head and a hash of the whole, the same each time', () => {
    // Prepare
    const long = (tail: string) => `${'1'.repeat(300)}${tail}`;

    // Act
    const first = postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: long('a') });
    const again = postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: long('a') });
    const other = postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: long('b') });
    const escapes = postureFindingId({ groupId: PROJECT }, { kind: 'project-entry', entry: '/'.repeat(200) });

    // Assess
    expect(first).toHaveLength(MAX_POSTURE_FINDING_ID_LENGTH);
    expect(first).toMatch(new RegExp(`^project/${PROJECT}/access-list/1+~[0-9a-f]{32}$`));
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(escapes.length).toBeLessThanOrEqual(MAX_POSTURE_FINDING_ID_LENGTH);
    expect(escapes).toMatch(/^[^~]*(%2F)+~[0-9a-f]{32}$/);
  });
});

describe('postureProblems', () => {
  it('lists open and unreadable entries of keys, service accounts and projects, and owners without an access list', () => {
    // Prepare
    const snapshot = org(
      1,
      [
        key('k2', owner),
        key('k1', readOnly, ['10.0.0.0/8', '0.0.0.0/0', '203.0.113.0/24', '0.0.0.0 /0']),
        key('k3', readOnly),
      ],
      {
        serviceAccounts: [
          account('mdb_sa_id_2', ['ORG_OWNER']),
          account('mdb_sa_id_1', ['ORG_MEMBER'], ['::/0']),
          account('mdb_sa_id_3', ['ORG_MEMBER']),
        ],
      },
    );

    // Act
    const ids = postureProblems(snapshot).map((problem) => [problem.id, problem.part, problem.opening.type]);
    const projectIds = postureProblems(project(1, ['198.51.100.0/24', '0.0.0.0/1'])).map(
      (problem) => problem.id,
    );

    // Assess
    expect(ids).toEqual([
      [`org/${ORG}/api-key/k1/access-list/0.0.0.0%2F0`, 'apiKeys', 'INVENTORY_ACCESS_LIST_ENTRY_ADDED'],
      [`org/${ORG}/api-key/k1/access-list/0.0.0.0%20%2F0`, 'apiKeys', 'INVENTORY_ACCESS_LIST_ENTRY_ADDED'],
      [`org/${ORG}/api-key/k2/owner-without-access-list`, 'apiKeys', 'INVENTORY_API_KEY_WITHOUT_ACCESS_LIST'],
      [
        `org/${ORG}/service-account/mdb_sa_id_1/access-list/::%2F0`,
        'serviceAccounts',
        'INVENTORY_SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED',
      ],
      [
        `org/${ORG}/service-account/mdb_sa_id_2/owner-without-access-list`,
        'serviceAccounts',
        'INVENTORY_SERVICE_ACCOUNT_WITHOUT_ACCESS_LIST',
      ],
    ]);
    expect(projectIds).toEqual([`project/${PROJECT}/access-list/0.0.0.0%2F1`]);
  });

  it('gives a problem the same id whatever else changed about its key and entry', () => {
    // Prepare
    const before = org(1, [
      { apiKey: { id: 'k1', roles: owner }, accessList: [{ cidrBlock: ' 0.0.0.0/0' }] },
    ]);
    const after = org(2, [
      {
        apiKey: { id: 'k1', publicKey: 'renamed', desc: 'new', roles: [...owner, ...readOnly] },
        accessList: [{ cidrBlock: '0.0.0.0/0', comment: 'still there' }, { cidrBlock: '10.0.0.0/8' }],
      },
    ]);

    // Act
    const [first, second] = [before, after].map((snapshot) =>
      postureProblems(snapshot).map((problem) => problem.id),
    );

    // Assess
    expect(first).toEqual([`org/${ORG}/api-key/k1/access-list/0.0.0.0%2F0`]);
    expect(second).toEqual(first);
  });

  it('agrees with the comparison: every change that opens a problem names one of the new snapshot, and only those', () => {
    // Prepare
    const previous = org(
      1,
      [key('k1', readOnly), key('k2', readOnly, ['10.0.0.0/8']), key('k3', owner, ['10.0.0.0/8'])],
      {
        serviceAccounts: [account('mdb_sa_id_1', ['ORG_MEMBER'])],
      },
    );
    const current = org(
      2,
      [
        key('k1', owner),
        key('k2', readOnly, ['10.0.0.0/8', '0.0.0.0/0']),
        key('k3', owner),
        key('k4', owner, ['::/0']),
      ],
      {
        serviceAccounts: [
          account('mdb_sa_id_1', ['ORG_OWNER']),
          account('mdb_sa_id_2', ['ORG_MEMBER'], ['0.0.0.0/0']),
        ],
      },
    );

    // Act
    const opened = diffInventory({ previous, current })
      .map((change) => postureFindingOf(change, { orgId: ORG }))
      .filter((id) => id !== undefined);

    // Assess
    expect(opened.sort()).toEqual(
      postureProblems(current)
        .map((problem) => problem.id)
        .sort(),
    );
  });
});

describe('resolvedProblems', () => {
  it('resolves an entry removed or narrowed, an access list added, an owner role removed, and each entry of a key deleted', () => {
    // Prepare
    const previous = org(1, [
      key('k1', readOnly, ['0.0.0.0/0']),
      key('k2', readOnly, ['0.0.0.0/0', '::/0']),
      key('k3', owner),
      key('k4', owner),
      key('k5', owner),
      key('k6', readOnly, ['0.0.0.0/0']),
    ]);
    const current = org(2, [
      key('k1', readOnly, ['198.51.100.0/24']),
      key('k3', owner, ['198.51.100.7/32']),
      key('k4', readOnly),
      key('k5', readOnly, ['198.51.100.7/32']),
      key('k6', readOnly, ['0.0.0.0/0']),
    ]);

    // Act
    const resolved = resolvedProblems({ previous, current });

    // Assess
    expect(
      resolved.map(({ problem, resolution }) => [problem.id.replace(`org/${ORG}/api-key/`, ''), resolution]),
    ).toEqual([
      ['k1/access-list/0.0.0.0%2F0', "the entry was removed from the key's access list"],
      ['k2/access-list/0.0.0.0%2F0', 'the API key was deleted'],
      ['k2/access-list/::%2F0', 'the API key was deleted'],
      ['k3/owner-without-access-list', 'an access list was added'],
      ['k4/owner-without-access-list', 'the owner role was removed'],
      ['k5/owner-without-access-list', 'an access list was added and the owner role was removed'],
    ]);
  });

  it('resolves service-account and project problems, and nothing in a part either snapshot does not hold', () => {
    // Prepare
    const withAccounts = org(1, [], {
      serviceAccounts: [
        account('mdb_sa_id_1', ['ORG_OWNER']),
        account('mdb_sa_id_2', ['ORG_MEMBER'], ['0.0.0.0/0']),
      ],
    });
    const accountsFixed = org(2, [], {
      serviceAccounts: [account('mdb_sa_id_1', ['ORG_OWNER'], ['192.0.2.0/28'])],
    });
    const accountsNotRead = org(2, []);

    // Act
    const accounts = resolvedProblems({ previous: withAccounts, current: accountsFixed });
    const unread = resolvedProblems({ previous: withAccounts, current: accountsNotRead });
    const unreadBefore = resolvedProblems({ previous: accountsNotRead, current: accountsFixed });
    const projects = resolvedProblems({
      previous: project(1, ['0.0.0.0/0']),
      current: project(2, ['10.0.0.0/8']),
    });
    const projectNotRead = resolvedProblems({
      previous: project(1, ['0.0.0.0/0']),
      current: { groupId: PROJECT, takenAt: 2, apiKeys: [] },
    });

    // Assess
    expect(accounts.map(({ problem, resolution }) => [problem.id, resolution])).toEqual([
      [`org/${ORG}/service-account/mdb_sa_id_1/owner-without-access-list`, 'an access list was added'],
      [`org/${ORG}/service-account/mdb_sa_id_2/access-list/0.0.0.0%2F0`, 'the service account was deleted'],
    ]);
    expect(unread).toEqual([]);
    expect(unreadBefore).toEqual([]);
    expect(projects.map(({ problem, resolution }) => [problem.id, resolution])).toEqual([
      [
        `project/${PROJECT}/access-list/0.0.0.0%2F0`,
        "the entry was removed from the project's IP access list",
      ],
    ]);
    expect(projectNotRead).toEqual([]);
  });

  it('says when the problem was first found, as the previous snapshot recorded it', () => {
    // Prepare
    const id = `project/${PROJECT}/access-list/0.0.0.0%2F0`;
    const recorded = { ...project(50, ['0.0.0.0/0']), openFindings: { [id]: { foundAt: 10 } } };
    const older = project(50, ['0.0.0.0/0']);
    const edited = { ...project(50, ['0.0.0.0/0']), openFindings: { [id]: { foundAt: 99 } } };

    // Act
    const [fromRecord, fromOlder, fromEdited] = [recorded, older, edited].map(
      (previous) => resolvedProblems({ previous, current: project(60, []) })[0]?.found,
    );

    // Assess
    expect(fromRecord).toEqual({ foundAt: 10 });
    expect(fromOlder).toEqual({ foundAt: 50, preExisting: true });
    expect(fromEdited).toEqual({ foundAt: 50, preExisting: true });
  });
});

describe('openFindingsSince', () => {
  it('keeps when each problem still open was first found, and marks those a first look found already there', () => {
    // Prepare
    const open = `project/${PROJECT}/access-list/0.0.0.0%2F0`;
    const wide = `project/${PROJECT}/access-list/0.0.0.0%2F1`;
    const first = project(10, ['0.0.0.0/0']);
    const second = {
      ...project(20, ['0.0.0.0/0', '0.0.0.0/1']),
      openFindings: openFindingsSince({ previous: undefined, current: first }),
    };

    // Act
    const since = openFindingsSince({ previous: second, current: project(30, ['0.0.0.0/0', '0.0.0.0/1']) });
    const fresh = openFindingsSince({ previous: first, current: project(20, ['0.0.0.0/0', '0.0.0.0/1']) });

    // Assess
    expect(second.openFindings).toEqual({ [open]: { foundAt: 10, preExisting: true } });
    expect(fresh).toEqual({ [open]: { foundAt: 10, preExisting: true }, [wide]: { foundAt: 20 } });
    expect(since).toEqual({
      [open]: { foundAt: 10, preExisting: true },
      [wide]: { foundAt: 20, preExisting: true },
    });
  });

  it('marks problems of a part no earlier snapshot held as found already there', () => {
    // Prepare
    const previous = org(1, [key('k1', owner, ['10.0.0.0/8'])]);
    const current = org(2, [key('k1', owner)], { serviceAccounts: [account('mdb_sa_id_1', ['ORG_OWNER'])] });

    // Act
    const since = openFindingsSince({ previous, current });

    // Assess
    expect(since).toEqual({
      [`org/${ORG}/api-key/k1/owner-without-access-list`]: { foundAt: 2 },
      [`org/${ORG}/service-account/mdb_sa_id_1/owner-without-access-list`]: { foundAt: 2, preExisting: true },
    });
  });
});
