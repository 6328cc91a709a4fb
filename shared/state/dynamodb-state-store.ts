import { randomBytes, randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../bounded-concurrency.js';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type {
  CounterIncrement,
  CounterIncrementOptions,
  SuppressionIncrement,
} from '../rules/counter-store.js';
import type { FirstSeenRecord, FirstSeenWriteFailures } from '../rules/first-seen-store.js';
import type { SuppressionAnswer } from '../rules/suppression-roll-up.js';
import { type AlertHour, addAlertHours, formatAlertHours, parseAlertHours } from './alert-hours.js';
import type { ClaimDeliveryOptions, DeliveryClaim, DeliveryClaimStore } from './delivery-claims.js';
import type {
  AppendDigestEntriesOptions,
  ClaimDigestOptions,
  DigestClaimOptions,
  DigestClaimResult,
  DigestEntries,
  DigestEntry,
  DigestPeriodOptions,
  DigestStore,
} from './digest-store.js';
import {
  type AlertBatchContext,
  claimAlertBatch,
  markAlertBatch,
  sentRecord,
} from './dynamodb-alert-batches.js';
import {
  binaryValue,
  type Item,
  numberValue,
  readBinary,
  readNumber,
  readString,
  readStringSet,
  stringValue,
} from './dynamodb-attributes.js';
import { batchGetAll } from './dynamodb-batch-reads.js';
import { type ChunkLocation, deleteChunks, readChunks, splitBytes, writeChunks } from './dynamodb-chunks.js';
import { incrementCounterBatch } from './dynamodb-counter-batches.js';
import {
  appendDigestItems,
  claimDigestItem,
  type DigestContext,
  listDigestItemPeriods,
  markDigestItemSent,
  readDigestItems,
  releaseDigestItem,
} from './dynamodb-digests.js';
import { readFirstSeenItems, writeFirstSeenItems } from './dynamodb-first-seen.js';
import { type ItemKey, stateKeys } from './dynamodb-keys.js';
import { conditionFailure, DynamoDbRequester, TRANSACTION_ITEMS } from './dynamodb-requester.js';
import { suppressBatch } from './dynamodb-suppression-batches.js';
import { LeaseLostError } from './errors.js';
import { DAY_MS, isExpired, nowSeconds, ttlSeconds } from './expiry.js';
import { FullCounters } from './full-counters.js';
import { decodeInventory, encodeInventory } from './inventory-codec.js';
import { type InventorySnapshot, inventoryKeyOf } from './inventory-snapshot.js';
import { truncateUtf8 } from './item-size.js';
import { type ResolvedRetention, resolveRetention, type StateRetention } from './retention.js';
import { SEEN_ID_BYTES, SeenIdSet } from './seen-id-set.js';
import { MAX_ERROR_MESSAGE_CHARS, MAX_NAME_BYTES, recordedError, sourceReport } from './source-report.js';
import type {
  AcquireLeaseOptions,
  AlertClaimOptions,
  AlertClaimResult,
  CachedName,
  ClaimAlertOptions,
  ClaimAlertsOptions,
  CommitCursorOptions,
  CreateMissingCursorsOptions,
  LeaseAcquisition,
  MarkAlertsSentOptions,
  ReadInventoryOptions,
  ReadNamesOptions,
  ReadSourceTimesOptions,
  ReleaseLeaseOptions,
  RenewLeaseOptions,
  SourceCursor,
  SourceErrorInput,
  SourceLease,
  SourceReport,
  SourceTimes,
  StateStore,
  StateStoreStats,
  WriteInventoryOptions,
  WriteNamesOptions,
} from './state-store.js';

/**
 * Seen ids kept in the source's own item: 30,000 × 12 bytes = 360 KB, under DynamoDB's 400 KB item
 * limit with room for the other attributes. A 15-minute overlap holding more than 30,000 events is far
 * beyond what one Atlas project produces; past it the ids spill into chunk items.
 */
export const MAX_SEEN_IDS_PER_ITEM = 30_000;

/** Compressed inventory bytes kept in the snapshot's own item; the rest spills into chunk items. */
export const MAX_INVENTORY_BYTES_PER_ITEM = 350_000;

/**
 * How long a chunk item of seen ids lives without being replaced. Chunks are deleted when a commit
 * replaces them; this TTL only collects the chunks of a commit that died half-way. A spilled cursor
 * left uncommitted for longer loses its extra ids (with a warning), never its watermark.
 */
const SEEN_CHUNK_RETENTION_MS = 400 * DAY_MS;

/** Cursors {@link DynamoDbStateStore.createMissingCursors} writes at once. */
const CURSOR_CREATION_CONCURRENCY = 8;

/** Name items {@link DynamoDbStateStore.writeNames} puts at once. */
const NAME_WRITE_CONCURRENCY = 4;

