import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DeleteItemCommandOutput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  type GetItemCommandOutput,
  PutItemCommand,
  type PutItemCommandInput,
  type PutItemCommandOutput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
  type UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamodb-attributes.js';
import { StateItemRefusedError, StateItemTooLargeError, StateStoreRequestError } from './errors.js';
import { itemBytes, MAX_ITEM_BYTES, valueBytes } from './item-size.js';
import type { StateStoreStats } from './state-store.js';

/** Items in one `TransactWriteItems`: DynamoDB's limit. */
export const TRANSACTION_ITEMS = 100;

type StateCommand =
  | BatchGetItemCommand
  | DeleteItemCommand
  | GetItemCommand
  | PutItemCommand
  | QueryCommand
  | ScanCommand
  | TransactWriteItemsCommand
  | UpdateItemCommand;
export type WithoutTable<T> = Omit<T, 'TableName'>;

/**
 * Sends the state store's requests to one table through a caller's client: counts every HTTP attempt
 * by operation (an SDK middleware on each command, so a client shared with other code is not counted),
 * and turns failures other than a failed condition into a {@link StateStoreRequestError} that names
 * the table and says what to do. An item past DynamoDB's 400 KB limit is refused before it is sent
 * ({@link StateItemTooLargeError}), so it never fails a request with a `ValidationException`.
 */
