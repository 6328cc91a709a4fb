import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDynamoDbLocalClient, startDynamoDbLocal } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

describe('DynamoDB Local test support', () => {
  it('provides a running emulator to test files', async () => {
    const client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
    onTestFinished(() => client.destroy());

    const tables = await client.send(new ListTablesCommand({}));

    expect(tables.TableNames).toBeInstanceOf(Array);
  });

  it('restarts on the same port with its data kept', async () => {
    const dbPath = await mkdtemp(join(tmpdir(), 'dynamodb-local-'));
    onTestFinished(() => rm(dbPath, { recursive: true, force: true }));
    const local = await startDynamoDbLocal({ dbPath });
    onTestFinished(() => local.stop());
    const client = createDynamoDbLocalClient(local.endpoint);
    onTestFinished(() => client.destroy());
    await client.send(
      new CreateTableCommand({
        TableName: 'restart-check',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    await client.send(new PutItemCommand({ TableName: 'restart-check', Item: { pk: { S: 'kept' } } }));

    await local.restart();
    const read = await client.send(
      new GetItemCommand({ TableName: 'restart-check', Key: { pk: { S: 'kept' } } }),
    );

    expect(local.endpoint).toBe(`http://127.0.0.1:${local.port}`);
    expect(read.Item).toEqual({ pk: { S: 'kept' } });
  });
});
