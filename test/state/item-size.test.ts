import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../shared/state/dynamodb-attributes.js';
import { DynamoDbRequester } from '../../shared/state/dynamodb-requester.js';
import { StateItemTooLargeError } from '../../shared/state/errors.js';
import { createStateTable } from '../../shared/state/index.js';
import { itemBytes, MAX_ITEM_BYTES, truncateUtf8 } from '../../shared/state/item-size.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  tableName = `item-size-${Math.random().toString(36).slice(2)}`;
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client.destroy();
});

/** An item of exactly `bytes` as {@link itemBytes} counts them: its `pad` string makes up the rest. */
function itemOf(bytes: number): Item {
  const base: Item = {
    pk: { S: 'ITEM#日本' },
    sk: { S: 'SIZE' },
    count: { N: '1234567' },
    members: { SS: ['a', '漢字'] },
    pad: { S: '' },
  };
  const rest = bytes - itemBytes(base);
  // Three-byte characters, then ASCII for what is left.
  base.pad = { S: `${'漢'.repeat(Math.floor(rest / 3))}${'x'.repeat(rest % 3)}` };
  return base;
}

describe('itemBytes', () => {
  it('counts an item as DynamoDB does at its limit: one byte more and DynamoDB Local refuses it', async () => {
    // Prepare
    const largest = itemOf(MAX_ITEM_BYTES);
    const tooLarge = itemOf(MAX_ITEM_BYTES + 1);

    // Act
    await client.send(new PutItemCommand({ TableName: tableName, Item: largest }));
    const refused = await client.send(new PutItemCommand({ TableName: tableName, Item: tooLarge })).then(
      () => undefined,
      (error: Error) => error,
    );

    // Assess
    expect(itemBytes(largest)).toBe(409_600);
    expect(refused?.message).toContain('Item size has exceeded the maximum allowed size');
  });

  it('counts maps and lists with their overhead, and numbers by their digits', () => {
    expect(itemBytes({ m: { M: { ab: { S: 'xyz' } } } })).toBe(1 + 3 + 1 + 2 + 3);
    expect(itemBytes({ l: { L: [{ N: '10' }, { BOOL: true }] } })).toBe(1 + 3 + 1 + 2 + 1 + 1);
  });
});

describe('DynamoDbRequester', () => {
  it('refuses an item past the limit before sending it, naming the item and its size', async () => {
    // Prepare
    const requester = new DynamoDbRequester({ client, tableName });

    // Act
    const refused = await requester
      .putItem({ Item: itemOf(MAX_ITEM_BYTES + 1) })
      .catch((error: Error) => error);

    // Assess
    expect(refused).toBeInstanceOf(StateItemTooLargeError);
    expect((refused as Error).message).toBe(
      `state item ITEM#日本 of table ${tableName} would hold 409601 bytes, more than DynamoDB's 409600-byte item limit: it was not written`,
    );
    expect(requester.stats().total).toBe(0);
  });
});

describe('truncateUtf8', () => {
  it('keeps whole characters within the bytes, surrogate pairs included', () => {
    expect(truncateUtf8('日本語', 7)).toBe('日本');
    expect(truncateUtf8('a😀b', 4)).toBe('a');
    expect(truncateUtf8('a😀b', 5)).toBe('a😀');
    expect(truncateUtf8('short', 512)).toBe('short');
  });
});