export class DynamoDbRequester {
  readonly tableName: string;
  readonly #client: DynamoDBClient;
  readonly #requests = new Map<string, number>();

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#client = options.client;
    this.tableName = options.tableName;
  }

  getItem(input: WithoutTable<GetItemCommandInput>): Promise<GetItemCommandOutput> {
    const command = new GetItemCommand({ ...input, TableName: this.tableName });
    return this.#send('GetItem', command, () => this.#client.send(command));
  }

  /** @throws StateItemTooLargeError when the item is larger than DynamoDB takes; nothing is sent. */
  async putItem(input: WithoutTable<PutItemCommandInput>): Promise<PutItemCommandOutput> {
    if (input.Item !== undefined) this.assertFits(input.Item);
    const command = new PutItemCommand({ ...input, TableName: this.tableName });
    return this.#send('PutItem', command, () => this.#client.send(command));
  }

  /**
   * @throws StateItemTooLargeError when the key and the values the update writes are already larger
   *   than DynamoDB takes; nothing is sent.
   */
  async updateItem(input: WithoutTable<UpdateItemCommandInput>): Promise<UpdateItemCommandOutput> {
    if (input.Key !== undefined) {
      const values = Object.values(input.ExpressionAttributeValues ?? {});
      this.assertFits(
        input.Key,
        values.reduce((sum, value) => sum + valueBytes(value), 0),
      );
    }
    const command = new UpdateItemCommand({ ...input, TableName: this.tableName });
    return this.#send('UpdateItem', command, () => this.#client.send(command));
  }

  deleteItem(input: WithoutTable<DeleteItemCommandInput>): Promise<DeleteItemCommandOutput> {
    const command = new DeleteItemCommand({ ...input, TableName: this.tableName });
    return this.#send('DeleteItem', command, () => this.#client.send(command));
  }

  query(input: WithoutTable<QueryCommandInput>): Promise<QueryCommandOutput> {
    const command = new QueryCommand({ ...input, TableName: this.tableName });
    return this.#send('Query', command, () => this.#client.send(command));
  }

  scan(input: WithoutTable<ScanCommandInput>): Promise<ScanCommandOutput> {
    const command = new ScanCommand({ ...input, TableName: this.tableName });
    return this.#send('Scan', command, () => this.#client.send(command));
  }

  /**
   * One `BatchGetItem` on this table (at most 100 keys): the items found, and the keys DynamoDB left
   * unprocessed (the caller asks for them again).
   */
  async batchGetItem(input: {
    keys: Item[];
    /** Attributes to read, with the placeholders it uses; all of them when absent. */
    expression?: string;
    names?: Record<string, string>;
    /** Strongly consistent reads (twice the read capacity). Default false. */
    consistent?: boolean;
  }): Promise<{ items: Item[]; unprocessed: Item[] }> {
    const command = new BatchGetItemCommand({
      RequestItems: {
        [this.tableName]: {
          Keys: input.keys,
          ...(input.expression === undefined ? {} : { ProjectionExpression: input.expression }),
          ...(input.names === undefined ? {} : { ExpressionAttributeNames: input.names }),
          ...(input.consistent === true ? { ConsistentRead: true } : {}),
        },
      },
    });
    const output: BatchGetItemCommandOutput = await this.#send('BatchGetItem', command, () =>
      this.#client.send(command),
    );
    return {
      items: output.Responses?.[this.tableName] ?? [],
      unprocessed: output.UnprocessedKeys?.[this.tableName]?.Keys ?? [],
    };
  }

  /**
   * One `TransactWriteItems` (at most {@link TRANSACTION_ITEMS} items, each naming this table): `undefined` when it was
   * applied, or one reason per item when DynamoDB cancelled it (`code` `None` for the items that were
   * not the cause; `item` the record of an item whose condition failed, when asked for).
   */
  async transactWriteItems(
    items: TransactWriteItem[],
  ): Promise<Array<{ code: string; item: Item | undefined }> | undefined> {
    for (const item of items) if (item.Put?.Item !== undefined) this.assertFits(item.Put.Item);
    const command = new TransactWriteItemsCommand({ TransactItems: items });
    try {
      await this.#send('TransactWriteItems', command, () => this.#client.send(command));
      return undefined;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons === undefined) throw error;
      return reasons;
    }
  }

  /**
   * Refuses an item (with `extraBytes` more an update would add) larger than DynamoDB's item limit.
   *
   * @throws StateItemTooLargeError naming the item's partition key and its size.
   */
  assertFits(item: Item, extraBytes = 0): void {
    const bytes = itemBytes(item) + extraBytes;
    if (bytes <= MAX_ITEM_BYTES) return;
    const pk = item.pk?.S ?? '?';
    const shown = pk.length > 80 ? `${pk.slice(0, 80)}…` : pk;
    throw new StateItemTooLargeError(
      `state item ${shown} of table ${this.tableName} would hold ${bytes} bytes, more than DynamoDB's ` +
        `${MAX_ITEM_BYTES}-byte item limit: it was not written`,
      { pk, bytes },
    );
  }

  stats(): StateStoreStats {
    const requests = Object.fromEntries(this.#requests);
    return { requests, total: [...this.#requests.values()].reduce((sum, count) => sum + count, 0) };
  }

  resetStats(): void {
    this.#requests.clear();
  }

  async #send<Output>(
    operation: string,
    command: StateCommand,
    send: () => Promise<Output>,
  ): Promise<Output> {
    // The deserialize step runs once per HTTP attempt, retries included: what DynamoDB bills and sees.
    // Every command's stack has the same shape; the cast only unifies the per-command generic types.
    (command.middlewareStack as GetItemCommand['middlewareStack']).add(
      (next) => async (args) => {
        this.#requests.set(operation, (this.#requests.get(operation) ?? 0) + 1);
        return next(args);
      },
      { step: 'deserialize', name: 'stateStoreRequestCounter', override: true },
    );
    // The SDK's logger middleware copies every request and answer through the sensitive-data filter
    // of the operation's schema to hand them to the client's logger, even to the default one that
    // writes nothing: a few percent of a backlog tick's CPU. This project gives its clients no logger
    // and reads no SDK log line, so the store's own commands skip it; other commands keep it.
    (command.middlewareStack as GetItemCommand['middlewareStack']).add((next) => next, {
      step: 'initialize',
      name: 'loggerMiddleware',
      override: true,
    });
    try {
      return await send();
    } catch (error) {
      if (conditionFailure(error) !== undefined || cancellationReasons(error) !== undefined) throw error;
      throw requestError(operation, this.tableName, error);
    }
  }
}

/**
 * The item a failed condition returned (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) when `error`
 * is a failed condition, as `{ item }` (`item` is `undefined` when there was no item); `undefined` for
 * any other error.
 *
 * @example
 * ```ts
 * const failure = conditionFailure(error);
 * if (failure === undefined) throw error;
 * ```
 */
export function conditionFailure(error: unknown): { item: Item | undefined } | undefined {
  if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') return undefined;
  const item = (error as Error & { Item?: Item }).Item;
  return { item };
}

/**
 * Whether DynamoDB refused a request for what it carried (a `ValidationException`: an item too
 * large, a value it does not take), or the store refused an item before sending it: the same request
 * would be refused again, whereas DynamoDB unreachable or throttled may answer next time.
 *
 * @example
 * ```ts
 * if (!refusedByDynamoDb(error)) throw error;
 * ```
 */
export function refusedByDynamoDb(error: unknown): boolean {
  if (error instanceof StateItemRefusedError) return true;
  return (
    error instanceof StateStoreRequestError &&
    (error.cause as Error | undefined)?.name === 'ValidationException'
  );
}

/** The reasons of a cancelled transaction, one per item, or `undefined` for any other error. */
function cancellationReasons(error: unknown): Array<{ code: string; item: Item | undefined }> | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: Array<{ Code?: string; Item?: Item }> })
    .CancellationReasons;
  if (reasons === undefined) return undefined;
  return reasons.map((reason) => ({ code: reason.Code ?? 'None', item: reason.Item }));
}

function requestError(operation: string, tableName: string, error: unknown): StateStoreRequestError {
  const name = error instanceof Error ? error.name : 'Error';
  const detail = error instanceof Error ? error.message : String(error);
  const attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts;
  let advice: string;
  if (name === 'ResourceNotFoundException') {
    advice = `state table ${tableName} does not exist in this account and region: deploy the stack, or name an existing table`;
  } else if (name === 'AccessDeniedException' || name === 'UnrecognizedClientException') {
    advice = `DynamoDB refused access to state table ${tableName}: give the caller read and write access to it`;
  } else {
    const tries = attempts === undefined ? '' : ` after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
    advice = `DynamoDB ${operation} on state table ${tableName} failed${tries}: the work is retried next time`;
  }
  return new StateStoreRequestError(`${advice} (${name}: ${detail})`, { cause: error, operation, tableName });
}
