import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollerConfigSchema, runTick, type SourceOutcome } from '../../shared/poll/index.js';
import { createRuleEngine } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import {
  alertingEvent,
  defaultRulePack,
  pollerAtlasClient,
  pollerKey,
} from '../poll/support/poll-fixture.js';
import { RecordingNotifier } from '../poll/support/recording-notifier.js';
import { TestClock } from '../poll/support/test-clock.js';
import { type DigestServer, listPage, type Reply, startDigestServer } from '../support/digest-server.js';

/**
 * Atlas answers the client cannot use, served by a real HTTP server on 127.0.0.1 for one of two
 * project sources while the other answers normally. Each must fail that source alone with a typed,
 * clear error (`ATLAS_RESPONSE`), leave its cursor where it was, and let the other source alert.
 * test/atlas covers the client's own handling of a missing `results` and an item of the wrong shape.
 * Entries of an events page that are not objects are the exception: the page's events still count.
 */
interface BadAnswer {
  name: string;
  reply: () => Reply;
  message: RegExp;
  /** Whether the client tries again before giving up (a body cut short by a proxy may be whole next time). */
  retried: boolean;
}

const BAD = '6650a1b2c3d4e5f602000011';
const GOOD = '6650a1b2c3d4e5f602000012';
const MINUTE = 60_000;
const clock = new TestClock();

const deep = (depth: number): string => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
const page = (results: unknown[]): Reply => ({ body: listPage(results, { self: '' }) });
const event = (extra: Record<string, unknown>): Record<string, unknown> => ({
  ...alertingEvent(clock.now() - MINUTE),
  id: '6650a1b2c3d4e5f6cc000001',
  ...extra,
});

const BAD_ANSWERS: readonly BadAnswer[] = [
  {
    name: 'an HTML error page with status 200',
    reply: () => ({
      body: '<html><body>Bad gateway</body></html>',
      headers: { 'content-type': 'text/html' },
    }),
    message:
      /answered 200 for GET \/api\/atlas\/v2\/groups\/\w+\/events after 5 attempts .* with a body that is not JSON/,
    retried: true,
  },
  {
    name: 'an empty body',
    reply: () => ({ body: '' }),
    message: /with a body that is not JSON/,
    retried: true,
  },
  {
    name: 'JSON null',
    reply: () => ({ body: 'null' }),
    message: /with a list page without a results array/,
    retried: false,
  },
  {
    name: 'results given as a string',
    reply: () => ({ body: { results: 'none', links: [] } }),
    message: /with a list page without a results array/,
    retried: false,
  },
  {
    name: 'no results at all',
    reply: () => ({ body: { links: [], totalCount: 3 } }),
    message: /with a list page without a results array/,
    retried: false,
  },
  {
    name: 'a next link to another host',
    reply: () => ({ body: { results: [], links: [{ rel: 'next', href: 'http://203.0.113.9/x' }] } }),
    message: /with a next link that is not an Atlas API URL/,
    retried: false,
  },
  {
    name: 'an event nested 100,000 levels deep',
    reply: () => ({ body: JSON.stringify({ results: [event({ raw: '@' })] }).replace('"@"', deep(100_000)) }),
    message: /with JSON nested more than 256 levels deep/,
    retried: false,
  },
  {
    name: 'an event without an id nested 100,000 levels deep',
    reply: () => ({
      body: JSON.stringify({ results: [{ ...event({}), id: undefined, raw: '@' }] }).replace(
        '"@"',
        deep(100_000),
      ),
    }),
    message: /with JSON nested more than 256 levels deep/,
    retried: false,
  },
  {
    name: 'a body over 64 MB (a 65 MB string)',
    reply: () => page([event({ username: 'u'.repeat(65 * 1024 * 1024) })]),
    message: /with a body over 67108864 bytes: ask for fewer items per page/,
    retried: false,
  },
];

