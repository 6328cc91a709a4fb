import { afterEach, describe, expect, it } from 'vitest';
import { AtlasRequestError, AtlasResponseError } from '../../shared/atlas/errors.js';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { RecordedRequest } from '../support/digest-server.js';
import { listPage } from '../support/digest-server.js';
import { type ClientHarness, type HarnessOptions, startClientHarness } from './client-harness.js';

const ORG = '5f4e3d2c1b0a998877665544';
const GROUP = '6a5b4c3d2e1f009988776655';

const harnesses: ClientHarness[] = [];

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close();
  }
});

async function harness(options: HarnessOptions = {}): Promise<ClientHarness> {
  const started = await startClientHarness(options);
  harnesses.push(started);
  return started;
}

function events(count: number, from = 0): AtlasEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `event-${from + index}`,
    eventTypeName: 'API_KEY_CREATED',
    created: '2024-05-01T00:00:00Z',
  }));
}

/** A route serving `all` in pages of `size`, with next links built from the request and a lying totalCount. */
function paginate(all: unknown[], size: number, origin: () => string) {
  return (request: RecordedRequest) => {
    const pageNum = Number(request.url.searchParams.get('pageNum') ?? '1');
    const results = all.slice((pageNum - 1) * size, pageNum * size);
    const nextQuery = new URLSearchParams(request.url.searchParams);
    nextQuery.set('pageNum', String(pageNum + 1));
    const hasNext = pageNum * size < all.length;
    return {
      body: listPage(results, {
        self: `${origin()}${request.target}`,
        ...(hasNext ? { next: `${origin()}${request.url.pathname}?${nextQuery}` } : {}),
        totalCount: 3,
      }),
    };
  };
}

