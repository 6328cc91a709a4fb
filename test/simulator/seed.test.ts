import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeedValidationError } from '../../simulator/errors.js';
import { createObjectIdGenerator } from '../../simulator/object-id.js';
import { DEFAULT_SEED_PATH, loadSeedFile, parseSeed } from '../../simulator/seed-loader.js';
import type { SeedData, ValidSeed } from '../../simulator/seed-schema.js';
import { SimulatorData } from '../../simulator/simulator-data.js';

const ORG = '64b5c9e2f1a3d40012ab3c01';
const PROJECT = '64b5ca17f1a3d40012ab3d11';

function minimalSeed(): SeedData {
  return {
    orgs: [{ id: ORG, name: 'Org' }],
    projects: [{ id: PROJECT, name: 'project', orgId: ORG }],
    apiKeys: [
      {
        id: '64b5cc01f1a3d40012ab3f01',
        desc: 'key',
        publicKey: 'abcdefgh',
        privateKey: 'fake-private-key-for-tests',
        roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }],
      },
    ],
  };
}

function validationError(input: unknown): SeedValidationError {
  try {
    parseSeed(input, 'test seed');
  } catch (error) {
    if (error instanceof SeedValidationError) return error;
    throw error;
  }
  throw new Error('expected the seed to be rejected');
}

function allEvents(
  seed: ValidSeed,
): Array<{ scope: 'org' | 'group'; eventTypeName: string; event: Record<string, unknown> }> {
  return [
    ...seed.orgs.flatMap((org) =>
      org.events.map((event) => ({ scope: 'org' as const, eventTypeName: event.eventTypeName, event })),
    ),
    ...seed.projects.flatMap((project) =>
      project.events.map((event) => ({ scope: 'group' as const, eventTypeName: event.eventTypeName, event })),
    ),
  ];
}

describe('default seed', () => {
  let seed: ValidSeed;

  beforeAll(async () => {
    seed = await loadSeedFile(DEFAULT_SEED_PATH);
  });

  it('holds two organizations, several projects, API keys and two service accounts', () => {
    const shape = {
      orgs: seed.orgs.length,
      projects: seed.projects.length,
      apiKeys: seed.apiKeys.length,
      serviceAccounts: seed.serviceAccounts.length,
    };

    expect(shape).toEqual({ orgs: 2, projects: 5, apiKeys: 5, serviceAccounts: 2 });
  });

  it('lists first an owner key whose access list is open to the internet', () => {
    const first = seed.apiKeys[0];

    expect(first?.roles).toContainEqual({ orgId: ORG, roleName: 'ORG_OWNER' });
    expect(first?.accessList.map((entry) => entry.cidrBlock)).toContain('0.0.0.0/0');
  });

  it('covers every event type the rule pack alerts on', () => {
    const required = [
      'API_KEY_CREATED',
      'API_KEY_DELETED',
      'API_KEY_ROLES_CHANGED',
      'API_KEY_ADDED_TO_GROUP',
      'API_KEY_ACCESS_LIST_ENTRY_ADDED',
      'SERVICE_ACCOUNT_CREATED',
      'SERVICE_ACCOUNT_SECRET_ADDED',
      'SERVICE_ACCOUNT_ROLES_CHANGED',
      'SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED',
      'NETWORK_PERMISSION_ENTRY_ADDED',
      'DATA_EXPLORER',
      'DATA_EXPLORER_CRUD',
      'MONGODB_USER_ADDED',
      'MONGODB_USER_UPDATED',
      'MONGODB_USER_DELETED',
      'MONGODB_ROLE_ADDED',
      'MONGODB_ROLE_UPDATED',
      'MONGODB_ROLE_DELETED',
      'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
      'ORG_TWO_FACTOR_AUTH_OPTIONAL',
      'ORG_PUBLIC_API_ACCESS_LIST_NOT_REQUIRED',
      'ALERT_CONFIG_DISABLED_AUDIT',
      'ALERT_CONFIG_DELETED_AUDIT',
      'INVITED_TO_ORG',
      'CLUSTER_DELETE_SUBMITTED',
      'GROUP_DELETED',
      'CPS_SNAPSHOT_DELETED_AUDIT',
      'OUTSIDE_METRIC_THRESHOLD',
    ];

    const present = new Set(allEvents(seed).map((entry) => entry.eventTypeName));

    expect(required.filter((type) => !present.has(type))).toEqual([]);
  });

  it('holds the variants rules tell apart', () => {
    const events = allEvents(seed).map((entry) => entry.event);
    const has = (predicate: (event: Record<string, unknown>) => boolean): boolean => events.some(predicate);

    const variants = {
      openNetworkEntry: has(
        (e) => e.eventTypeName === 'NETWORK_PERMISSION_ENTRY_ADDED' && e.whitelistEntry === '0.0.0.0/0',
      ),
      privateNetworkEntry: has(
        (e) =>
          e.eventTypeName === 'NETWORK_PERMISSION_ENTRY_ADDED' && String(e.whitelistEntry).startsWith('10.'),
      ),
      openKeyAccessList: has(
        (e) => e.eventTypeName === 'API_KEY_ACCESS_LIST_ENTRY_ADDED' && e.whitelistEntry === '0.0.0.0/0',
      ),
      destructiveCrud: has((e) => e.eventTypeName === 'DATA_EXPLORER_CRUD' && e.opType === 'deleteDocument'),
      harmlessCrud: has((e) => e.eventTypeName === 'DATA_EXPLORER_CRUD' && e.opType === 'insertDocument'),
      destructiveExplorer: has((e) => e.eventTypeName === 'DATA_EXPLORER' && e.opType === 'dropCollection'),
      outsideInvite: has(
        (e) => e.eventTypeName === 'INVITED_TO_ORG' && !String(e.targetUsername).endsWith('@acme.example'),
      ),
      usersAndRolesDiffs: has(
        (e) =>
          Array.isArray(e.diffs) &&
          e.diffs.some((d: { type?: string }) => d.type === 'USERS') &&
          e.diffs.some(
            (d: { type?: string; priviileges?: unknown }) =>
              d.type === 'ROLES' && Array.isArray(d.priviileges),
          ),
      ),
      apiKeyActor: has((e) => typeof e.publicKey === 'string' && e.userId === undefined),
    };

    expect(Object.entries(variants).filter(([, present]) => !present)).toEqual([]);
  });

  // Every project and org event type name of the Atlas Admin API v2 specification (its source is in the file).
  const eventTypesFile = join(import.meta.dirname, 'fixtures/event-types.json');

  it('uses only event type names Atlas defines for each scope', () => {
    const names = JSON.parse(readFileSync(eventTypesFile, 'utf8')) as { group: string[]; org: string[] };
    const known = { group: new Set(names.group), org: new Set(names.org) };

    const unknown = allEvents(seed).filter((entry) => !known[entry.scope].has(entry.eventTypeName));

    expect(unknown).toEqual([]);
  });

  it('places all but one historical event within the last hour of the start', () => {
    const startedAt = Date.parse('2026-03-01T12:00:00Z');
    const data = new SimulatorData({ seed, startedAt, ids: createObjectIdGenerator({ seed: 1 }) });
    const times = [...data.orgs.values(), ...data.projects.values()].flatMap((scope) =>
      Array.from({ length: scope.log.size }, (_, i) => scope.log.at(i)?.createdMs ?? 0),
    );

    const older = times.filter((time) => time < startedAt - 3_600_000);

    expect(times.every((time) => time <= startedAt)).toBe(true);
    expect(older).toHaveLength(1);
  });
});

