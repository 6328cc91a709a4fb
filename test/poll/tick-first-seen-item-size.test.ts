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
 * A project where 1,000 people with 128-character CJK names used Data Explorer, another where 600
 * with names of 128 control characters did, and a healthy project, polled by one tick with DynamoDB
 * Local under the heap limits of the stack's 256 MB Lambda function. The shipped
 * `data-explorer-first-use` rule keeps up to 1,000 names per project in one record: 435 KB of the CJK
 * names, and 491 KB of the control characters as JSON escapes them, past DynamoDB's 400 KB item. Each
 * record must stay within its item, and the critical events in those projects, and the healthy
 * project's, must be delivered in the same tick.
 */

const CROWDED_PROJECT = '6650a1b2c3d4e5f602000051';
const HEALTHY_PROJECT = '6650a1b2c3d4e5f602000052';
const ESCAPED_PROJECT = '6650a1b2c3d4e5f602000053';
const credentials = { publicKey: 'crowded1', privateKey: 'fake-private-key-for-tests' };

let server: DigestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function isoSecond(time: number): string {
  return new Date(Math.floor(time / SECOND) * SECOND).toISOString().replace('.000Z', 'Z');
}

/** A project's events, newest first, in the pages the client asks for (500 at most). */
function pagedEvents(events: readonly Record<string, unknown>[], request: RecordedRequest): Reply {
  const { searchParams } = request.url;
  const minDate = Date.parse(searchParams.get('minDate') ?? '');
  const maxDate = Date.parse(searchParams.get('maxDate') ?? '');
  const pageNum = Number(searchParams.get('pageNum') ?? '1');
  const itemsPerPage = Math.min(500, Number(searchParams.get('itemsPerPage') ?? '100'));
  const inWindow = events
    .filter((event) => {
      const created = Date.parse(String(event.created));
      return created >= minDate && created <= maxDate;
    })
    .sort((a, b) => String(b.created).localeCompare(String(a.created)));
  const results = inWindow.slice((pageNum - 1) * itemsPerPage, pageNum * itemsPerPage);
  const links = [];
  if (pageNum * itemsPerPage < inWindow.length) {
    const next = new URL(request.url);
    next.searchParams.set('pageNum', String(pageNum + 1));
    links.push({ rel: 'next', href: next.toString() });
  }
  return { body: { results, totalCount: inWindow.length, links } };
}

/** 128 control characters, distinct for each index (its digits spelt in U+0001..U+000A). */
function controlName(index: number): string {
  const digits = [...String(index).padStart(6, '0')].map((digit) => String.fromCharCode(1 + Number(digit)));
  return `${'\u001f'.repeat(122)}${digits.join('')}`;
}

describe('runTick over a first-seen group that outgrows an item, under a small heap', () => {
  it('keeps each group within its item and delivers the critical alerts of those projects and of a healthy one', async () => {
    // Prepare
    const now = Date.now();
    const crowded = Array.from({ length: 1_000 }, (_, index) => ({
      id: `cccccccccccccccc${index.toString(16).padStart(8, '0')}`,
      eventTypeName: 'DATA_EXPLORER_CRUD',
      created: isoSecond(now - 40 * MINUTE + index * SECOND),
      groupId: CROWDED_PROJECT,
      username: `${'漢'.repeat(120)}${String(index).padStart(8, '0')}`,
      opType: 'insertDocument',
    }));
    const escaped = Array.from({ length: 600 }, (_, index) => ({
      id: `eeeeeeeeeeeeeeee${index.toString(16).padStart(8, '0')}`,
      eventTypeName: 'DATA_EXPLORER_CRUD',
      created: isoSecond(now - 30 * MINUTE + index * SECOND),
      groupId: ESCAPED_PROJECT,
      username: controlName(index),
      opType: 'insertDocument',
    }));
    const escapedCritical = {
      id: 'eeeeeeeeeeeeeeee99999999',
      groupId: ESCAPED_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    const critical = {
      id: 'cccccccccccccccc99999999',
      groupId: CROWDED_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    const healthy = {
      id: 'bbbbbbbbbbbbbbbbbbbbbb02',
      groupId: HEALTHY_PROJECT,
      ...alertingEvent(now - 5 * MINUTE),
    };
    server = await startDigestServer({
      username: credentials.publicKey,
      password: credentials.privateKey,
      route: (request) => {
        const { pathname } = request.url;
        if (pathname.endsWith(`/groups/${CROWDED_PROJECT}/events`)) {
          return pagedEvents([...crowded, critical], request);
        }
        if (pathname.endsWith(`/groups/${ESCAPED_PROJECT}/events`)) {
          return pagedEvents([...escaped, escapedCritical], request);
        }
        if (pathname.endsWith(`/groups/${HEALTHY_PROJECT}/events`)) return pagedEvents([healthy], request);
        if (pathname.endsWith('/accessList')) return { body: { results: [], totalCount: 0, links: [] } };
        return { status: 404, body: {} };
      },
    });

    // Act
    const run = await runMemoryLimitedTick({
      baseUrl: server.baseUrl,
      credentials,
      projectIds: [CROWDED_PROJECT, ESCAPED_PROJECT, HEALTHY_PROJECT],
      dynamoDbEndpoint: await dynamoDbLocalEndpoint(),
      tableName: `first-seen-size-${Math.random().toString(36).slice(2)}`,
    });

    // Assess
    expect({ code: run.code, signal: run.signal, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
    const report = run.report as NonNullable<typeof run.report>;
    const bySource = Object.fromEntries(report.summary.sources.map((source) => [source.id, source]));
    expect(bySource[CROWDED_PROJECT]).toMatchObject({
      status: 'ok',
      eventsNew: 1_001,
      firstSeenStateErrors: 0,
    });
    expect(bySource[ESCAPED_PROJECT]).toMatchObject({
      status: 'ok',
      eventsNew: 601,
      firstSeenStateErrors: 0,
    });
    expect(bySource[HEALTHY_PROJECT]).toMatchObject({ status: 'ok', eventsNew: 1 });
    const deliveredFor = (id: string) => report.published.filter((alert) => alert.eventIds.includes(id));
    expect(deliveredFor(critical.id).map((alert) => alert.ruleId)).toContain(
      'network-access-open-to-internet',
    );
    expect(deliveredFor(escapedCritical.id).map((alert) => alert.ruleId)).toContain(
      'network-access-open-to-internet',
    );
    expect(deliveredFor(healthy.id).map((alert) => alert.ruleId)).toContain(
      'network-access-open-to-internet',
    );
    expect(report.metrics).toContainEqual({ name: 'FirstSeenStateErrors', value: 0 });
    expect(report.metrics).toContainEqual({ name: 'SourceErrors', value: 0 });
  }, 240_000);
});