describe('AtlasClient lists', () => {
  it('follows next links across every page and ignores a totalCount that lies', async () => {
    const all = events(7);
    let origin = '';
    const { client, server } = await harness({ server: { route: paginate(all, 3, () => origin) } });
    origin = server.baseUrl;

    const received = await client.listProjectEvents(GROUP, { itemsPerPage: 3 }).toArray();

    expect(received.map((event) => event.id)).toEqual(all.map((event) => event.id));
    const pages = server.requests.filter((request) => request.status === 200);
    expect(pages.map((request) => request.url.searchParams.get('pageNum'))).toEqual([null, '2', '3']);
  });

  it('yields pages with their number, size and totalCount for progress', async () => {
    let origin = '';
    const { client, server } = await harness({ server: { route: paginate(events(5), 2, () => origin) } });
    origin = server.baseUrl;

    const pages = [];
    for await (const page of client.listOrgEvents(ORG, { itemsPerPage: 2 }).pages()) {
      pages.push({
        pageNum: page.pageNum,
        size: page.items.length,
        total: page.totalCount,
        next: page.hasNext,
      });
    }

    expect(pages).toEqual([
      { pageNum: 1, size: 2, total: 3, next: true },
      { pageNum: 2, size: 2, total: 3, next: true },
      { pageNum: 3, size: 1, total: 3, next: false },
    ]);
  });

  it('costs one request per page plus one challenge for the whole walk', async () => {
    let origin = '';
    const { client, server } = await harness({ server: { route: paginate(events(10), 2, () => origin) } });
    origin = server.baseUrl;

    await client.listProjectEvents(GROUP, { itemsPerPage: 2 }).toArray();

    expect(server.requests).toHaveLength(5 + 1);
    expect(server.challenges()).toBe(1);
    expect(client.stats).toMatchObject({ requests: 6, authRoundTrips: 1, retries: 0 });
  });

  it('stops fetching when the caller stops iterating', async () => {
    let origin = '';
    const { client, server } = await harness({ server: { route: paginate(events(10), 2, () => origin) } });
    origin = server.baseUrl;

    for await (const event of client.listProjectEvents(GROUP, { itemsPerPage: 2 })) {
      if (event.id === 'event-0') {
        break;
      }
    }

    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(1);
  });

  it('stops at an empty page even when it carries a next link', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) => ({
          body: listPage([], {
            self: request.target,
            next: `${server.baseUrl}${request.url.pathname}?pageNum=9`,
          }),
        }),
      },
    });

    const received = await client.listOrgEvents(ORG).toArray();

    expect(received).toEqual([]);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(1);
  });

  it('keeps next-link requests on its own origin, whatever host the link names', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) =>
          request.url.searchParams.get('pageNum') === '2'
            ? { body: listPage(events(1, 1), { self: request.target }) }
            : {
                body: listPage(events(1), {
                  self: request.target,
                  next: 'https://elsewhere.example.com/api/public/v1.0/orgs/5f4e3d2c1b0a998877665544/events?pageNum=2&itemsPerPage=500',
                }),
              },
      },
    });

    const received = await client.listOrgEvents(ORG).toArray();

    expect(received.map((event) => event.id)).toEqual(['event-0', 'event-1']);
    expect(server.requests.at(-1)?.target).toBe(
      `/api/public/v1.0/orgs/${ORG}/events?pageNum=2&itemsPerPage=500`,
    );
  });

  it('puts back query keys a next link dropped, so the filter cannot widen', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) =>
          request.url.searchParams.get('pageNum') === '2'
            ? { body: listPage(events(1, 1), { self: request.target }) }
            : {
                body: listPage(events(1), {
                  self: request.target,
                  next: `${server.baseUrl}/api/public/v1.0/groups/${GROUP}/events?pageNum=2`,
                }),
              },
      },
    });

    await client.listProjectEvents(GROUP, { eventTypes: ['A_TYPE', 'B_TYPE'], itemsPerPage: 1 }).toArray();

    const second = server.requests.at(-1);
    expect(second?.url.searchParams.getAll('eventType')).toEqual(['A_TYPE', 'B_TYPE']);
    expect(second?.url.searchParams.get('itemsPerPage')).toBe('1');
  });

  it('refuses a next link back to a page already read', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) => ({
          body: listPage(events(1), {
            self: request.target,
            next: `${server.baseUrl}/api/public/v1.0/orgs/${ORG}/events?pageNum=1&itemsPerPage=500`,
          }),
        }),
      },
    });

    await expect(client.listOrgEvents(ORG).toArray()).rejects.toThrow(AtlasResponseError);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(1);
  });

  it('refuses a next link to another resource', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) => ({
          body: listPage(events(1), {
            self: request.target,
            next: `${server.baseUrl}/api/public/v1.0/orgs/${ORG}/apiKeys?pageNum=2`,
          }),
        }),
      },
    });

    await expect(client.listOrgEvents(ORG).toArray()).rejects.toThrow(/next link to another resource/);
  });

  it('sends event types as repeated keys and dates as ISO-8601 UTC', async () => {
    const { client, server } = await harness({
      server: { route: () => ({ body: listPage([], { self: '' }) }) },
    });

    await client
      .listProjectEvents(GROUP, {
        eventTypes: ['API_KEY_CREATED', 'JOINED_GROUP'],
        minDate: '2024-05-01T02:00:00+02:00',
        maxDate: new Date('2024-05-02T00:00:00.250Z'),
        includeRaw: true,
      })
      .toArray();

    const query = server.requests.at(-1)?.url.searchParams;
    expect(query?.getAll('eventType')).toEqual(['API_KEY_CREATED', 'JOINED_GROUP']);
    expect(query?.get('minDate')).toBe('2024-05-01T00:00:00Z');
    expect(query?.get('maxDate')).toBe('2024-05-02T00:00:00.250Z');
    expect(query?.get('includeRaw')).toBe('true');
    expect(query?.get('itemsPerPage')).toBe('500');
  });

  it.each([0, 501, 2.5])('rejects itemsPerPage %s before sending anything', async (itemsPerPage) => {
    const { client, server } = await harness();

    expect(() => client.listOrgEvents(ORG, { itemsPerPage })).toThrow(AtlasRequestError);
    expect(() => client.listApiKeys(ORG, { itemsPerPage })).toThrow(/itemsPerPage/);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['a date-time without a time zone', { minDate: '2024-05-01T00:00:00' }],
    ['text that is not a date', { maxDate: 'yesterday' }],
    ['minDate after maxDate', { minDate: '2024-05-02', maxDate: '2024-05-01' }],
    ['an event type that is not a name', { eventTypes: ['A&B=C'] }],
  ])('rejects %s before sending anything', async (_label, filter) => {
    const { client, server } = await harness();

    expect(() => client.listProjectEvents(GROUP, filter)).toThrow(AtlasRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it.each(['../orgs', 'a/b', 'x?y=1', '', '%2e%2e'])('refuses the path id %j before sending', async (id) => {
    const { client, server } = await harness();

    expect(() => client.listOrgEvents(id)).toThrow(AtlasRequestError);
    await expect(client.getProjectEvent(GROUP, id)).rejects.toThrow(AtlasRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it('masks privateKey even when the server returns it in full', async () => {
    const { client } = await harness({
      server: {
        route: () => ({
          body: listPage(
            [
              { id: 'k1', publicKey: 'abcdefgh', privateKey: 'fake-private-key-served-in-full' },
              { id: 'k2', publicKey: 'ijklmnop', privateKey: '********-****-****-db2c132ca78d' },
              { id: 'k3', publicKey: 'qrstuvwx', privateKey: 'short' },
            ],
            { self: '' },
          ),
        }),
      },
    });

    const keys = await client.listApiKeys(ORG).toArray();

    expect(keys.map((key) => key.privateKey)).toEqual(['********full', '********a78d', '********']);
  });

  it('reads access lists and projects at their documented paths', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) =>
          request.url.pathname.endsWith('/accessList')
            ? { body: listPage([{ cidrBlock: '203.0.113.0/24', count: 3 }], { self: '' }) }
            : { body: listPage([{ id: GROUP, name: 'prod' }], { self: '' }) },
      },
    });

    const entries = await client.listApiKeyAccessList(ORG, 'key-1').toArray();
    const projects = await client.listOrgProjects(ORG).toArray();

    expect(entries).toEqual([{ cidrBlock: '203.0.113.0/24', count: 3 }]);
    expect(projects).toEqual([{ id: GROUP, name: 'prod' }]);
    expect(
      server.requests.filter((request) => request.status === 200).map((request) => request.url.pathname),
    ).toEqual([
      `/api/public/v1.0/orgs/${ORG}/apiKeys/key-1/accessList`,
      `/api/public/v1.0/orgs/${ORG}/groups`,
    ]);
  });

  it('reads one project event and one org event, with includeRaw when asked', async () => {
    const { client, server } = await harness({
      server: { route: (request) => ({ body: { id: request.url.pathname.split('/').at(-1), raw: {} } }) },
    });

    const projectEvent = await client.getProjectEvent(GROUP, 'e1', { includeRaw: true });
    const orgEvent = await client.getOrgEvent(ORG, 'e2');

    expect(projectEvent.id).toBe('e1');
    expect(orgEvent.id).toBe('e2');
    expect(
      server.requests.filter((request) => request.status === 200).map((request) => request.target),
    ).toEqual([
      `/api/public/v1.0/groups/${GROUP}/events/e1?includeRaw=true`,
      `/api/public/v1.0/orgs/${ORG}/events/e2`,
    ]);
  });

  it('unwraps enveloped single results and enveloped lists', async () => {
    const { client } = await harness({
      server: {
        route: (request) =>
          request.url.pathname.endsWith('/events')
            ? { body: { status: 200, ...listPage(events(2), { self: '' }) } }
            : { body: { status: 200, content: { id: 'e1', eventTypeName: 'JOINED_GROUP' } } },
      },
    });

    const single = await client.getOrgEvent(ORG, 'e1');
    const list = await client.listOrgEvents(ORG).toArray();

    expect(single).toEqual({ id: 'e1', eventTypeName: 'JOINED_GROUP' });
    expect(list.map((event) => event.id)).toEqual(['event-0', 'event-1']);
  });

  it('reads the status inside an envelope that wraps an error', async () => {
    const { client } = await harness({
      server: {
        route: () => ({
          body: {
            status: 404,
            content: { error: 404, errorCode: 'RESOURCE_NOT_FOUND', detail: 'No event.' },
          },
        }),
      },
    });

    await expect(client.getOrgEvent(ORG, 'e1')).rejects.toMatchObject({
      name: 'AtlasNotFoundError',
      status: 404,
      errorCode: 'RESOURCE_NOT_FOUND',
    });
  });

  it('refuses a list page without results, and an item of the wrong shape, without retrying', async () => {
    const { client, server } = await harness({
      server: {
        route: (request) =>
          request.url.pathname.endsWith('/events')
            ? { body: { links: [] } }
            : { body: listPage([{ desc: 'no id' }], { self: '' }) },
      },
    });

    await expect(client.listOrgEvents(ORG).toArray()).rejects.toThrow(/without a results array/);
    await expect(client.listApiKeys(ORG).toArray()).rejects.toThrow(/API key without a string id/);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(2);
  });

  it('refuses a page of more than 500 items, as Atlas never sends, rather than taking in 200,000', async () => {
    // Prepare
    const entries = Array.from({ length: 200_000 }, (_, index) => ({
      cidrBlock: `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}/32`,
    }));
    const { client } = await harness({
      server: { route: () => ({ body: listPage(entries, { self: '' }) }) },
    });

    // Act
    const read = client.listProjectAccessList(GROUP).toArray();

    // Assess
    await expect(read).rejects.toThrow(AtlasResponseError);
    await expect(read).rejects.toThrow(/a page of 200000 items, more than the 500 Atlas sends at most/);
  });

  it('takes a page of 500 items, the most Atlas sends', async () => {
    // Prepare
    const { client } = await harness({
      server: { route: () => ({ body: listPage(events(500), { self: '' }) }) },
    });

    // Act
    const read = await client.listProjectEvents(GROUP).toArray();

    // Assess
    expect(read).toHaveLength(500);
  });
});

