import { afterEach, describe, expect, it } from 'vitest';
import {
  type DigestServer,
  type RecordedRequest,
  type Reply,
  startDigestServer,
} from '../support/digest-server.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { alertingEvent, MINUTE, SECOND } from './support/poll-fixture.js';
import { runMemoryLimitedTick } from './support/run-memory-limited-tick.js';

/**
 * A source whose one second never ends (every page 500 new events created in that second, and a
 * `next` link, forever) polled beside a healthy one, by a tick in a process with the heap limits of
 * the stack's 256 MB Lambda function: the endless source fails alone and the tick goes on.
 */

const ENDLESS_PROJECT = '6650a1b2c3d4e5f602000031';
const HEALTHY_PROJECT = '6650a1b2c3d4e5f602000032';
const credentials = { publicKey: 'endless1', privateKey: 'fake-private-key-for-tests' };

let server: DigestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves the endless second on one project and one alerting event on the other. */
function atlasRoute(endlessSecond: number, healthyEvent: Record<string, unknown>) {
  let nextId = 0;
  const isoSecond = new Date(endlessSecond).toISOString().replace('.000Z', 'Z');
  return (request: RecordedRequest): Reply => {
    const { pathname, searchParams } = request.url;
    const minDate = Date.parse(searchParams.get('minDate') ?? '');
    const maxDate = Date.parse(searchParams.get('maxDate') ?? '');
    const pageNum = Number(searchParams.get('pageNum') ?? '1');
    if (pathname.endsWith(`/groups/${HEALTHY_PROJECT}/events`)) {
      const created = Date.parse(String(healthyEvent.created));
      const results = created >= minDate && created <= maxDate ? [healthyEvent] : [];
      return { body: { results, totalCount: results.length, links: [] } };
    }
    if (!pathname.endsWith(`/groups/${ENDLESS_PROJECT}/events`)) return { status: 404, body: {} };
    if (endlessSecond < minDate || endlessSecond > maxDate) {
      return { body: { results: [], totalCount: 0, links: [] } };
    }
    const results = Array.from({ length: 500 }, () => {
      nextId += 1;
      return {
        id: nextId.toString(16).padStart(24, 'a'),
        created: isoSecond,
        eventTypeName: 'DATA_EXPLORER',
        groupId: ENDLESS_PROJECT,
        username: `writer${nextId % 7}@example.com`,
      };
    });
    const next = new URL(request.url);
    next.searchParams.set('pageNum', String(pageNum + 1));
    return {
      body: { results, totalCount: 10_000_000, links: [{ rel: 'next', href: next.toString() }] },
    };
  };
}

describe('runTick under a small heap', () => {
  it('fails a source whose one-second window never ends, alone, and publishes the other source alert', async () => {
    // Prepare
    const now = Date.now();
    const endlessSecond = Math.floor((now - 10 * MINUTE) / SECOND) * SECOND;
    const healthyEvent = {
      id: 'bbbbbbbbbbbbbbbbbbbbbb01',
      groupId: HEALTHY_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    server = await startDigestServer({
      username: credentials.publicKey,
      password: credentials.privateKey,
      route: atlasRoute(endlessSecond, healthyEvent),
    });

    // Act
    const run = await runMemoryLimitedTick({
      baseUrl: server.baseUrl,
      credentials,
      projectIds: [ENDLESS_PROJECT, HEALTHY_PROJECT],
      dynamoDbEndpoint: await dynamoDbLocalEndpoint(),
      tableName: `memory-${Math.random().toString(36).slice(2)}`,
    });

    // Assess
    expect({ code: run.code, signal: run.signal, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
    const report = run.report as NonNullable<typeof run.report>;
    const bySource = Object.fromEntries(report.summary.sources.map((source) => [source.id, source]));
    expect(bySource[ENDLESS_PROJECT]).toMatchObject({ status: 'failed', errorCode: 'EVENT_BUDGET_EXCEEDED' });
    expect(bySource[ENDLESS_PROJECT]?.message).toContain(new Date(endlessSecond - SECOND).toISOString());
    // The cursor stays before the second that did not fit.
    expect(bySource[ENDLESS_PROJECT]?.watermark ?? 0).toBeLessThan(endlessSecond);
    expect(bySource[HEALTHY_PROJECT]).toMatchObject({ status: 'ok', eventsNew: 1 });
    expect(report.published.filter((alert) => alert.eventIds.includes(healthyEvent.id))).toHaveLength(1);
    expect(report.published.every((alert) => !alert.eventIds.some((id) => id.startsWith('aaaa')))).toBe(true);
    expect(report.summary.completed).toBe(true);
    expect(report.metrics).toContainEqual({
      name: 'SourceErrors',
      value: 1,
      dimensions: { errorCode: 'EVENT_BUDGET_EXCEEDED' },
    });
  }, 240_000);
});
