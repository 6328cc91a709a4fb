import {
  CreateTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { StateStoreRequestError } from './errors.js';
import { stateTableSchema } from './table-schema.js';

export interface CreateStateTableOptions {
  client: DynamoDBClient;
  tableName: string;
  /** How long to wait for the table to become active. Default 60 seconds. */
  maxWaitSeconds?: number;
  /**
   * Turn TTL on for `expiresAt`. Default true, as the stack does. DynamoDB Local deletes expired
   * items by the wall clock within about a second, so a test that drives time with an injected clock
   * set in the past passes false: the store treats expired items as absent by its own clock anyway,
   * and the wall clock must not delete items that the injected clock still sees as alive.
   */
  timeToLive?: boolean;
}

/**
 * Creates a state table (on-demand billing, TTL on `expiresAt`) and waits until it is active: for
 * DynamoDB Local, tests and benchmarks. In AWS the CDK stack creates the table. A table that already
 * exists is left as it is.
 *
 * @throws StateStoreRequestError when DynamoDB refuses to create the table or it does not become
 * active in time.
 *
 * @example
 * ```ts
 * await createStateTable({ client, tableName: 'atlas-audit-alerts-state' });
 * ```
 */
export async function createStateTable(options: CreateStateTableOptions): Promise<void> {
  const { client, tableName } = options;
  const { partitionKey, sortKey, keyType, timeToLiveAttribute } = stateTableSchema;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: partitionKey, AttributeType: keyType },
          { AttributeName: sortKey, AttributeType: keyType },
        ],
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ResourceInUseException') return;
    throw new StateStoreRequestError(
      `could not create state table ${tableName}: ${(error as Error).message}`,
      {
        cause: error,
        operation: 'CreateTable',
        tableName,
      },
    );
  }
  try {
    await waitUntilTableExists(
      { client, maxWaitTime: options.maxWaitSeconds ?? 60 },
      { TableName: tableName },
    );
    if (options.timeToLive === false) return;
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: timeToLiveAttribute },
      }),
    );
  } catch (error) {
    throw new StateStoreRequestError(
      `state table ${tableName} was created but could not be made ready: ${(error as Error).message}`,
      { cause: error, operation: 'UpdateTimeToLive', tableName },
    );
  }
}
