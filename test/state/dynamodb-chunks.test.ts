import { randomUUID } from 'node:crypto';
import { type DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateTable } from '../../shared/state/create-state-table.js';
import { deleteChunks, readChunks, splitBytes, writeChunks } from '../../shared/state/dynamodb-chunks.js';
import { DynamoDbRequester } from '../../shared/state/dynamodb-requester.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

let client: DynamoDBClient;
let requester: DynamoDbRequester;
const tableName = `chunks-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
  requester = new DynamoDbRequester({ client, tableName });
});

afterAll(() => {
  client?.destroy();
});

/** Bytes of `length`, all set to `fill`. */
function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

/** The items of a partition: sort key and expiry. */
async function itemsOf(pk: string): Promise<{ sk: string; expiresAt: string | undefined }[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
    }),
  );
  return (output.Items ?? []).map((item) => ({ sk: item.sk?.S ?? '', expiresAt: item.expiresAt?.N }));
}

describe('splitBytes', () => {
  it('cuts bytes into parts of at most the size, the last one shorter', () => {
    // Act
    const parts = splitBytes(new Uint8Array([1, 2, 3, 4, 5]), 2);

    // Assess
    expect(parts.map((part) => [...part])).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('gives whole parts for an exact multiple and none for empty input', () => {
    // Act
    const exact = splitBytes(new Uint8Array(4), 2);
    const empty = splitBytes(new Uint8Array(0), 2);

    // Assess
    expect(exact.map((part) => part.length)).toEqual([2, 2]);
    expect(empty).toEqual([]);
  });
});

describe('writeChunks and readChunks', () => {
  it('writes parts as chunks 000001.. of the generation, with their expiry, and reads them back in order', async () => {
    // Prepare
    const pk = `SOURCE#${randomUUID()}`;
    const parts = [bytes(3, 1), bytes(2, 2), bytes(1, 3)];

    // Act
    await writeChunks(requester, { pk, prefix: 'CURSOR#SEEN#g1#', parts, expiresAt: 1_700_000_000 });
    const read = await readChunks(requester, { pk, prefix: 'CURSOR#SEEN#g1#' });

    // Assess
    expect(read.map((part) => [...part])).toEqual([[1, 1, 1], [2, 2], [3]]);
    expect(await itemsOf(pk)).toEqual([
      { sk: 'CURSOR#SEEN#g1#000001', expiresAt: '1700000000' },
      { sk: 'CURSOR#SEEN#g1#000002', expiresAt: '1700000000' },
      { sk: 'CURSOR#SEEN#g1#000003', expiresAt: '1700000000' },
    ]);
  });

  it('never overwrites a chunk that already exists', async () => {
    // Prepare
    const pk = `SOURCE#${randomUUID()}`;
    await writeChunks(requester, { pk, prefix: 'g1#', parts: [bytes(1, 1)], expiresAt: 1 });

    // Act
    const act = writeChunks(requester, { pk, prefix: 'g1#', parts: [bytes(1, 9)], expiresAt: 1 });

    // Assess
    await expect(act).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((await readChunks(requester, { pk, prefix: 'g1#' })).map((part) => [...part])).toEqual([[1]]);
  });

  it('reads only the chunks of its own generation, and skips an item without data', async () => {
    // Prepare
    const pk = `SOURCE#${randomUUID()}`;
    await writeChunks(requester, { pk, prefix: 'g1#', parts: [bytes(1, 1)], expiresAt: 1 });
    await writeChunks(requester, { pk, prefix: 'g2#', parts: [bytes(1, 2)], expiresAt: 1 });
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: pk }, sk: { S: 'g1#x' } } }),
    );

    // Act
    const read = await readChunks(requester, { pk, prefix: 'g1#' });

    // Assess
    expect(read.map((part) => [...part])).toEqual([[1]]);
  });

  it('reads every page of a generation larger than one query answers', async () => {
    // Prepare: a query page ends once it passes 1 MB, so four chunks of 380 KB take two pages.
    const pk = `SOURCE#${randomUUID()}`;
    const parts = [bytes(380_000, 1), bytes(380_000, 2), bytes(380_000, 3), bytes(380_000, 4)];
    await writeChunks(requester, { pk, prefix: 'big#', parts, expiresAt: 1 });
    const firstPage = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
      }),
    );

    // Act
    const read = await readChunks(requester, { pk, prefix: 'big#' });

    // Assess
    expect(firstPage.LastEvaluatedKey).toBeDefined();
    expect(read.map((part) => [part.length, part[0]])).toEqual([
      [380_000, 1],
      [380_000, 2],
      [380_000, 3],
      [380_000, 4],
    ]);
  });

  it('reads with strong consistency, so chunks written just before are all there', async () => {
    // Prepare: DynamoDB Local reads consistently either way, so the request itself is looked at.
    const pk = `SOURCE#${randomUUID()}`;
    await writeChunks(requester, { pk, prefix: 'g1#', parts: [bytes(1, 1)], expiresAt: 1 });
    const watched = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
    const queries: Record<string, unknown>[] = [];
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queries.push(args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize' },
    );

    // Act
    await readChunks(new DynamoDbRequester({ client: watched, tableName }), { pk, prefix: 'g1#' });
    watched.destroy();

    // Assess
    expect(queries.map((input) => input.ConsistentRead)).toEqual([true]);
  });
});

describe('deleteChunks', () => {
  it('deletes chunks 1 to count and leaves the others', async () => {
    // Prepare
    const pk = `SOURCE#${randomUUID()}`;
    await writeChunks(requester, {
      pk,
      prefix: 'g1#',
      parts: [bytes(1, 1), bytes(1, 2), bytes(1, 3)],
      expiresAt: 1,
    });

    // Act
    await deleteChunks(requester, { pk, prefix: 'g1#', count: 2 });

    // Assess
    expect(await itemsOf(pk)).toEqual([{ sk: 'g1#000003', expiresAt: '1' }]);
  });
});