describe('seed data with relative times', () => {
  it('counts secondsAgo back from the start, in whole seconds, and generates 24-hex ids', () => {
    const startedAt = Date.parse('2026-03-01T12:00:00.750Z');
    const seed = parseSeed(
      {
        ...minimalSeed(),
        projects: [
          { id: PROJECT, name: 'p', orgId: ORG, events: [{ eventTypeName: 'HOST_UP', secondsAgo: 90 }] },
        ],
      },
      'inline',
    );

    const data = new SimulatorData({ seed, startedAt, ids: createObjectIdGenerator({ seed: 1 }) });

    const event = data.projects.get(PROJECT)?.log.at(0);
    expect(event?.body.created).toBe('2026-03-01T11:58:30Z');
    expect(event?.id).toMatch(/^[0-9a-f]{24}$/);
    expect(event?.body).toMatchObject({ groupId: PROJECT, orgId: ORG, eventTypeName: 'HOST_UP' });
  });
});

describe('seed validation', () => {
  it('accepts a minimal seed', () => {
    const seed = parseSeed(minimalSeed(), 'inline');

    expect(seed.apiKeys[0]?.accessList).toEqual([]);
  });

  it.each([
    ['a malformed id', { ...minimalSeed(), orgs: [{ id: 'not-an-id', name: 'Org' }] }, 'orgs[0].id'],
    [
      'a project of an unknown organization',
      { ...minimalSeed(), projects: [{ id: PROJECT, name: 'p', orgId: '64b5c9e2f1a3d40012ab3c99' }] },
      'projects[0].orgId',
    ],
    ['a misspelled key', { ...minimalSeed(), organisations: [] }, 'organisations'],
    [
      'a role on an unknown project',
      {
        ...minimalSeed(),
        apiKeys: [
          {
            id: '64b5cc01f1a3d40012ab3f01',
            desc: 'k',
            publicKey: 'abcdefgh',
            privateKey: 'fake-private-key-for-tests',
            roles: [{ groupId: '64b5ca17f1a3d40012ab3d99', roleName: 'GROUP_READ_ONLY' }],
          },
        ],
      },
      'apiKeys[0].roles[0].groupId',
    ],
    [
      'an event with both created and secondsAgo',
      {
        ...minimalSeed(),
        orgs: [
          {
            id: ORG,
            name: 'Org',
            events: [{ eventTypeName: 'JOINED_ORG', created: '2026-01-01T00:00:00Z', secondsAgo: 5 }],
          },
        ],
      },
      'orgs[0].events[0]',
    ],
    ['no organization at all', { orgs: [] }, 'orgs'],
  ])('rejects %s, naming the field', (_name, input, path) => {
    const error = validationError(input);

    expect(error.code).toBe('SIMULATOR_SEED_INVALID');
    expect(error.message).toContain('test seed');
    expect(error.issues.some((issue) => issue.startsWith(path))).toBe(true);
  });

  it('rejects duplicate public keys', () => {
    const seed = minimalSeed();
    const key = seed.apiKeys?.[0];
    const input = { ...seed, apiKeys: [key, { ...key, id: '64b5cc01f1a3d40012ab3f02' }] };

    const error = validationError(input);

    expect(error.issues).toContain('apiKeys[1].publicKey: duplicate public key abcdefgh');
  });
});

describe('seed files', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'simulator-seed-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a file that is not JSON', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{ "orgs": [');

    const result = loadSeedFile(path);

    await expect(result).rejects.toThrow(SeedValidationError);
    await expect(result).rejects.toThrow(`Seed file ${path} is not valid JSON`);
  });

  it('reports a file that does not exist', async () => {
    const result = loadSeedFile(join(dir, 'missing.json'));

    await expect(result).rejects.toThrow(/Cannot read seed file .*missing\.json/);
  });
});
