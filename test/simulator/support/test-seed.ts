import type { SeedData } from '../../../simulator/index.js';

/** Ids and throwaway credentials of the small seed the simulator's HTTP tests run against. */
export const ids = {
  org: '64b5c9e2f1a3d40012ab3c01',
  otherOrg: '64b5c9e2f1a3d40012ab3c02',
  project: '64b5ca17f1a3d40012ab3d11',
  otherProject: '64b5ca17f1a3d40012ab3d12',
  foreignProject: '64b5ca17f1a3d40012ab3d21',
} as const;

export const keys = {
  owner: { id: '64b5cc01f1a3d40012ab3f01', publicKey: 'ownerkey', privateKey: 'fake-private-key-owner' },
  readOnly: {
    id: '64b5cc01f1a3d40012ab3f02',
    publicKey: 'readonly',
    privateKey: 'fake-private-key-read-only',
  },
  member: { id: '64b5cc01f1a3d40012ab3f03', publicKey: 'memberky', privateKey: 'fake-private-key-member' },
  projectOnly: {
    id: '64b5cc01f1a3d40012ab3f04',
    publicKey: 'projonly',
    privateKey: 'fake-private-key-project-only',
  },
  foreign: { id: '64b5cc01f1a3d40012ab3f05', publicKey: 'foreignk', privateKey: 'fake-private-key-foreign' },
} as const;

export const serviceAccount = {
  clientId: 'mdb_sa_id_64b5cd01f1a3d40012ab4001',
  clientSecret: 'mdb_sa_sk_fake-client-secret-for-tests',
} as const;

/** A seed with two orgs, three projects, five keys with different roles and one service account. */
export function testSeed(): SeedData {
  return {
    orgs: [
      { id: ids.org, name: 'Test Org' },
      { id: ids.otherOrg, name: 'Other Org' },
    ],
    projects: [
      { id: ids.project, name: 'main', orgId: ids.org },
      { id: ids.otherProject, name: 'side', orgId: ids.org },
      { id: ids.foreignProject, name: 'foreign', orgId: ids.otherOrg },
    ],
    apiKeys: [
      {
        ...keys.owner,
        desc: 'owner',
        roles: [{ orgId: ids.org, roleName: 'ORG_OWNER' }],
        accessList: [{ cidrBlock: '0.0.0.0/0' }, { cidrBlock: '::/0' }],
      },
      {
        ...keys.readOnly,
        desc: 'read only',
        roles: [{ orgId: ids.org, roleName: 'ORG_READ_ONLY' }],
        accessList: [{ cidrBlock: '203.0.113.0/24' }],
      },
      {
        ...keys.member,
        desc: 'member',
        roles: [
          { orgId: ids.org, roleName: 'ORG_MEMBER' },
          { groupId: ids.project, roleName: 'GROUP_READ_ONLY' },
        ],
        accessList: [{ ipAddress: '127.0.0.1' }],
      },
      {
        ...keys.projectOnly,
        desc: 'project only',
        roles: [{ groupId: ids.project, roleName: 'GROUP_READ_ONLY' }],
      },
      { ...keys.foreign, desc: 'foreign', roles: [{ orgId: ids.otherOrg, roleName: 'ORG_OWNER' }] },
    ],
    serviceAccounts: [
      {
        ...serviceAccount,
        name: 'poller',
        roles: [{ orgId: ids.org, roleName: 'ORG_READ_ONLY' }],
      },
    ],
  };
}
