import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/index.js';
import type { TickSummary } from '../../shared/poll/index.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { expectEachAlertOnce, outcomeOf } from './support/assertions.js';
import {
  alertingEvent,
  dynamoDbStoreFactory,
  ids,
  MINUTE,
  type PollFixture,
  quietEvent,
  SECOND,
  startPollFixture,
} from './support/poll-fixture.js';

const PROJECT = `project:${ids.project}`;

let client: DynamoDBClient | undefined;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
});

afterAll(() => {
  client?.destroy();
});

/** What one tick cost, as the test prints it. */
interface TickCost {
  events: number;
  alerts: number;
  dynamoDbRequests: number;
  byOperation: Readonly<Record<string, number>>;
  pagesRead: number;
  atlasRequests: number;
  challenges: number;
}

async function measuredTick(
  fixture: PollFixture,
  events: number,
): Promise<{ cost: TickCost; summary: TickSummary }> {
  fixture.store.resetStats();
  fixture.sim.resetCounters();
  const summary = await fixture.tick();
  const project = outcomeOf(summary, PROJECT);
  const alerts = Object.values(project.alerts.published).reduce((sum, count) => sum + count, 0);
  return {
    summary,
    cost: {
      events,
      alerts,
      dynamoDbRequests: summary.totals.stateRequests,
      byOperation: fixture.store.stats().requests,
      pagesRead: project.pagesRead,
      atlasRequests: fixture.sim.counters.requests,
      challenges: fixture.sim.counters.challenges,
    },
  };
}

/** 10,000 project events over the last 10 minutes, 1% of them alerting (each its own alert). */
function tenThousandEvents(now: number): Array<AtlasEvent & { eventTypeName: string }> {
  return Array.from({ length: 10_000 }, (_, index) => {
    const created = now - 40 * SECOND - (index % 540) * SECOND;
    return index % 100 === 0 ? alertingEvent(created) : quietEvent(created);
  });
}

describe('the cost of a tick for one source on DynamoDB', () => {
  it('does not grow with events beyond two requests per 100 alerts, and reads Atlas once per page', async () => {
    // Prepare
    const fixture = await startPollFixture({
      store: dynamoDbStoreFactory(() => client as DynamoDBClient),
      config: { sources: { projectIds: [ids.project] } },
    });
    try {
      await fixture.tick();
      fixture.clock.advance(MINUTE);
      const quiet = await measuredTick(fixture, 0);
      fixture.clock.advance(10 * MINUTE);
      const events = fixture.sim.addEvents({ groupId: ids.project }, tenThousandEvents(fixture.clock.now()));

      // Act
      const busy = await measuredTick(fixture, events.length);

      // Assess
      console.log(
        'DynamoDB and Atlas requests per tick, one project source\n' +
          JSON.stringify({ quiet: quiet.cost, busy: busy.cost }, null, 2),
      );
      expect(outcomeOf(busy.summary, PROJECT)).toMatchObject({
        status: 'ok',
        eventsNew: 10_000,
        windowsCommitted: 1,
      });
      expect(quiet.cost.dynamoDbRequests).toBe(2);
      expect(busy.cost.alerts).toBe(100);
      // One transaction of 100 claims and one of 100 marks; and, once for the container and the names'
      // lifetime, one read of the organization's and project's names and a write of each.
      expect(busy.cost.dynamoDbRequests - 2 * Math.ceil(busy.cost.alerts / 100) - 3).toBe(
        quiet.cost.dynamoDbRequests,
      );
      expect(busy.cost.pagesRead).toBe(20);
      // The pages, and the two names read once.
      expect(busy.cost.atlasRequests).toBe(busy.cost.pagesRead + busy.cost.challenges + 2);
      expect(busy.cost.challenges).toBeLessThanOrEqual(1);
      expect(quiet.cost.atlasRequests).toBe(quiet.cost.pagesRead + quiet.cost.challenges);
      await expectEachAlertOnce(fixture, events);
    } finally {
      await fixture.close();
    }
  });
});