/** Options of {@link DynamoDbStateStore}. */
export interface DynamoDbStateStoreOptions extends StateRetention {
  /** Created once per container by the caller; the store never closes it. */
  client: DynamoDBClient;
  /** The state table (see `stateTableSchema`). */
  tableName: string;
  clock?: Clock;
  /** Receives warnings: chunks that could not be read or deleted. */
  logger?: Logger;
  /** Seen ids kept in a source's item before spilling into chunks. Default and maximum 30,000. */
  maxSeenIdsPerItem?: number;
  /** Compressed inventory bytes kept in the snapshot's item before spilling. Default and maximum 350,000. */
  maxInventoryBytesPerItem?: number;
}

/** The extra chunks a source's item points to. */
interface SeenSpill {
  generation: string;
  chunks: number;
}

/**
 * The state store in DynamoDB, for the Lambda: one table (see `stateTableSchema`), one item per source,
 * alert, counter and inventory snapshot, conditional writes throughout.
 *
 * A steady-state tick costs two requests per source, whatever the number of events: acquiring the
 * lease is one `UpdateItem` that returns the whole item (watermark and seen ids packed 12 bytes each
 * in a binary attribute), and committing is one `UpdateItem` conditioned on the lease token (fencing)
 * that also releases the lease. Only a window of more than 30,000 seen ids adds requests: the ids past
 * the first 30,000 spill into chunk items (see `dynamodb-chunks.ts`).
 *
 * Items past their TTL count as absent: DynamoDB deletes them days late. Requests are counted per
 * HTTP attempt, by operation, in {@link stats}.
 *
 * @example
 * ```ts
 * const client = new DynamoDBClient({}); // once per container
 * const store = new DynamoDbStateStore({ client, tableName: config.tableName, logger });
 * const acquisition = await store.acquireLease({ source: 'org:5f4e…', owner: context.awsRequestId, durationMs });
 * ```
 */
export class DynamoDbStateStore implements StateStore, DeliveryClaimStore, DigestStore {
  readonly #requester: DynamoDbRequester;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retention: ResolvedRetention;
  readonly #maxSeenIdsPerItem: number;
  readonly #maxInventoryBytesPerItem: number;
  /**
   * The chunks each held lease's cursor points to, so a commit can delete the ones it replaces. Keyed
   * by the lease object handed out: a caller that passes back a copy only skips that clean-up, and
   * the replaced chunks then expire through TTL.
   */
  readonly #spills = new WeakMap<SourceLease, SeenSpill>();
  /** Each held lease's hourly alert counts, as read with the lease: a commit adds to them. By token. */
  readonly #alertHours = new Map<string, AlertHour[]>();
  /** Counter sets seen full: an increment they cannot take costs no request. */
  readonly #fullCounters = new FullCounters();
  /** Sources this instance has seen a cursor of: {@link createMissingCursors} skips them. */
  readonly #withCursor = new Set<string>();

