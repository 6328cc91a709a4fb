import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import {
  authorizationHeader,
  challengeOf,
  DigestSession,
  parseChallenge,
  send,
  V2_ACCEPT,
} from './support/digest-client.js';
import { ids, keys, testSeed } from './support/test-seed.js';

interface ListBody {
  links: Array<{ href: string; rel: string }>;
  results: Array<AtlasEvent & Record<string, unknown>>;
  totalCount?: number;
  status?: number;
}

const T = (minute: number, second = 0): string =>
  `2026-03-01T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}Z`;

describe('simulator queries', () => {
  let sim: AtlasSimulator;
  let owner: DigestSession;
  let added: AtlasEvent[];
  let v2: string;

  const list = async (path: string, headers = V2_ACCEPT): Promise<ListBody> =>
    (await owner.json(`${sim.baseUrl}${path}`, headers)) as unknown as ListBody;
  const idsOf = (body: ListBody): Array<string | undefined> => body.results.map((event) => event.id);
  const linkOf = (body: ListBody, rel: string): string | undefined =>
    body.links.find((link) => link.rel === rel)?.href;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
    v2 = `/api/atlas/v2/groups/${ids.project}/events`;
    added = sim.addEvents({ groupId: ids.project }, [
      { eventTypeName: 'HOST_UP', created: T(0), clusterName: 'alpha' },
      { eventTypeName: 'DATA_EXPLORER', created: T(1), opType: 'find' },
      { eventTypeName: 'DATA_EXPLORER_CRUD', created: T(2), opType: 'deleteDocument' },
      { eventTypeName: 'HOST_UP', created: T(3), clusterName: 'beta' },
      {
        eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
        created: T(4),
        whitelistEntry: '0.0.0.0/0',
        raw: { _t: 'NDS_AUDIT', note: 'given with the event' },
      },
      { eventTypeName: 'MONGODB_USER_ADDED', created: T(5) },
      { eventTypeName: 'HOST_UP', created: T(6) },
    ]);
    sim.addEvents({ orgId: ids.org }, [
      { eventTypeName: 'JOINED_ORG', created: T(1), username: 'someone@example.com' },
      { eventTypeName: 'API_KEY_CREATED', created: T(2), targetPublicKey: 'newkeyab' },
    ]);
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('lists events newest first with totalCount', async () => {
    const body = await list(v2);

    expect(idsOf(body)).toEqual(added.map((event) => event.id).reverse());
    expect(body.totalCount).toBe(7);
  });

  it('pages with a self link repeating the query and a next link only while a page follows', async () => {
    const first = await list(`${v2}?eventType=HOST_UP&eventType=DATA_EXPLORER&itemsPerPage=3`);
    const second = await list(`${v2}?eventType=HOST_UP&eventType=DATA_EXPLORER&itemsPerPage=3&pageNum=2`);

    expect(linkOf(first, 'self')).toBe(
      `${sim.baseUrl}${v2}?eventType=HOST_UP&eventType=DATA_EXPLORER&pageNum=1&itemsPerPage=3`,
    );
    expect(linkOf(first, 'next')).toBe(
      `${sim.baseUrl}${v2}?eventType=HOST_UP&eventType=DATA_EXPLORER&pageNum=2&itemsPerPage=3`,
    );
    expect(first.results).toHaveLength(3);
    expect(second.results).toHaveLength(1);
    expect(linkOf(second, 'next')).toBeUndefined();
    expect(second.totalCount).toBe(4);
  });

  it('fills the default pageNum and itemsPerPage into the self link', async () => {
    const body = await list(v2);

    expect(linkOf(body, 'self')).toBe(`${sim.baseUrl}${v2}?pageNum=1&itemsPerPage=100`);
    expect(linkOf(body, 'next')).toBeUndefined();
  });

  it('gives each result a self link under the prefix the request used', async () => {
    const v1 = `/api/atlas/v1.0/groups/${ids.project}/events`;

    const body = await list(`${v1}?itemsPerPage=1`, { accept: 'application/json' });

    expect(body.results[0]?.links).toEqual([{ href: `${sim.baseUrl}${v1}/${added[6]?.id}`, rel: 'self' }]);
  });

  it('treats minDate and maxDate as inclusive bounds', async () => {
    const body = await list(`${v2}?minDate=${T(2)}&maxDate=${T(4)}`);

    expect(idsOf(body)).toEqual([added[4]?.id, added[3]?.id, added[2]?.id]);
  });

  it('reads dates without seconds or zone as UTC', async () => {
    const body = await list(`${v2}?minDate=2026-03-01T10:05`);

    expect(idsOf(body)).toEqual([added[6]?.id, added[5]?.id]);
  });

  it('takes minDate and maxDate with micro- and nanoseconds, as Atlas clients send them', async () => {
    const micro = await list(`${v2}?minDate=2026-03-01T10:02:00.000000Z&maxDate=2026-03-01T10:04:00.000000Z`);
    const nano = await list(
      `${v2}?minDate=2026-03-01T12:02:00.000000000%2B02:00&maxDate=2026-03-01T10:04:00.5Z`,
    );

    expect(idsOf(micro)).toEqual([added[4]?.id, added[3]?.id, added[2]?.id]);
    expect(idsOf(nano)).toEqual([added[4]?.id, added[3]?.id, added[2]?.id]);
  });

  it('keeps a bound finer than a millisecond inclusive of exactly the events at or inside it', async () => {
    const minAfter = await list(`${v2}?minDate=2026-03-01T10:02:00.000001Z&maxDate=${T(4)}`);
    const maxBefore = await list(`${v2}?minDate=${T(2)}&maxDate=2026-03-01T10:02:59.999999999Z`);

    expect(idsOf(minAfter)).toEqual([added[4]?.id, added[3]?.id]);
    expect(idsOf(maxBefore)).toEqual([added[2]?.id]);
  });

  it('filters on repeated eventType and excludedEventType keys', async () => {
    const included = await list(`${v2}?eventType=DATA_EXPLORER&eventType=MONGODB_USER_ADDED`);
    const excluded = await list(`${v2}?excludedEventType=HOST_UP&excludedEventType=DATA_EXPLORER`);

    expect(included.results.map((event) => event.eventTypeName)).toEqual([
      'MONGODB_USER_ADDED',
      'DATA_EXPLORER',
    ]);
    expect(excluded.results.map((event) => event.eventTypeName)).toEqual([
      'MONGODB_USER_ADDED',
      'NETWORK_PERMISSION_ENTRY_ADDED',
      'DATA_EXPLORER_CRUD',
    ]);
  });

  it('filters project events on repeated clusterNames', async () => {
    const body = await list(`${v2}?clusterNames=alpha&clusterNames=beta`);

    expect(body.results.map((event) => event.clusterName)).toEqual(['beta', 'alpha']);
  });

  it('lists a late event and same-second events in their place', async () => {
    const sameSecond = sim.addEvents({ groupId: ids.otherProject }, [
      { eventTypeName: 'HOST_UP', created: T(30), id: '64b5d0000000000000000001' },
      { eventTypeName: 'HOST_UP', created: T(30), id: '64b5d0000000000000000003' },
      { eventTypeName: 'HOST_UP', created: T(31), id: '64b5d0000000000000000002' },
    ]);
    const late = sim.addEvent(
      { groupId: ids.otherProject },
      { eventTypeName: 'HOST_DOWN', created: T(29, 59) },
    );

    const body = await list(`/api/atlas/v2/groups/${ids.otherProject}/events`);

    expect(idsOf(body)).toEqual([sameSecond[2]?.id, sameSecond[1]?.id, sameSecond[0]?.id, late.id]);
  });

  it('adds raw only with includeRaw=true: the stored one, else one in the Atlas shape', async () => {
    const without = await list(`${v2}?minDate=${T(4)}&maxDate=${T(5)}`);
    const withRaw = await list(`${v2}?minDate=${T(4)}&maxDate=${T(5)}&includeRaw=true`);

    expect(without.results.every((event) => !('raw' in event))).toBe(true);
    expect(withRaw.results[1]?.raw).toEqual({ _t: 'NDS_AUDIT', note: 'given with the event' });
    expect(withRaw.results[0]?.raw).toMatchObject({
      cid: ids.project,
      cre: T(5),
      gn: 'main',
      orgName: 'Test Org',
    });
  });

  it('wraps a list in an envelope by adding status', async () => {
    const body = await list(`${v2}?envelope=true&itemsPerPage=1`);

    expect(body.status).toBe(200);
    expect(body.results).toHaveLength(1);
  });

  it('wraps a single event in an envelope of status and content', async () => {
    const body = await owner.json(`${sim.baseUrl}${v2}/${added[0]?.id}?envelope=true`);

    expect(body).toEqual({ status: 200, content: expect.objectContaining({ id: added[0]?.id }) });
  });

  it('pretty-prints with pretty=true', async () => {
    const result = await owner.get(`${sim.baseUrl}${v2}?pretty=true&itemsPerPage=1`);

    expect(result.text).toMatch(/^\{\n {2}"links": \[/);
    expect(JSON.parse(result.text)).toMatchObject({ totalCount: 7 });
  });

  it('leaves totalCount out with includeCount=false', async () => {
    const body = await list(`${v2}?includeCount=false`);

    expect(body).not.toHaveProperty('totalCount');
  });

  it('reads one project event and one organization event', async () => {
    const projectEvent = await owner.json(`${sim.baseUrl}${v2}/${added[2]?.id}`);
    const orgEvents = await list(`/api/public/v1.0/orgs/${ids.org}/events`, { accept: 'application/json' });
    const orgEvent = await owner.json(
      `${sim.baseUrl}/api/public/v1.0/orgs/${ids.org}/events/${orgEvents.results[0]?.id}`,
      {
        accept: 'application/json',
      },
    );

    expect(projectEvent).toMatchObject({
      eventTypeName: 'DATA_EXPLORER_CRUD',
      groupId: ids.project,
      orgId: ids.org,
    });
    expect(orgEvents.results.map((event) => event.eventTypeName)).toEqual(['API_KEY_CREATED', 'JOINED_ORG']);
    expect(orgEvent).toMatchObject({ eventTypeName: 'API_KEY_CREATED', orgId: ids.org });
    expect(orgEvent.links).toEqual([
      {
        href: `${sim.baseUrl}/api/public/v1.0/orgs/${ids.org}/events/${orgEvents.results[0]?.id}`,
        rel: 'self',
      },
    ]);
  });

  it('lists API keys with masked private keys', async () => {
    const result = await owner.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/apiKeys`);
    const body = JSON.parse(result.text) as ListBody;

    const member = body.results.find((key) => key.publicKey === keys.member.publicKey);
    expect(body.results.map((key) => key.publicKey)).toEqual([
      'ownerkey',
      'readonly',
      'memberky',
      'projonly',
    ]);
    expect(member?.privateKey).toBe('****-*******-***-**mber');
    expect(member?.roles).toEqual([
      { orgId: ids.org, roleName: 'ORG_MEMBER' },
      { groupId: ids.project, roleName: 'GROUP_READ_ONLY' },
    ]);
    expect(result.text).not.toContain(keys.member.privateKey);
    expect(result.text).not.toContain(keys.owner.privateKey);
  });

  it('lists an API key access list and counts the requests that matched it', async () => {
    const path = `/api/atlas/v2/orgs/${ids.org}/apiKeys/${keys.owner.id}/accessList`;

    const first = await list(path);
    const second = await list(path);

    expect(first.results.map((entry) => [entry.cidrBlock, entry.ipAddress])).toEqual([
      ['0.0.0.0/0', null],
      ['::/0', null],
    ]);
    expect(Number(second.results[0]?.count)).toBeGreaterThan(Number(first.results[0]?.count));
    expect(second.results[0]?.lastUsedAddress).toBe('127.0.0.1');
    expect(linkOf(first, 'self')).toBe(`${sim.baseUrl}${path}?pageNum=1&itemsPerPage=100`);
  });

  it("lists an organization's projects", async () => {
    const body = await list(`/api/atlas/v2/orgs/${ids.org}/groups`);

    expect(body.results.map((project) => [project.id, project.name, project.orgId])).toEqual([
      [ids.project, 'main', ids.org],
      [ids.otherProject, 'side', ids.org],
    ]);
  });
});

describe('simulator answers to bad requests', () => {
  let sim: AtlasSimulator;
  let owner: DigestSession;

  const errorOf = async (
    path: string,
    headers = V2_ACCEPT,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }> => {
    const result = await owner.get(`${sim.baseUrl}${path}`, headers);
    return {
      status: result.status,
      body: JSON.parse(result.text) as Record<string, unknown>,
      headers: result.headers,
    };
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('answers 400 for itemsPerPage 501 with the Atlas error body', async () => {
    const v1 = await errorOf(`/api/atlas/v1.0/groups/${ids.project}/events?itemsPerPage=501`, {
      accept: 'application/json',
    });
    const v2 = await errorOf(`/api/atlas/v2/groups/${ids.project}/events?itemsPerPage=501`, {
      accept: 'application/vnd.atlas.2024-08-05+json',
    });

    expect(v1.status).toBe(400);
    expect(v1.body).toEqual({
      detail: expect.stringContaining('itemsPerPage'),
      error: 400,
      errorCode: 'INVALID_ATTRIBUTE',
      parameters: ['itemsPerPage'],
      reason: 'Bad Request',
    });
    expect(v2.body.badRequestDetail).toEqual({
      fields: [{ field: 'itemsPerPage', description: expect.any(String) }],
    });
  });

  it.each([
    ['a malformed minDate', 'minDate=yesterday'],
    ['an impossible maxDate', 'maxDate=2026-02-30T00:00:00Z'],
    ['a minDate with more than nine fractional digits', 'minDate=2026-03-01T10:02:00.0000000001Z'],
    ['pageNum 0', 'pageNum=0'],
    ['a non-boolean includeRaw', 'includeRaw=yes'],
  ])('answers 400 for %s', async (_name, query) => {
    const result = await errorOf(`/api/public/v1.0/groups/${ids.project}/events?${query}`, {
      accept: 'application/json',
    });

    expect(result.status).toBe(400);
    expect(result.body.errorCode).toBe('INVALID_ATTRIBUTE');
  });

  it.each([
    ['an unknown project', `/groups/64b5ca17f1a3d40012ab3d99/events`, 404, 'GROUP_NOT_FOUND'],
    ['a malformed project id', '/groups/not-a-project/events', 400, 'INVALID_GROUP_ID'],
    ['an unknown organization', '/orgs/64b5c9e2f1a3d40012ab3c99/events', 404, 'ORG_NOT_FOUND'],
    ['a malformed organization id', '/orgs/acme/apiKeys', 400, 'INVALID_ORG_ID'],
    ['an unknown event', `/groups/${ids.project}/events/64b5ffffffffffffffffffff`, 404, 'RESOURCE_NOT_FOUND'],
    [
      'an unknown API key',
      `/orgs/${ids.org}/apiKeys/64b5cc01f1a3d40012ab3f99/accessList`,
      404,
      'API_KEY_NOT_FOUND',
    ],
    ['a path the API does not have', '/groups/x/databaseUsers', 404, 'RESOURCE_NOT_FOUND'],
    ['an unknown cluster', `/groups/${ids.project}/dbAccessHistory/clusters/nope`, 404, 'CLUSTER_NOT_FOUND'],
  ])('answers %s with its status and errorCode', async (_name, path, status, errorCode) => {
    const result = await errorOf(`/api/atlas/v2${path}`);

    expect(result.status).toBe(status);
    expect(result.body).toMatchObject({
      error: status,
      errorCode,
      badRequestDetail: { fields: expect.any(Array) },
    });
    expect(typeof result.body.detail).toBe('string');
  });

  it('answers 405 to a method other than GET', async () => {
    const path = `/api/atlas/v2/orgs/${ids.org}/events`;
    const challenge = await send(`${sim.baseUrl}${path}`, { method: 'DELETE', headers: V2_ACCEPT });
    const authorization = authorizationHeader({
      username: keys.owner.publicKey,
      password: keys.owner.privateKey,
      method: 'DELETE',
      uri: path,
      nonce: parseChallenge(challengeOf(challenge)).nonce as string,
    });

    const result = await send(`${sim.baseUrl}${path}`, {
      method: 'DELETE',
      headers: { ...V2_ACCEPT, authorization },
    });

    expect(result.status).toBe(405);
    expect(result.headers.allow).toBe('GET');
    expect(JSON.parse(result.text)).toMatchObject({ errorCode: 'METHOD_NOT_ALLOWED' });
  });
});

describe('simulator API versions and headers', () => {
  let sim: AtlasSimulator;
  let owner: DigestSession;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed(), retiredApiVersions: ['2023-02-01'] });
    owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it.each([
    ['no Accept header', {}],
    ['application/json', { accept: 'application/json' }],
    ['a version before the first', { accept: 'application/vnd.atlas.2022-12-31+json' }],
    ['an impossible date', { accept: 'application/vnd.atlas.2024-13-01+json' }],
  ])('answers v2 with 406 INVALID_VERSION_DATE for %s', async (_name, headers: Record<string, string>) => {
    const result = await owner.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`, headers);

    expect(result.status).toBe(406);
    expect(JSON.parse(result.text)).toMatchObject({ error: 406, errorCode: 'INVALID_VERSION_DATE' });
  });

  it('serves a later dated version and names it in Content-Type', async () => {
    const result = await owner.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`, {
      accept: 'application/json, application/vnd.atlas.2025-03-12+json',
    });

    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toBe('application/vnd.atlas.2025-03-12+json');
  });

  it('answers 410 VERSION_GONE for a retired version', async () => {
    const result = await owner.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`, {
      accept: 'application/vnd.atlas.2023-02-01+json',
    });

    expect(result.status).toBe(410);
    expect(JSON.parse(result.text)).toMatchObject({
      errorCode: 'VERSION_GONE',
      parameters: ['2023-02-01', `api/atlas/v2/orgs/${ids.org}/events`],
    });
  });

  it('sends the documented headers with an exact Content-Length', async () => {
    const result = await owner.get(`${sim.baseUrl}/api/public/v1.0/orgs/${ids.org}/events`, {
      accept: 'application/json',
    });

    expect(result.headers).toMatchObject({
      'content-type': 'application/json',
      vary: 'Accept-Encoding',
      'strict-transport-security': 'max-age=300',
      connection: 'keep-alive',
    });
    expect(result.headers['x-mongodb-service-version']).toMatch(/^gitHash=[0-9a-f]+; versionString=.+$/);
    expect(result.headers.date).toBeDefined();
    expect(Number(result.headers['content-length'])).toBe(Buffer.byteLength(result.text));
  });
});