describe('AtlasClient event lists with entries that are not events', () => {
  it('keeps the events of a page, leaves out entries that are not objects, and warns without their content', async () => {
    const good = events(2);
    const { client, server, logs } = await harness({
      server: {
        route: () => ({
          body: listPage([good[0], null, 'fake-private-key-echoed', 42, ['nested'], good[1]], { self: '' }),
        }),
      },
    });

    const received = await client.listProjectEvents(GROUP).toArray();

    expect(received).toEqual(good);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(1);
    const warnings = logs.filter((line) => line.message.includes('not events'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toBe('Atlas listed entries that are not events; skipped them');
    expect(warnings[0]?.attributes).toEqual({
      path: `/api/public/v1.0/groups/${GROUP}/events`,
      pageNum: '1',
      skipped: 4,
      positions: [1, 2, 3, 4],
    });
    expect(JSON.stringify(logs)).not.toContain('fake-private-key-echoed');
  });

  it('does the same for organization events, and still refuses an inventory item of the wrong shape', async () => {
    const { client, logs } = await harness({
      server: {
        route: (request) =>
          request.url.pathname.endsWith('/events')
            ? { body: listPage([true], { self: '' }) }
            : { body: listPage([{ id: 'key-1' }, 7], { self: '' }) },
      },
    });

    await expect(client.listOrgEvents(ORG).toArray()).resolves.toEqual([]);
    expect(logs.filter((line) => line.message.includes('not events'))).toHaveLength(1);
    await expect(client.listApiKeys(ORG).toArray()).rejects.toThrow(AtlasResponseError);
  });
});

describe('AtlasClient flavours', () => {
  it.each([
    ['ops-manager', '/api/public/v1.0', 'application/json'],
    ['atlas-v1', '/api/atlas/v1.0', 'application/json'],
    ['atlas-v2', '/api/atlas/v2', 'application/vnd.atlas.2023-01-01+json'],
  ] as const)('%s sends requests under %s with Accept %s', async (flavor, prefix, accept) => {
    const { client, server } = await harness({
      client: { flavor },
      server: { route: () => ({ body: listPage([], { self: '' }) }) },
    });

    await client.listOrgEvents(ORG).toArray();

    const request = server.requests.at(-1);
    expect(request?.url.pathname).toBe(`${prefix}/orgs/${ORG}/events`);
    expect(request?.headers.accept).toBe(accept);
    expect(request?.headers['user-agent']).toBe('atlas-audit-alerts');
  });

  it('keeps a path in the base URL in front of the prefix', async () => {
    const started = await harness({ server: { route: () => ({ body: listPage([], { self: '' }) }) } });
    const { AtlasClient } = await import('../../shared/atlas/atlas-client.js');
    const client = new AtlasClient({
      baseUrl: `${started.server.baseUrl}/opsmanager/`,
      flavor: 'ops-manager',
      credentials: { kind: 'digest', publicKey: 'test-public-key', privateKey: 'fake-private-key-for-tests' },
    });

    await client.listOrgEvents(ORG).toArray();
    await client.close();

    expect(started.server.requests.at(-1)?.url.pathname).toBe(
      `/opsmanager/api/public/v1.0/orgs/${ORG}/events`,
    );
  });
});
