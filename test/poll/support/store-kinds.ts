import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { DynamoDbStateStore, type StateStore } from '../../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../../support/dynamodb-local-setup.js';
import {
  dynamoDbStoreFactory,
  fileStoreFactory,
  type PollFixture,
  type StoreFactory,
} from './poll-fixture.js';

/** A store implementation a suite runs against. */
export interface StoreKind {
  name: string;
  factory: StoreFactory;
  /**
   * The store a second worker uses on the same state: another DynamoDB store on the same table, or
   * the same file store (its lock keeps other processes out, not other ticks of this one).
   */
  secondWorker(fixture: PollFixture): StateStore;
}

/**
 * The two store implementations, for `describe.each`: the file store, and DynamoDB on DynamoDB Local
 * (one client per test file; the global setup starts the emulator).
 */
export function storeKinds(): StoreKind[] {
  let client: DynamoDBClient | undefined;
  beforeAll(async () => {
    client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  });
  afterAll(() => {
    client?.destroy();
  });
  const dynamoClient = (): DynamoDBClient => {
    if (client === undefined) throw new Error('DynamoDB Local is not started');
    return client;
  };
  return [
    { name: 'file store', factory: fileStoreFactory(), secondWorker: (fixture) => fixture.store },
    {
      name: 'DynamoDB store',
      factory: dynamoDbStoreFactory(dynamoClient),
      secondWorker: (fixture) =>
        new DynamoDbStateStore({
          client: dynamoClient(),
          tableName: (fixture.store as DynamoDbStateStore).tableName,
          clock: fixture.clock,
        }),
    },
  ];
}
