import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pollerConfigSchema, runTick, type TickProgress } from '../../shared/poll/index.js';
import { createRuleEngine } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import { type DigestServer, listPage, startDigestServer } from '../support/digest-server.js';
import {
  alertingEvent,
  defaultRulePack,
  pollerAtlasClient,
  pollerKey,
  quietEvent,
} from './support/poll-fixture.js';
import { RecordingNotifier } from './support/recording-notifier.js';
import { TestClock } from './support/test-clock.js';

/**
 * Atlas documents `totalCount` as an estimate, and a window counts the events its next page may
 * bring from it. A server whose count says one event is left, page after page, must not let a window
 * hold more than its share of the event budget: each page's events count whatever the estimate said.
 */
const PROJECT = '6650a1b2c3d4e5f603000021';
const EVENTS_PATH = `/api/atlas/v2/groups/${PROJECT}/events`;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const EVENT_COUNT = 1_500;

let server: DigestServer | undefined;
let directory: string | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('runTick when Atlas undercounts a window', () => {
  it('keeps each window within its share of the budget, and reads every event once', async () => {
    // Prepare: 1,500 events over 25 minutes, one in a hundred alerting; a budget of 2,500 events gives
    // the one source windows of at most 1,250.
    const clock = new TestClock(Math.floor(Date.now() / SECOND) * SECOND);
    const events = Array.from({ length: EVENT_COUNT }, (_, index) => {
      const created = clock.now() - 2 * MINUTE - index * SECOND;
      const body = index % 100 === 0 ? alertingEvent(created) : quietEvent(created);
      return { ...body, id: `6650a1b2c3d4e5f6ee${String(index).padStart(6, '0')}`, groupId: PROJECT };
    });
    server = await startDigestServer({
      username: pollerKey.publicKey,
      password: pollerKey.privateKey,
      route: (request) => {
        if (request.url.pathname !== EVENTS_PATH) return { status: 404, body: { error: 404 } };
        const query = request.url.searchParams;
        const from = Date.parse(query.get('minDate') ?? '1970-01-01T00:00:00Z');
        const to = Date.parse(query.get('maxDate') ?? '2999-01-01T00:00:00Z');
        const pageNum = Number(query.get('pageNum') ?? '1');
        const perPage = Number(query.get('itemsPerPage') ?? '100');
        const inWindow = events.filter((event) => {
          const created = Date.parse(String(event.created));
          return created >= from && created <= to;
        });
        const results = inWindow.slice((pageNum - 1) * perPage, pageNum * perPage);
        const next = new URL(request.url);
        next.searchParams.set('pageNum', String(pageNum + 1));
        return {
          body: listPage(results, {
            self: request.url.toString(),
            ...(pageNum * perPage < inWindow.length ? { next: next.toString() } : {}),
            totalCount: 1,
          }),
        };
      },
    });
    directory = await mkdtemp(join(tmpdir(), 'count-estimate-'));
    const store = await FileStateStore.open({ path: join(directory, 'state.json'), clock });
    const notifier = new RecordingNotifier();
    const atlas = pollerAtlasClient(server.baseUrl, clock);
    const config = pollerConfigSchema.parse({
      atlas: { baseUrl: server.baseUrl },
      sources: { projectIds: [PROJECT] },
      maxEventsInMemory: 2_500,
    });
    const progress: TickProgress[] = [];

    try {
      // Act
      const summary = await runTick(
        {
          atlas,
          store,
          engine: createRuleEngine({ pack: await defaultRulePack(), counters: store }),
          notifier,
          clock,
        },
        { config, owner: 'count-estimate', onProgress: (step) => progress.push(step) },
      );

      // Assess
      expect(summary.sources[0]).toMatchObject({ status: 'ok', eventsNew: EVENT_COUNT });
      expect(Math.max(...progress.map((step) => step.eventsRead))).toBeLessThanOrEqual(1_250);
      const alerted = notifier.delivered.flatMap((alert) => alert.events.map((event) => event.id));
      expect(new Set(alerted).size).toBe(alerted.length);
      expect(alerted.sort()).toEqual(
        events
          .filter((event) => event.eventTypeName !== 'HOST_UP')
          .map((event) => event.id)
          .sort(),
      );
    } finally {
      await atlas.close();
      await store.close();
    }
  });
});
