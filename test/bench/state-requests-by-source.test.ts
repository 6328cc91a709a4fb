import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestShares, StateRequestsBySource } from '../../bench/support/state-requests-by-source.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { ManualClock } from '../state/manual-clock.js';
import { atlasId } from '../state/state-store.contract.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

/**
 * The steady-state benchmark compares a cluster source's DynamoDB requests with an events source's
 * by the items each request names: checked here on the requests the real store sends to DynamoDB
 * Local, each counted once, whatever its shape.
 */

const MINUTE = 60_000;
const GROUP = '6650b0b0b0b0b0b0b0000a01';

let client: DynamoDBClient;
let bySource: StateRequestsBySource;
let store: DynamoDbStateStore;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  const tableName = `by-source-${randomUUID()}`;
  await createStateTable({ client, tableName, timeToLive: false });
  bySource = new StateRequestsBySource(client);
  // A small first chunk of seen ids, so that a cursor of a few thousand spills into chunk items.
  store = new DynamoDbStateStore({ client, tableName, clock: new ManualClock(), maxSeenIdsPerItem: 1_000 });
});

afterAll(() => {
  client?.destroy();
});

function measure(): { counts: ReturnType<StateRequestsBySource['counts']>; total: number } {
  return { counts: bySource.counts(), total: store.stats().total };
}

function reset(): void {
  bySource.reset();
  store.resetStats();
}

async function leaseAndCommit(source: string, seenIds: readonly string[] = []): Promise<void> {
  const acquisition = await store.acquireLease({ source, owner: 'bench', durationMs: 5 * MINUTE });
  if (!acquisition.acquired) throw new Error(`expected to acquire ${source}`);
  await store.commitCursor({ lease: acquisition.lease, watermark: 1, seenIds });
}

describe('StateRequestsBySource', () => {
  it("counts a cluster source's lease and commit for clusters, one each", async () => {
    // Prepare
    const source = `cluster:${GROUP}:main-${randomUUID().slice(0, 8)}`;
    reset();

    // Act
    await leaseAndCommit(source);

    // Assess
    expect(measure()).toEqual({ counts: { cluster: 2 }, total: 2 });
  });

  it('counts the chunks of a large cursor, written and read back, for its own source', async () => {
    // Prepare
    const source = `cluster:${GROUP}:large-${randomUUID().slice(0, 8)}`;
    const seenIds = Array.from({ length: 3_500 }, atlasId);
    reset();

    // Act
    await leaseAndCommit(source, seenIds);
    await leaseAndCommit(source, seenIds);

    // Assess
    const { counts, total } = measure();
    expect(total).toBeGreaterThan(4);
    expect(counts).toEqual({ cluster: total });
  });

  it('shares the read of several sources among them by the keys it names', async () => {
    // Prepare
    const project = `project:${GROUP}`;
    const clusters = ['a', 'b', 'c'].map((name) => `cluster:${GROUP}:${name}`);
    for (const source of [project, ...clusters]) await leaseAndCommit(source);
    reset();

    // Act
    const times = await store.readSourceTimes({ sources: [project, ...clusters] });

    // Assess
    expect(times.size).toBe(4);
    expect(measure()).toEqual({ counts: { project: 0.25, cluster: 0.75 }, total: 1 });
  });

  it("counts an alert's claim against no source", async () => {
    // Prepare
    reset();

    // Act
    await store.claimAlerts({ fingerprints: [randomUUID(), randomUUID()], claimMs: MINUTE });

    // Assess
    const { counts, total } = measure();
    expect(total).toBeGreaterThan(0);
    expect(counts).toEqual({ other: total });
  });
});

describe('requestShares', () => {
  it('reads the partition keys of a transaction, a batch write and a query', () => {
    const cluster = { pk: { S: `SOURCE#cluster:${GROUP}:main` }, sk: { S: 'CURSOR' } };
    const project = { pk: { S: `SOURCE#project:${GROUP}` }, sk: { S: 'CURSOR' } };
    const alert = { pk: { S: 'ALERT#x' }, sk: { S: 'ALERT' } };

    expect(
      requestShares({ TransactItems: [{ Update: { Key: cluster } }, { Put: { Item: alert } }] }),
    ).toEqual({ cluster: 0.5, other: 0.5 });
    expect(
      requestShares({
        RequestItems: { t: [{ PutRequest: { Item: project } }, { DeleteRequest: { Key: cluster } }] },
      }),
    ).toEqual({ project: 0.5, cluster: 0.5 });
    expect(
      requestShares({
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeValues: { ':pk': cluster.pk, ':prefix': { S: 'CURSOR#SEEN#' } },
      }),
    ).toEqual({ cluster: 1 });
    expect(requestShares({ TableName: 't' })).toEqual({ other: 1 });
  });
});
