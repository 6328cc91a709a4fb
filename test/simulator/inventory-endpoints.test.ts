import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';

const V2 = 'application/vnd.atlas.2023-01-01+json';
const V2_SERVICE_ACCOUNTS = 'application/vnd.atlas.2024-08-05+json';

describe('simulator inventory endpoints, default seed', () => {
  let sim: AtlasSimulator;
  let acme: string;
  let internalTools: string;

  const get = (path: string, accept = V2): Promise<Response> =>
    fetch(`${sim.baseUrl}${path}`, { headers: { accept } });

  beforeAll(async () => {
    sim = await startSimulator({ unauthenticatedAccess: true });
    acme = sim.orgs.find((org) => org.name === 'Acme Corp')?.id ?? '';
    internalTools = sim.projects.find((project) => project.name === 'internal-tools')?.id ?? '';
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('lists the service accounts of an organization with role names and no secrets, in version 2024-08-05', async () => {
    const response = await get(`/api/atlas/v2/orgs/${acme}/serviceAccounts`, V2_SERVICE_ACCOUNTS);
    const body = (await response.json()) as { results: Array<Record<string, unknown>> };

    expect(response.status).toBe(200);
    expect(body.results.map((account) => [account.name, account.roles, account.secrets])).toEqual([
      ['audit-poller', ['ORG_READ_ONLY'], []],
      ['terraform', ['ORG_MEMBER'], []],
    ]);
    expect(JSON.stringify(body)).not.toContain('fake-client-secret');
  });

  it('answers 406 for service accounts asked in version 2023-01-01, and 404 on Ops Manager', async () => {
    const old = await get(`/api/atlas/v2/orgs/${acme}/serviceAccounts`);
    const opsManager = await get(`/api/public/v1.0/orgs/${acme}/serviceAccounts`, 'application/json');

    expect(old.status).toBe(406);
    expect(opsManager.status).toBe(404);
  });

  it("lists a service account's access list and a project's IP access list", async () => {
    const account = await get(
      `/api/atlas/v2/orgs/${acme}/serviceAccounts/mdb_sa_id_64b5cd01f1a3d40012ab4002/accessList`,
      V2_SERVICE_ACCOUNTS,
    );
    const project = await get(`/api/atlas/v2/groups/${internalTools}/accessList`);

    expect(((await account.json()) as { results: unknown[] }).results).toMatchObject([
      { cidrBlock: '192.0.2.0/28', requestCount: 0 },
    ]);
    expect(((await project.json()) as { results: unknown[] }).results).toMatchObject([
      { cidrBlock: '0.0.0.0/0', comment: 'Temporary: remove after the migration', groupId: internalTools },
    ]);
  });

  it('answers 400 VALIDATION_ERROR for an unknown event type and for one of the other scope', async () => {
    const unknown = await get(`/api/atlas/v2/groups/${internalTools}/events?eventType=NOT_A_TYPE`);
    const orgOnly = await get(`/api/atlas/v2/groups/${internalTools}/events?eventType=JOINED_ORG`);
    const projectOnly = await get(`/api/atlas/v2/orgs/${acme}/events?eventType=CLUSTER_CREATED`);
    const known = await get(`/api/atlas/v2/orgs/${acme}/events?eventType=JOINED_ORG`);

    for (const response of [unknown, orgOnly, projectOnly]) {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 400, errorCode: 'VALIDATION_ERROR' });
    }
    expect(known.status).toBe(200);
  });

  it('sends RateLimit-Limit and a decreasing RateLimit-Remaining with every answer', async () => {
    const first = await get(`/api/atlas/v2/groups/${internalTools}/accessList`);
    const second = await get(`/api/atlas/v2/groups/${internalTools}/accessList`);

    expect(first.headers.get('ratelimit-limit')).toBe('100');
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(
      Number(first.headers.get('ratelimit-remaining')) - 1,
    );
  });
});

describe('simulator rate-limit headers, with the limit given', () => {
  it('announces the rate limit it was started with and counts it down', async () => {
    const sim = await startSimulator({ unauthenticatedAccess: true, rateLimitPerMinute: 1_000 });
    try {
      const url = `${sim.baseUrl}/api/atlas/v2/groups/${sim.projects[0]?.id ?? ''}/accessList`;
      const first = await fetch(url, { headers: { accept: V2 } });
      const second = await fetch(url, { headers: { accept: V2 } });

      expect(first.headers.get('ratelimit-limit')).toBe('1000');
      expect(first.headers.get('ratelimit-remaining')).toBe('999');
      expect(second.headers.get('ratelimit-remaining')).toBe('998');
    } finally {
      await sim.stop();
    }
  });

  it('counts each project and organization in a bucket of its own, as Atlas scopes its limits', async () => {
    const sim = await startSimulator({ unauthenticatedAccess: true, rateLimitPerMinute: 50 });
    try {
      const [first, second] = sim.projects;
      const remaining = async (path: string): Promise<string | null> =>
        (await fetch(`${sim.baseUrl}/api/atlas/v2${path}`, { headers: { accept: V2 } })).headers.get(
          'ratelimit-remaining',
        );

      expect(await remaining(`/groups/${first?.id ?? ''}/accessList`)).toBe('49');
      expect(await remaining(`/groups/${first?.id ?? ''}/events`)).toBe('48');
      expect(await remaining(`/groups/${second?.id ?? ''}/accessList`)).toBe('49');
      expect(await remaining(`/orgs/${first?.orgId ?? ''}/events`)).toBe('49');
      expect(await remaining(`/groups/${first?.id ?? ''}`)).toBe('47');
    } finally {
      await sim.stop();
    }
  });
});
