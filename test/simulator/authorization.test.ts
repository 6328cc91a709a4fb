import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { DigestSession } from './support/digest-client.js';
import { ids, keys, testSeed } from './support/test-seed.js';

type KeyName = keyof typeof keys;

describe('simulator roles', () => {
  let sim: AtlasSimulator;
  const sessions = {} as Record<KeyName, DigestSession>;

  const status = async (key: KeyName, path: string): Promise<number> =>
    (await sessions[key].get(`${sim.baseUrl}/api/atlas/v2${path}`)).status;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    for (const [name, key] of Object.entries(keys)) {
      sessions[name as KeyName] = new DigestSession({ username: key.publicKey, password: key.privateKey });
    }
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('lets project events be read with a project role or an org role that implies one', async () => {
    const path = `/groups/${ids.project}/events`;

    const statuses = await Promise.all(
      (['owner', 'readOnly', 'member', 'projectOnly', 'foreign'] as const).map((key) => status(key, path)),
    );

    expect(statuses).toEqual([200, 200, 200, 200, 403]);
  });

  it('refuses project events of another project to an Organization Member', async () => {
    const result = await sessions.member.get(`${sim.baseUrl}/api/atlas/v2/groups/${ids.otherProject}/events`);

    expect(result.status).toBe(403);
    expect(JSON.parse(result.text)).toMatchObject({
      error: 403,
      errorCode: 'USER_UNAUTHORIZED',
      reason: 'Forbidden',
      detail: expect.stringContaining('Project Read Only'),
    });
  });

  it('lets org events, API keys and access lists be read by Organization Member or higher only', async () => {
    const paths = [
      `/orgs/${ids.org}/events`,
      `/orgs/${ids.org}/apiKeys`,
      `/orgs/${ids.org}/apiKeys/${keys.owner.id}/accessList`,
    ];

    const member = await Promise.all(paths.map((path) => status('member', path)));
    const projectOnly = await Promise.all(paths.map((path) => status('projectOnly', path)));
    const foreign = await Promise.all(paths.map((path) => status('foreign', path)));

    expect(member).toEqual([200, 200, 200]);
    expect(projectOnly).toEqual([403, 403, 403]);
    expect(foreign).toEqual([403, 403, 403]);
  });

  it('lists to each key only the projects it can read', async () => {
    const path = `${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/groups`;

    const owner = (await sessions.owner.json(path)) as { results: Array<{ id: string }> };
    const member = (await sessions.member.json(path)) as { results: Array<{ id: string }> };

    expect(owner.results.map((project) => project.id)).toEqual([ids.project, ids.otherProject]);
    expect(member.results.map((project) => project.id)).toEqual([ids.project]);
  });

  it('checks existence before roles: an unknown project is 404 even without a role', async () => {
    const result = await status('foreign', '/groups/64b5ca17f1a3d40012ab3d99/events');

    expect(result).toBe(404);
  });
});

describe('simulator access-list enforcement', () => {
  let sim: AtlasSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed(), enforceAccessList: true });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('refuses a key whose access list does not cover the caller with IP_ADDRESS_NOT_ON_ACCESS_LIST', async () => {
    const session = new DigestSession({
      username: keys.readOnly.publicKey,
      password: keys.readOnly.privateKey,
    });

    const result = await session.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`);

    expect(result.status).toBe(403);
    expect(JSON.parse(result.text)).toMatchObject({
      errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
      detail: 'IP address 127.0.0.1 is not allowed to access this resource.',
    });
  });

  it('refuses a key with an empty access list', async () => {
    const session = new DigestSession({
      username: keys.projectOnly.publicKey,
      password: keys.projectOnly.privateKey,
    });

    const result = await session.get(`${sim.baseUrl}/api/atlas/v2/groups/${ids.project}/events`);

    expect(result.status).toBe(403);
  });

  it('serves keys whose access list covers the caller', async () => {
    const member = new DigestSession({ username: keys.member.publicKey, password: keys.member.privateKey });
    const owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });

    const statuses = [
      (await member.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`)).status,
      (await owner.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`)).status,
    ];

    expect(statuses).toEqual([200, 200]);
  });
});