  /** @throws RangeError when a limit or retention setting is out of range. */
  constructor(options: DynamoDbStateStoreOptions) {
    this.#requester = new DynamoDbRequester({ client: options.client, tableName: options.tableName });
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#retention = resolveRetention(options);
    this.#maxSeenIdsPerItem = limitSetting(
      'maxSeenIdsPerItem',
      options.maxSeenIdsPerItem,
      MAX_SEEN_IDS_PER_ITEM,
    );
    this.#maxInventoryBytesPerItem = limitSetting(
      'maxInventoryBytesPerItem',
      options.maxInventoryBytesPerItem,
      MAX_INVENTORY_BYTES_PER_ITEM,
    );
  }

  /** The table this store writes to. */
  get tableName(): string {
    return this.#requester.tableName;
  }

  async acquireLease(options: AcquireLeaseOptions): Promise<LeaseAcquisition> {
    const now = this.#clock.now();
    const key = stateKeys.source(options.source);
    const lease: SourceLease = {
      source: options.source,
      owner: options.owner,
      token: randomUUID(),
      expiresAt: now + options.durationMs,
    };
    let item: Item;
    try {
      const output = await this.#requester.updateItem({
        Key: keyOf(key),
        // The connection is recorded for status; the connection default is the attribute's absence.
        UpdateExpression: `SET #source = :source, #leaseToken = :token, #leaseOwner = :owner, #leaseExpiresAt = :expiresAt${
          options.connection === undefined ? ' REMOVE #connection' : ', #connection = :connection'
        }`,
        ConditionExpression: 'attribute_not_exists(#leaseToken) OR #leaseExpiresAt <= :now',
        ExpressionAttributeNames: sourceNames(
          'source',
          'leaseToken',
          'leaseOwner',
          'leaseExpiresAt',
          'connection',
        ),
        ExpressionAttributeValues: {
          ':source': stringValue(options.source),
          ':token': stringValue(lease.token),
          ':owner': stringValue(lease.owner),
          ':expiresAt': numberValue(lease.expiresAt),
          ':now': numberValue(now),
          ...(options.connection === undefined ? {} : { ':connection': stringValue(options.connection) }),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      item = output.Attributes ?? {};
    } catch (error) {
      const failure = conditionFailure(error);
      if (failure === undefined) throw error;
      const held = failure.item ?? {};
      return {
        acquired: false,
        owner: readString(held, 'leaseOwner') ?? 'unknown',
        expiresAt: readNumber(held, 'leaseExpiresAt') ?? now,
      };
    }
    const spill = spillOf(item);
    if (spill !== undefined) this.#spills.set(lease, spill);
    this.#alertHours.set(lease.token, parseAlertHours(readString(item, 'alertHours')));
    const cursor = await this.#cursorOf(item, key, spill);
    if (cursor !== undefined) this.#withCursor.add(options.source);
    const lastError = recordedError(
      readNumber(item, 'lastErrorAt'),
      readString(item, 'lastErrorCode'),
      readString(item, 'lastErrorMessage'),
    );
    return { acquired: true, lease, cursor, ...(lastError === undefined ? {} : { lastError }) };
  }

  async renewLease(options: RenewLeaseOptions): Promise<SourceLease> {
    const expiresAt = this.#clock.now() + options.durationMs;
    try {
      await this.#requester.updateItem({
        Key: keyOf(stateKeys.source(options.lease.source)),
        UpdateExpression: 'SET #leaseExpiresAt = :expiresAt',
        ConditionExpression: '#leaseToken = :token',
        ExpressionAttributeNames: sourceNames('leaseExpiresAt', 'leaseToken'),
        ExpressionAttributeValues: {
          ':expiresAt': numberValue(expiresAt),
          ':token': stringValue(options.lease.token),
        },
      });
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
      throw leaseLost(options.lease, 'renew the lease on');
    }
    const renewed: SourceLease = { ...options.lease, expiresAt };
    const spill = this.#spills.get(options.lease);
    if (spill !== undefined) this.#spills.set(renewed, spill);
    return renewed;
  }

  async commitCursor(options: CommitCursorOptions): Promise<void> {
    const { lease } = options;
    const now = this.#clock.now();
    const key = stateKeys.source(lease.source);
    const bytes = SeenIdSet.from(options.seenIds).toBytes();
    const [head, ...rest] = splitBytes(bytes, this.#maxSeenIdsPerItem * SEEN_ID_BYTES);
    const spill: SeenSpill | undefined =
      rest.length === 0 ? undefined : { generation: newGeneration(), chunks: rest.length };
    if (spill !== undefined) {
      await writeChunks(this.#requester, {
        ...seenLocation(key, spill),
        parts: rest,
        expiresAt: ttlSeconds(now + SEEN_CHUNK_RETENTION_MS),
      });
    }

    const set: Record<string, AttributeValue> = {
      watermark: numberValue(options.watermark),
      committedAt: numberValue(now),
      seenCount: numberValue(bytes.length / SEEN_ID_BYTES),
    };
    const remove: string[] = [];
    if (head === undefined) remove.push('seen');
    else set.seen = binaryValue(head);
    if (spill === undefined) remove.push('seenGen', 'seenChunks');
    else
      Object.assign(set, { seenGen: stringValue(spill.generation), seenChunks: numberValue(spill.chunks) });
    if (options.inventoryTakenAt !== undefined) set.inventoryTakenAt = numberValue(options.inventoryTakenAt);
    if (options.polled ?? true) set.polledAt = numberValue(now);
    const release = options.release ?? true;
    if (release) remove.push('leaseToken', 'leaseOwner', 'leaseExpiresAt');
    const hours = this.#turnRecord(set, remove, options, now);

    try {
      await this.#requester.updateItem({
        Key: keyOf(key),
        UpdateExpression: updateExpression(set, remove),
        ConditionExpression: '#leaseToken = :token',
        ExpressionAttributeNames: sourceNames('leaseToken', ...Object.keys(set), ...remove),
        ExpressionAttributeValues: { ...placeholderValues(set), ':token': stringValue(lease.token) },
      });
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
      if (spill !== undefined) await this.#deleteQuietly(seenLocation(key, spill), spill.chunks);
      throw leaseLost(lease, 'commit the cursor of');
    }

    this.#withCursor.add(lease.source);
    if (release) this.#alertHours.delete(lease.token);
    else if (hours !== undefined) this.#alertHours.set(lease.token, hours);
    const replaced = this.#spills.get(lease);
    if (release || spill === undefined) this.#spills.delete(lease);
    else this.#spills.set(lease, spill);
    if (replaced !== undefined) await this.#deleteQuietly(seenLocation(key, replaced), replaced.chunks);
  }

  /**
   * `BatchGetItem` of the source items, 100 keys a request, only the times projected (eventually
   * consistent: an order needs no more). Keys DynamoDB leaves unprocessed are asked for again (see
   * `batchGetAll`).
   */
  async readSourceTimes(options: ReadSourceTimesOptions): Promise<Map<string, SourceTimes>> {
    const byKey = new Map<string, string>();
    for (const source of options.sources) byKey.set(stateKeys.source(source).pk, source);
    const items = await batchGetAll(this.#requester, this.#clock, {
      keys: [...byKey.keys()].map((pk) => ({ pk: stringValue(pk), sk: stringValue('CURSOR') })),
      projection: {
        expression: '#pk, #watermark, #polledAt',
        names: sourceNames('pk', 'watermark', 'polledAt'),
      },
      what: 'source items',
    });
    const times = new Map<string, SourceTimes>();
    for (const item of items) {
      const source = byKey.get(readString(item, 'pk') ?? '');
      if (source === undefined) continue;
      const watermark = readNumber(item, 'watermark');
      const polledAt = readNumber(item, 'polledAt');
      times.set(source, {
        ...(watermark === undefined ? {} : { watermark }),
        ...(polledAt === undefined ? {} : { polledAt }),
      });
    }
    return times;
  }

  /**
   * One conditional `UpdateItem` per source not known to have a cursor (8 at once); a source this
   * store instance has seen a cursor of (a lease that returned one, a commit) costs no request.
   */
  async createMissingCursors(options: CreateMissingCursorsOptions): Promise<string[]> {
    const pending = options.cursors.filter(({ source }) => !this.#withCursor.has(source));
    const created = await mapWithConcurrency(pending, CURSOR_CREATION_CONCURRENCY, async (cursor) => {
      try {
        await this.#requester.updateItem({
          Key: keyOf(stateKeys.source(cursor.source)),
          UpdateExpression:
            'SET #source = :source, #watermark = :watermark, #committedAt = :now, #seenCount = :zero',
          ConditionExpression: 'attribute_not_exists(#watermark)',
          ExpressionAttributeNames: sourceNames('source', 'watermark', 'committedAt', 'seenCount'),
          ExpressionAttributeValues: {
            ':source': stringValue(cursor.source),
            ':watermark': numberValue(cursor.watermark),
            ':now': numberValue(this.#clock.now()),
            ':zero': numberValue(0),
          },
        });
      } catch (error) {
        if (conditionFailure(error) === undefined) throw error;
        this.#withCursor.add(cursor.source);
        return undefined;
      }
      this.#withCursor.add(cursor.source);
      return cursor.source;
    });
    return created.filter((source): source is string => source !== undefined);
  }

  async releaseLease(options: ReleaseLeaseOptions): Promise<boolean> {
    this.#spills.delete(options.lease);
    const now = this.#clock.now();
    const set: Record<string, AttributeValue> = {};
    const remove = ['leaseToken', 'leaseOwner', 'leaseExpiresAt'];
    if (options.polled ?? false) set.polledAt = numberValue(now);
    // A release without an error leaves a recorded one alone: only a commit is a turn that went well.
    if (options.error !== undefined || (options.alertsSent ?? 0) > 0) this.#turnRecord(set, [], options, now);
    this.#alertHours.delete(options.lease.token);
    try {
      await this.#requester.updateItem({
        Key: keyOf(stateKeys.source(options.lease.source)),
        UpdateExpression: updateExpression(set, remove),
        ConditionExpression: '#leaseToken = :token',
        ExpressionAttributeNames: sourceNames('leaseToken', ...Object.keys(set), ...remove),
        ExpressionAttributeValues: { ...placeholderValues(set), ':token': stringValue(options.lease.token) },
      });
      return true;
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
      return false;
    }
  }

  /**
   * Adds a turn's outcome to a source item's update: the alerts it sent to the hourly counts read
   * with the lease, and its error (or, without one, the removal of the last). Returns the new counts.
   */
  #turnRecord(
    set: Record<string, AttributeValue>,
    remove: string[],
    options: { lease: SourceLease; alertsSent?: number; error?: SourceErrorInput },
    now: number,
  ): AlertHour[] | undefined {
    let hours: AlertHour[] | undefined;
    const sent = options.alertsSent ?? 0;
    if (sent > 0) {
      hours = addAlertHours(this.#alertHours.get(options.lease.token) ?? [], now, sent);
      set.alertHours = stringValue(formatAlertHours(hours));
    }
    if (options.error === undefined) {
      remove.push('lastErrorAt', 'lastErrorCode', 'lastErrorMessage');
    } else {
      set.lastErrorAt = numberValue(now);
      set.lastErrorCode = stringValue(options.error.code);
      set.lastErrorMessage = stringValue(options.error.message.slice(0, MAX_ERROR_MESSAGE_CHARS));
    }
    return hours;
  }

  /**
   * A `Scan` of the table for source items (paged, projected to what a report shows): the table
   * holds alerts, counters and inventory too, so it reads them all; for a person, never a tick.
   */
  async listSourceReports(): Promise<SourceReport[]> {
    const now = this.#clock.now();
    const reports: SourceReport[] = [];
    let start: Item | undefined;
    do {
      const output = await this.#requester.scan({
        FilterExpression: '#sk = :cursor',
        ProjectionExpression:
          '#source, #connection, #watermark, #polledAt, #leaseOwner, #leaseExpiresAt, #lastErrorAt, #lastErrorCode, #lastErrorMessage, #alertHours',
        ExpressionAttributeNames: sourceNames(
          'sk',
          'source',
          'connection',
          'watermark',
          'polledAt',
          'leaseOwner',
          'leaseExpiresAt',
          'lastErrorAt',
          'lastErrorCode',
          'lastErrorMessage',
          'alertHours',
        ),
        ExpressionAttributeValues: { ':cursor': stringValue('CURSOR') },
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      });
      for (const item of output.Items ?? []) {
        const source = readString(item, 'source');
        if (source === undefined) continue;
        reports.push(
          sourceReport({
            source,
            connection: readString(item, 'connection'),
            watermark: readNumber(item, 'watermark'),
            polledAt: readNumber(item, 'polledAt'),
            leaseOwner: readString(item, 'leaseOwner'),
            leaseExpiresAt: readNumber(item, 'leaseExpiresAt'),
            lastErrorAt: readNumber(item, 'lastErrorAt'),
            lastErrorCode: readString(item, 'lastErrorCode'),
            lastErrorMessage: readString(item, 'lastErrorMessage'),
            alertHours: parseAlertHours(readString(item, 'alertHours')),
            now,
          }),
        );
      }
      start = output.LastEvaluatedKey;
    } while (start !== undefined);
    return reports.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  async claimAlert(options: ClaimAlertOptions): Promise<AlertClaimResult> {
    const now = this.#clock.now();
    const claim = { fingerprint: options.fingerprint, token: randomUUID(), expiresAt: now + options.claimMs };
    try {
      const output = await this.#requester.putItem({
        Item: {
          ...keyOf(stateKeys.alert(options.fingerprint)),
          status: stringValue('IN_PROGRESS'),
          claimToken: stringValue(claim.token),
          claimExpiresAt: numberValue(claim.expiresAt),
          expiresAt: numberValue(ttlSeconds(claim.expiresAt + this.#retention.alertRetentionMs)),
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR #expiresAt <= :nowSeconds OR (#status = :inProgress AND #claimExpiresAt <= :now)',
        ExpressionAttributeNames: {
          '#expiresAt': 'expiresAt',
          '#status': 'status',
          '#claimExpiresAt': 'claimExpiresAt',
        },
        ExpressionAttributeValues: {
          ':nowSeconds': numberValue(nowSeconds(now)),
          ':inProgress': stringValue('IN_PROGRESS'),
          ':now': numberValue(now),
        },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      const previous = output.Attributes;
      const tookOver = previous !== undefined && !isExpired(readNumber(previous, 'expiresAt'), now);
      return { outcome: 'claimed', claim, tookOver };
    } catch (error) {
      const failure = conditionFailure(error);
      if (failure === undefined) throw error;
      const existing = failure.item ?? {};
      if (readString(existing, 'status') === 'SENT') {
        return { outcome: 'sent', sentAt: readNumber(existing, 'sentAt') ?? 0 };
      }
      return { outcome: 'in-progress', claimExpiresAt: readNumber(existing, 'claimExpiresAt') ?? now };
    }
  }

  /**
   * Conditional `Put`s in `TransactWriteItems` of up to 100; see `claimAlertBatch` for how a
   * cancelled transaction is resolved with its `CancellationReasons`.
   */
  async claimAlerts(options: ClaimAlertsOptions): Promise<AlertClaimResult[]> {
    const results: AlertClaimResult[] = [];
    for (let at = 0; at < options.fingerprints.length; at += TRANSACTION_ITEMS) {
      const fingerprints = options.fingerprints.slice(at, at + TRANSACTION_ITEMS);
      results.push(
        ...(await claimAlertBatch(this.#alertBatches(), { fingerprints, claimMs: options.claimMs })),
      );
    }
    return results;
  }

  /** Unconditional puts in `TransactWriteItems` of up to 100, one batch after another. */
  async markAlertsSent(options: MarkAlertsSentOptions): Promise<void> {
    for (let at = 0; at < options.claims.length; at += TRANSACTION_ITEMS) {
      await markAlertBatch(this.#alertBatches(), {
        claims: options.claims.slice(at, at + TRANSACTION_ITEMS),
      });
    }
  }

  #alertBatches(): AlertBatchContext {
    return {
      requester: this.#requester,
      clock: this.#clock,
      alertRetentionMs: this.#retention.alertRetentionMs,
    };
  }

  async markAlertSent(options: AlertClaimOptions): Promise<void> {
    await this.#requester.putItem({
      Item: sentRecord(options.claim.fingerprint, this.#clock.now(), this.#retention.alertRetentionMs),
    });
  }

  async releaseAlertClaim(options: AlertClaimOptions): Promise<void> {
    try {
      await this.#requester.deleteItem({
        Key: keyOf(stateKeys.alert(options.claim.fingerprint)),
        ConditionExpression: '#status = :inProgress AND #claimToken = :token',
        ExpressionAttributeNames: { '#status': 'status', '#claimToken': 'claimToken' },
        ExpressionAttributeValues: {
          ':inProgress': stringValue('IN_PROGRESS'),
          ':token': stringValue(options.claim.token),
        },
      });
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
    }
  }

  /**
   * One conditional `PutItem` of the claim's item, holding until its TTL: it succeeds when there is
   * no item or the one there has expired.
   */
  async claimDelivery(options: ClaimDeliveryOptions): Promise<DeliveryClaim | undefined> {
    const now = this.#clock.now();
    const expiresAtSeconds = ttlSeconds(now + options.holdMs);
    const claim = { key: options.key, token: randomUUID(), expiresAt: expiresAtSeconds * 1000 };
    try {
      await this.#requester.putItem({
        Item: {
          ...keyOf(stateKeys.delivery(options.key)),
          claimToken: stringValue(claim.token),
          expiresAt: numberValue(expiresAtSeconds),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :nowSeconds',
        ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':nowSeconds': numberValue(nowSeconds(now)) },
      });
      return claim;
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
      return undefined;
    }
  }

  /** One `DeleteItem` conditioned on the claim's token. */
  async releaseDelivery(claim: DeliveryClaim): Promise<void> {
    try {
      await this.#requester.deleteItem({
        Key: keyOf(stateKeys.delivery(claim.key)),
        ConditionExpression: '#claimToken = :token',
        ExpressionAttributeNames: { '#claimToken': 'claimToken' },
        ExpressionAttributeValues: { ':token': stringValue(claim.token) },
      });
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
    }
  }

  /** See `appendDigestItems`: a transaction per 98 entries, conditioned on the period's claim. */
  appendDigestEntries(options: AppendDigestEntriesOptions): Promise<DigestEntry[]> {
    return appendDigestItems(this.#digestContext(), options);
  }

  /** One `GetItem` of the route's index of pending periods. */
  listDigestPeriods(options: { route: string }): Promise<string[]> {
    return listDigestItemPeriods(this.#digestContext(), options.route);
  }

  claimDigest(options: ClaimDigestOptions): Promise<DigestClaimResult> {
    return claimDigestItem(this.#digestContext(), options);
  }

  readDigestEntries(options: DigestPeriodOptions): Promise<DigestEntries> {
    return readDigestItems(this.#digestContext(), options);
  }

  markDigestSent(options: DigestClaimOptions): Promise<void> {
    return markDigestItemSent(this.#digestContext(), options.claim);
  }

  releaseDigestClaim(options: DigestClaimOptions): Promise<void> {
    return releaseDigestItem(this.#digestContext(), options.claim);
  }

  #digestContext(): DigestContext {
    return {
      requester: this.#requester,
      clock: this.#clock,
      alertRetentionMs: this.#retention.alertRetentionMs,
    };
  }

  /** {@link incrementMany} of one increment: a read and at most one conditional write. */
  async increment(key: string, member: string, options: CounterIncrementOptions): Promise<number> {
    const [count = 0] = await this.incrementMany([{ key, member, ...options }]);
    return count;
  }

  /**
   * A strongly consistent `BatchGetItem` of the keys not known full, then one conditional `UpdateItem`
   * per key whose set changed; none at all for keys whose sets this store has seen full and live.
   * See `incrementCounterBatch`.
   */
  incrementMany(increments: readonly CounterIncrement[]): Promise<number[]> {
    if (increments.length === 0) return Promise.resolve([]);
    return incrementCounterBatch(
      {
        requester: this.#requester,
        clock: this.#clock,
        counterGraceMs: this.#retention.counterGraceMs,
        fullCounters: this.#fullCounters,
      },
      increments,
    );
  }

  /**
   * A strongly consistent `BatchGetItem` of the keys, then one conditional `UpdateItem` per key whose
   * period or roll-up changed. See `suppressBatch`.
   */
  suppressMany(steps: readonly SuppressionIncrement[]): Promise<SuppressionAnswer[]> {
    return suppressBatch(
      { requester: this.#requester, clock: this.#clock, counterGraceMs: this.#retention.counterGraceMs },
      steps,
    );
  }

  async get(key: string, now: number): Promise<number> {
    const output = await this.#requester.getItem({
      Key: keyOf(stateKeys.counter(key)),
      ConsistentRead: true,
    });
    const item = output.Item;
    if (item === undefined || !counterIsLive(item, now, this.#clock.now())) return 0;
    return readStringSet(item, 'members')?.length ?? 0;
  }

  /** Strongly consistent `BatchGetItem`s of 100 keys (see `readFirstSeenItems`). */
  readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> {
    return readFirstSeenItems({ requester: this.#requester, clock: this.#clock, logger: this.#logger }, keys);
  }

  /** `TransactWriteItems` of 100 puts; a record DynamoDB refuses fails alone (see `writeFirstSeenItems`). */
  writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures> {
    return writeFirstSeenItems(
      { requester: this.#requester, clock: this.#clock, logger: this.#logger },
      records,
    );
  }

  async readInventory(options: ReadInventoryOptions): Promise<InventorySnapshot | undefined> {
    const key = stateKeys.inventory(inventoryKeyOf(options));
    const output = await this.#requester.getItem({ Key: keyOf(key), ConsistentRead: true });
    const item = output.Item;
    if (item === undefined || isExpired(readNumber(item, 'expiresAt'), this.#clock.now())) return undefined;
    const head = readBinary(item, 'data') ?? new Uint8Array();
    const generation = readString(item, 'gen');
    const chunks = readNumber(item, 'chunks') ?? 0;
    let parts: Uint8Array[] = [];
    if (generation !== undefined && chunks > 0) {
      parts = await readChunks(this.#requester, {
        pk: key.pk,
        prefix: stateKeys.inventoryChunkPrefix(generation),
      });
      if (parts.length !== chunks) {
        // Chunks expire with their snapshot, so this is an item changed by hand: start a new baseline.
        this.#logger.warn('inventory snapshot chunks are missing; the next snapshot sets a new baseline', {
          tableName: this.tableName,
          pk: key.pk,
          expected: chunks,
          found: parts.length,
        });
        return undefined;
      }
    }
    return decodeInventory(Buffer.concat([head, ...parts]), `state table ${this.tableName} item ${key.pk}`);
  }

  async writeInventory(options: WriteInventoryOptions): Promise<boolean> {
    const { snapshot } = options;
    const now = this.#clock.now();
    const key = stateKeys.inventory(inventoryKeyOf(snapshot));
    const expiresAt = ttlSeconds(now + this.#retention.inventoryRetentionMs);
    const bytes = await encodeInventory(snapshot);
    const [head = new Uint8Array(), ...rest] = splitBytes(bytes, this.#maxInventoryBytesPerItem);
    const generation = rest.length === 0 ? undefined : newGeneration();
    const location = (of: string): ChunkLocation => ({
      pk: key.pk,
      prefix: stateKeys.inventoryChunkPrefix(of),
    });
    if (generation !== undefined) {
      // Same TTL as the snapshot item: the two expire together.
      await writeChunks(this.#requester, { ...location(generation), parts: rest, expiresAt });
    }
    let previous: Item | undefined;
    try {
      const output = await this.#requester.putItem({
        Item: {
          ...keyOf(key),
          ...(snapshot.orgId === undefined ? {} : { orgId: stringValue(snapshot.orgId) }),
          ...(snapshot.groupId === undefined ? {} : { groupId: stringValue(snapshot.groupId) }),
          takenAt: numberValue(snapshot.takenAt),
          keyCount: numberValue(snapshot.apiKeys.length),
          encoding: stringValue('gzip-json'),
          data: binaryValue(head),
          ...(generation === undefined
            ? {}
            : { gen: stringValue(generation), chunks: numberValue(rest.length) }),
          expiresAt: numberValue(expiresAt),
        },
        // A snapshot taken later wins, whatever order the writes arrive in.
        ConditionExpression: 'attribute_not_exists(pk) OR #takenAt <= :takenAt OR #expiresAt <= :nowSeconds',
        ExpressionAttributeNames: { '#takenAt': 'takenAt', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: {
          ':takenAt': numberValue(snapshot.takenAt),
          ':nowSeconds': numberValue(nowSeconds(now)),
        },
        ReturnValues: 'ALL_OLD',
      });
      previous = output.Attributes;
    } catch (error) {
      if (conditionFailure(error) === undefined) throw error;
      if (generation !== undefined) await this.#deleteQuietly(location(generation), rest.length);
      return false;
    }
    const replaced = previous === undefined ? undefined : readString(previous, 'gen');
    if (previous !== undefined && replaced !== undefined) {
      await this.#deleteQuietly(location(replaced), readNumber(previous, 'chunks') ?? 0);
    }
    return true;
  }

  async readNames(options: ReadNamesOptions): Promise<Map<string, CachedName>> {
    const byKey = new Map<string, string>();
    for (const key of options.keys) byKey.set(stateKeys.name(key).pk, key);
    const found = new Map<string, CachedName>();
    const items = await batchGetAll(this.#requester, this.#clock, {
      keys: [...byKey.keys()].map((pk) => ({ pk: stringValue(pk), sk: stringValue('NAME') })),
      projection: {
        expression: '#pk, #name, #resolvedAt, #nameExpiresAt',
        names: {
          '#pk': 'pk',
          '#name': 'name',
          '#resolvedAt': 'resolvedAt',
          '#nameExpiresAt': 'nameExpiresAt',
        },
      },
      what: 'name items',
    });
    const now = this.#clock.now();
    for (const item of items) {
      const key = byKey.get(readString(item, 'pk') ?? '');
      const name = readString(item, 'name');
      const resolvedAt = readNumber(item, 'resolvedAt');
      const expiresAt = readNumber(item, 'nameExpiresAt');
      if (key === undefined || name === undefined || resolvedAt === undefined || expiresAt === undefined)
        continue;
      if (expiresAt <= now) continue;
      found.set(key, { key, name, resolvedAt, expiresAt });
    }
    return found;
  }

  async writeNames(options: WriteNamesOptions): Promise<void> {
    await mapWithConcurrency(options.names, NAME_WRITE_CONCURRENCY, async (entry) => {
      await this.#requester.putItem({
        Item: {
          ...keyOf(stateKeys.name(entry.key)),
          name: stringValue(truncateUtf8(entry.name, MAX_NAME_BYTES)),
          resolvedAt: numberValue(entry.resolvedAt),
          nameExpiresAt: numberValue(entry.expiresAt),
          // DynamoDB's own TTL deletes it a little later; reads drop it at `nameExpiresAt`.
          expiresAt: numberValue(ttlSeconds(entry.expiresAt)),
        },
      });
    });
  }

  stats(): StateStoreStats {
    return this.#requester.stats();
  }

  resetStats(): void {
    this.#requester.resetStats();
  }

  /** Nothing to free: the client belongs to the caller. */
  async close(): Promise<void> {}

  async #cursorOf(item: Item, key: ItemKey, spill: SeenSpill | undefined): Promise<SourceCursor | undefined> {
    const watermark = readNumber(item, 'watermark');
    if (watermark === undefined) return undefined;
    const parts = [readBinary(item, 'seen') ?? new Uint8Array()];
    if (spill !== undefined) {
      const chunks = await readChunks(this.#requester, seenLocation(key, spill));
      if (chunks.length !== spill.chunks) {
        this.#logger.warn(
          'seen-id chunks of a cursor are missing; events inside the overlap may alert again',
          {
            tableName: this.tableName,
            pk: key.pk,
            expected: spill.chunks,
            found: chunks.length,
          },
        );
      }
      parts.push(...chunks);
    }
    const inventoryTakenAt = readNumber(item, 'inventoryTakenAt');
    return {
      watermark,
      seenIds: SeenIdSet.fromBytes(...parts),
      ...(inventoryTakenAt === undefined ? {} : { inventoryTakenAt }),
    };
  }

  /** Deletes chunks that nothing points to any more; a failure only leaves them to their TTL. */
  async #deleteQuietly(location: ChunkLocation, count: number): Promise<void> {
    try {
      await deleteChunks(this.#requester, { ...location, count });
    } catch (error) {
      this.#logger.warn('could not delete unused state chunks; they expire through TTL', {
        tableName: this.tableName,
        pk: location.pk,
        prefix: location.prefix,
        error: (error as Error).message,
      });
    }
  }
}

function limitSetting(name: string, value: number | undefined, maximum: number): number {
  if (value === undefined) return maximum;
  if (!Number.isInteger(value) || value < 1 || value > maximum) {
    throw new RangeError(`${name} must be an integer from 1 to ${maximum}, got ${value}`);
  }
  return value;
}

function keyOf(key: ItemKey): Item {
  return { pk: stringValue(key.pk), sk: stringValue(key.sk) };
}

/** Expression placeholders for attribute names: `#watermark` for `watermark`. */
function sourceNames(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [`#${name}`, name]));
}

function updateExpression(set: Record<string, AttributeValue>, remove: readonly string[]): string {
  const setClause = Object.keys(set)
    .map((name) => `#${name} = :${name}`)
    .join(', ');
  const removeClause = remove.map((name) => `#${name}`).join(', ');
  return [setClause === '' ? '' : `SET ${setClause}`, removeClause === '' ? '' : `REMOVE ${removeClause}`]
    .filter((clause) => clause !== '')
    .join(' ');
}

function placeholderValues(set: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(set).map(([name, value]) => [`:${name}`, value]));
}

function spillOf(item: Item): SeenSpill | undefined {
  const generation = readString(item, 'seenGen');
  const chunks = readNumber(item, 'seenChunks') ?? 0;
  return generation === undefined || chunks === 0 ? undefined : { generation, chunks };
}

function seenLocation(key: ItemKey, spill: SeenSpill): ChunkLocation {
  return { pk: key.pk, prefix: stateKeys.seenChunkPrefix(spill.generation) };
}

function counterIsLive(item: Item, now: number, wallNow: number): boolean {
  const windowExpiresAt = readNumber(item, 'windowExpiresAt');
  return (
    windowExpiresAt !== undefined &&
    windowExpiresAt > now &&
    !isExpired(readNumber(item, 'expiresAt'), wallNow)
  );
}

function newGeneration(): string {
  return randomBytes(8).toString('hex');
}

function leaseLost(lease: SourceLease, action: string): LeaseLostError {
  return new LeaseLostError(
    `cannot ${action} source ${lease.source}: the lease of ${lease.owner} was taken over or released; ` +
      'another worker now owns the source, and this one must stop working on it',
    { source: lease.source },
  );
}
