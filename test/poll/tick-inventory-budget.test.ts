import { afterEach, describe, expect, it } from 'vitest';
import {
  type DigestServer,
  listPage,
  type RecordedRequest,
  type Reply,
  startDigestServer,
} from '../support/digest-server.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { alertingEvent, MINUTE } from './support/poll-fixture.js';
import { runMemoryLimitedTick } from './support/run-memory-limited-tick.js';

/**
 * A project whose IP access list never ends (500 entries a page, each page linking to the next) and
 * an organization whose API key list never ends, polled beside a healthy project by one tick with
 * DynamoDB Local under the heap limits of the stack's 256 MB Lambda function. Read whole, either list
 * runs the function out of memory on every tick; the inventories must fail alone, and every source's
 * events, the endless ones' included, must be evaluated and their alerts delivered in the same tick.
 */

const ENDLESS_PROJECT = '6650a1b2c3d4e5f602000071';
const HEALTHY_PROJECT = '6650a1b2c3d4e5f602000072';
const ENDLESS_ORG = '6650a1b2c3d4e5f601000071';
const credentials = { publicKey: 'endless2', privateKey: 'fake-private-key-for-tests' };

let server: DigestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The next page of an endless list: 500 entries, and a link to the page after. */
function endlessPage(request: RecordedRequest, entry: (index: number) => Record<string, unknown>): Reply {
  const pageNum = Number(request.url.searchParams.get('pageNum') ?? '1');
  const next = new URL(request.url);
  next.searchParams.set('pageNum', String(pageNum + 1));
  const results = Array.from({ length: 500 }, (_, at) => entry((pageNum - 1) * 500 + at));
  return {
    body: listPage(results, { self: request.url.toString(), next: next.toString(), totalCount: 1e9 }),
  };
}

function eventsIn(request: RecordedRequest, events: readonly Record<string, unknown>[]): Reply {
  const minDate = Date.parse(request.url.searchParams.get('minDate') ?? '');
  const maxDate = Date.parse(request.url.searchParams.get('maxDate') ?? '');
  const results = events.filter((event) => {
    const created = Date.parse(String(event.created));
    return created >= minDate && created <= maxDate;
  });
  return { body: listPage(results, { self: request.url.toString() }) };
}

describe('runTick over endless inventory lists, under a small heap', () => {
  it('fails those inventories alone and delivers the alerts of every source', async () => {
    // Prepare
    const now = Date.now();
    const endlessEvent = {
      id: 'dddddddddddddddddddddd01',
      groupId: ENDLESS_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    const healthyEvent = {
      id: 'dddddddddddddddddddddd02',
      groupId: HEALTHY_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    const orgEvent = {
      id: 'dddddddddddddddddddddd03',
      orgId: ENDLESS_ORG,
      eventTypeName: 'API_KEY_ACCESS_LIST_ENTRY_ADDED',
      created: new Date(Math.floor((now - 5 * MINUTE) / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      targetPublicKey: 'zmmrboas',
      whitelistEntry: '0.0.0.0/0',
    };
    server = await startDigestServer({
      username: credentials.publicKey,
      password: credentials.privateKey,
      route: (request) => {
        const { pathname } = request.url;
        if (pathname.endsWith(`/groups/${ENDLESS_PROJECT}/accessList`)) {
          return endlessPage(request, (index) => ({
            cidrBlock: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}/32`,
            comment: `office ${index}`,
          }));
        }
        if (pathname.endsWith(`/orgs/${ENDLESS_ORG}/apiKeys`)) {
          return endlessPage(request, (index) => ({
            id: index.toString(16).padStart(24, 'e'),
            publicKey: `k${index}`,
            roles: [{ roleName: 'ORG_READ_ONLY', orgId: ENDLESS_ORG }],
          }));
        }
        if (pathname.endsWith('/accessList')) return { body: listPage([], { self: '' }) };
        if (pathname.endsWith(`/groups/${ENDLESS_PROJECT}/events`)) return eventsIn(request, [endlessEvent]);
        if (pathname.endsWith(`/groups/${HEALTHY_PROJECT}/events`)) return eventsIn(request, [healthyEvent]);
        if (pathname.endsWith(`/orgs/${ENDLESS_ORG}/events`)) return eventsIn(request, [orgEvent]);
        return { status: 404, body: {} };
      },
    });

    // Act
    const run = await runMemoryLimitedTick({
      baseUrl: server.baseUrl,
      credentials,
      projectIds: [ENDLESS_PROJECT, HEALTHY_PROJECT],
      orgIds: [ENDLESS_ORG],
      dynamoDbEndpoint: await dynamoDbLocalEndpoint(),
      tableName: `inventory-budget-${Math.random().toString(36).slice(2)}`,
    });

    // Assess
    expect({ code: run.code, signal: run.signal, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
    const report = run.report as NonNullable<typeof run.report>;
    const bySource = Object.fromEntries(report.summary.sources.map((source) => [source.id, source]));
    for (const id of [ENDLESS_PROJECT, ENDLESS_ORG]) {
      expect(bySource[id]).toMatchObject({
        status: 'ok',
        eventsNew: 1,
        inventory: { status: 'failed', errorCode: 'INVENTORY_BUDGET_EXCEEDED' },
      });
    }
    expect(bySource[HEALTHY_PROJECT]).toMatchObject({
      status: 'ok',
      eventsNew: 1,
      inventory: { status: 'baseline' },
    });
    for (const event of [endlessEvent, healthyEvent, orgEvent]) {
      expect(report.published.filter((alert) => alert.eventIds.includes(event.id))).not.toEqual([]);
    }
    expect(report.summary.completed).toBe(true);
    expect(report.metrics).toContainEqual({
      name: 'SourceErrors',
      value: 2,
      dimensions: { errorCode: 'INVENTORY_BUDGET_EXCEEDED' },
    });
  }, 240_000);
});
