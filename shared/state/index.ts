export { type CreateStateTableOptions, createStateTable } from './create-state-table.js';
export type { ClaimDeliveryOptions, DeliveryClaim, DeliveryClaimStore } from './delivery-claims.js';
export {
  type AppendDigestEntriesOptions,
  boundDigestEntry,
  type ClaimDigestOptions,
  type DigestClaim,
  type DigestClaimOptions,
  type DigestClaimResult,
  type DigestEntry,
  type DigestPeriodOptions,
  type DigestStore,
  digestEntrySchema,
  MAX_DIGEST_TEXT,
} from './digest-store.js';
export { PUSH_KEY_PREFIX } from './dynamodb-keys.js';
export {
  DynamoDbStateStore,
  type DynamoDbStateStoreOptions,
  MAX_INVENTORY_BYTES_PER_ITEM,
  MAX_SEEN_IDS_PER_ITEM,
} from './dynamodb-state-store.js';
export {
  LeaseLostError,
  StateConflictError,
  StateFileCorruptError,
  StateFileLockedError,
  StateItemCorruptError,
  StateItemRefusedError,
  StateItemTooLargeError,
  StateStoreClosedError,
  StateStoreError,
  StateStoreRequestError,
} from './errors.js';
export { FileStateStore, type FileStateStoreOptions } from './file-state-store.js';
export type { InventoryApiKeyEntry, InventorySnapshot } from './inventory-snapshot.js';
export { itemBytes, MAX_ITEM_BYTES } from './item-size.js';
export {
  DEFAULT_ALERT_RETENTION_MS,
  DEFAULT_COUNTER_GRACE_MS,
  DEFAULT_INVENTORY_RETENTION_MS,
  type StateRetention,
} from './retention.js';
export { normalizeSeenId, SeenIdSet } from './seen-id-set.js';
export type {
  AcquireLeaseOptions,
  AlertClaim,
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
  SourceError,
  SourceErrorInput,
  SourceLease,
  SourceReport,
  SourceTimes,
  StateStore,
  StateStoreStats,
  WriteInventoryOptions,
  WriteNamesOptions,
} from './state-store.js';
export { stateTableSchema } from './table-schema.js';
