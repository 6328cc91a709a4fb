import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** What a request is counted against: the kind of source whose items it names, or `other`. */
export type StateRequestOwner = 'org' | 'project' | 'cluster' | 'other';

const SOURCE_KEY = /^SOURCE#(org|project|cluster):/;

/**
 * The share of one DynamoDB request each kind of source bears, from the partition keys its input
 * names (`Key`, `Item`, a batch's or a transaction's keys, a query's key values): a source's item
 * (`SOURCE#<kind>:…`, its lease, cursor and seen-id chunks) counts for its kind. A request naming
 * the items of several sources (the tick's read of when each was last polled) is shared out by the
 * keys it names, so that every source bears the same part of it; one naming no source's item
 * (alerts, counters, names, inventory) is `other`. The shares add up to 1.
 *
 * @example
 * ```ts
 * requestShares({ Key: { pk: { S: 'SOURCE#cluster:5f4e3d2c1b0a998877665544:main' }, sk: { S: 'CURSOR' } } });
 * // { cluster: 1 }
 * ```
 */
export function requestShares(input: unknown): Partial<Record<StateRequestOwner, number>> {
  const owners = partitionKeysOf(input).map(ownerOf);
  if (owners.length === 0) return { other: 1 };
  const shares: Partial<Record<StateRequestOwner, number>> = {};
  for (const owner of owners) shares[owner] = (shares[owner] ?? 0) + 1 / owners.length;
  return shares;
}

function ownerOf(pk: string): StateRequestOwner {
  const kind = SOURCE_KEY.exec(pk)?.[1];
  return kind === 'org' || kind === 'project' || kind === 'cluster' ? kind : 'other';
}

/** The partition keys a DynamoDB command's input names. */
function partitionKeysOf(input: unknown): string[] {
  if (!isRecord(input)) return [];
  const keys: string[] = [];
  const add = (item: unknown): void => {
    const pk = isRecord(item) && isRecord(item.pk) ? item.pk.S : undefined;
    if (typeof pk === 'string') keys.push(pk);
  };
  add(input.Key);
  add(input.Item);
  if (isRecord(input.RequestItems)) {
    for (const table of Object.values(input.RequestItems)) {
      // BatchGetItem: `{ Keys }`; BatchWriteItem: a list of put and delete requests.
      if (isRecord(table) && Array.isArray(table.Keys)) for (const key of table.Keys) add(key);
      if (Array.isArray(table)) {
        for (const request of table) {
          if (!isRecord(request)) continue;
          if (isRecord(request.PutRequest)) add(request.PutRequest.Item);
          if (isRecord(request.DeleteRequest)) add(request.DeleteRequest.Key);
        }
      }
    }
  }
  if (Array.isArray(input.TransactItems)) {
    for (const item of input.TransactItems) {
      if (!isRecord(item)) continue;
      if (isRecord(item.Put)) add(item.Put.Item);
      for (const action of [item.Update, item.Delete, item.ConditionCheck]) {
        if (isRecord(action)) add(action.Key);
      }
    }
  }
  // A query names its partition key among its values.
  if (typeof input.KeyConditionExpression === 'string' && isRecord(input.ExpressionAttributeValues)) {
    for (const value of Object.values(input.ExpressionAttributeValues)) {
      if (isRecord(value) && typeof value.S === 'string' && SOURCE_KEY.test(value.S)) keys.push(value.S);
    }
  }
  return keys;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Counts the DynamoDB requests a client sends by the kind of source they are for (see
 * {@link requestShares}): every HTTP attempt, retries included, as the state store counts its own.
 *
 * @example
 * ```ts
 * const bySource = new StateRequestsBySource(client);
 * await runTick(deps, options);
 * bySource.counts(); // { project: 40.5, cluster: 40.5 }
 * ```
 */
export class StateRequestsBySource {
  readonly #counts = new Map<StateRequestOwner, number>();

  constructor(client: DynamoDBClient) {
    client.middlewareStack.add(
      (next) => async (args) => {
        for (const [owner, share] of Object.entries(requestShares(args.input))) {
          const key = owner as StateRequestOwner;
          this.#counts.set(key, (this.#counts.get(key) ?? 0) + (share ?? 0));
        }
        return next(args);
      },
      // The deserialize step runs once per HTTP attempt.
      { step: 'deserialize', name: 'benchStateRequestsBySource' },
    );
  }

  /** The requests so far, by kind of source; shared requests make fractions. */
  counts(): Partial<Record<StateRequestOwner, number>> {
    return Object.fromEntries(this.#counts);
  }

  reset(): void {
    this.#counts.clear();
  }
}