/** One answer per test: what the bad project's events route serves once `bad` is set. */
let bad: Pick<BadAnswer, 'reply'> | undefined;
let server: DigestServer;
let directory: string;
let goodEvents = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'bad-atlas-'));
  server = await startDigestServer({
    username: pollerKey.publicKey,
    password: pollerKey.privateKey,
    route: (request) => {
      const path = request.url.pathname;
      if (path === `/api/atlas/v2/groups/${GOOD}/events`) {
        // A new alerting event every tick: the good source has something to deliver each time.
        goodEvents += 1;
        return page([
          {
            ...alertingEvent(clock.now() - MINUTE),
            id: `6650a1b2c3d4e5f6dd${String(goodEvents).padStart(6, '0')}`,
          },
        ]);
      }
      if (path === `/api/atlas/v2/groups/${BAD}/events`) return bad === undefined ? page([]) : bad.reply();
      return { status: 404, body: { error: 404, errorCode: 'RESOURCE_NOT_FOUND' } };
    },
  });
});

afterAll(async () => {
  await server.close();
  await rm(directory, { recursive: true, force: true });
});

async function watermarkOf(store: FileStateStore, source: string): Promise<number | undefined> {
  const acquisition = await store.acquireLease({ source, owner: 'test-reader', durationMs: MINUTE });
  if (!acquisition.acquired) throw new Error(`${source} is still leased`);
  await store.releaseLease({ lease: acquisition.lease });
  return acquisition.cursor?.watermark;
}

/** Two clean-started sources, one tick with `answer` served for the bad one: the tick's outcomes. */
async function tickWithBadAnswer(
  answer: Pick<BadAnswer, 'reply'>,
  assess: (outcomes: {
    bad: SourceOutcome;
    good: SourceOutcome;
    badRequests: number;
    before: number | undefined;
    after: number | undefined;
  }) => void,
): Promise<void> {
  // Prepare: one clean tick gives both sources a cursor.
  const store = await FileStateStore.open({ path: join(directory, `${goodEvents}.json`), clock });
  const engine = createRuleEngine({ pack: await defaultRulePack(), counters: store });
  const notifier = new RecordingNotifier();
  const atlas = pollerAtlasClient(server.baseUrl, clock);
  const config = pollerConfigSchema.parse({
    atlas: { baseUrl: server.baseUrl },
    sources: { projectIds: [BAD, GOOD] },
  });
  const tick = () => runTick({ atlas, store, engine, notifier, clock }, { config, owner: 'chaos' });
  bad = undefined;
  await tick();
  const before = await watermarkOf(store, `project:${BAD}`);
  clock.advance(MINUTE);
  bad = answer;
  const requestsBefore = server.requests.length;

  try {
    // Act
    const summary = await tick();

    // Assess
    const [badOutcome, goodOutcome] = summary.sources as [SourceOutcome, SourceOutcome];
    const badRequests = server.requests
      .slice(requestsBefore)
      .filter((request) => request.url.pathname.includes(BAD) && request.status === 200).length;
    assess({
      bad: badOutcome,
      good: goodOutcome,
      badRequests,
      before,
      after: await watermarkOf(store, `project:${BAD}`),
    });
  } finally {
    bad = undefined;
    await atlas.close();
    await store.close();
  }
}

describe('runTick when Atlas answers a source with something unusable', () => {
  it.each(BAD_ANSWERS)('fails that source alone on $name, keeping its cursor', async (answer) => {
    await tickWithBadAnswer(answer, ({ bad: badOutcome, good: goodOutcome, badRequests, before, after }) => {
      expect(badOutcome).toMatchObject({ status: 'failed', errorCode: 'ATLAS_RESPONSE', httpStatus: 200 });
      expect(badOutcome.message).toMatch(answer.message);
      expect(badOutcome.message).toMatch(/check the base URL points at the Atlas Admin API|ask for fewer/);
      expect(after).toBe(before);
      expect(goodOutcome).toMatchObject({ status: 'ok', windowsCommitted: 1 });
      expect(goodOutcome.alerts.published.critical).toBe(1);
      expect(badRequests).toBe(answer.retried ? 5 : 1);
    });
  });

  it('alerts on the events of a page whose other entries are numbers, strings and null, and moves on', async () => {
    const answer = { reply: () => page([1, 'x', null, event({}), ['nested']]) };
    await tickWithBadAnswer(answer, ({ bad: badOutcome, good: goodOutcome, badRequests, before, after }) => {
      expect(badOutcome).toMatchObject({ status: 'ok', windowsCommitted: 1 });
      expect(badOutcome.alerts.published.critical).toBe(1);
      expect(after).toBeGreaterThan(before ?? Number.POSITIVE_INFINITY);
      expect(goodOutcome.alerts.published.critical).toBe(1);
      expect(badRequests).toBe(1);
    });
  });
});
