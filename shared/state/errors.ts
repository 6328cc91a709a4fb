/**
 * Errors of the state store. Every one extends {@link StateStoreError} and carries a stable `code` for
 * logs and metrics. Messages say what happened, to which source, file or table, and what to do.
 */

/** Base class of every error the state store throws. */
export class StateStoreError extends Error {
  /** Stable identifier of the error class, for logs and metrics. */
  readonly code: string = 'STATE_STORE_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateStoreError';
  }
}

/** What a {@link LeaseLostError} knows beyond its message. */
export interface LeaseLostErrorOptions extends ErrorOptions {
  /** The source whose lease was lost. */
  source?: string;
}

/**
 * The lease on a source is no longer the caller's: it expired and another worker took it, or it was
 * released. Nothing was written: a stale worker can never move a cursor.
 */
export class LeaseLostError extends StateStoreError {
  override readonly code: string = 'STATE_LEASE_LOST';
  readonly source: string | undefined;

  constructor(message: string, options?: LeaseLostErrorOptions) {
    super(message, options);
    this.name = 'LeaseLostError';
    this.source = options?.source;
  }
}

/** What a {@link StateFileLockedError} knows beyond its message. */
export interface StateFileLockedErrorOptions extends ErrorOptions {
  /** The state file. */
  path?: string;
  /** The process that holds the lock. */
  pid?: number;
}

/** Another live process holds the state file's lock: two local runs cannot share one state file. */
export class StateFileLockedError extends StateStoreError {
  override readonly code: string = 'STATE_FILE_LOCKED';
  readonly path: string | undefined;
  readonly pid: number | undefined;

  constructor(message: string, options?: StateFileLockedErrorOptions) {
    super(message, options);
    this.name = 'StateFileLockedError';
    this.path = options?.path;
    this.pid = options?.pid;
  }
}

/** What a {@link StateFileCorruptError} knows beyond its message. */
export interface StateFileCorruptErrorOptions extends ErrorOptions {
  /** The state file. */
  path?: string;
}

/**
 * The state file is not one this program wrote (not JSON, or not the expected shape). The store never
 * resets it silently: that would forget every watermark and alert record.
 */
export class StateFileCorruptError extends StateStoreError {
  override readonly code: string = 'STATE_FILE_CORRUPT';
  readonly path: string | undefined;

  constructor(message: string, options?: StateFileCorruptErrorOptions) {
    super(message, options);
    this.name = 'StateFileCorruptError';
    this.path = options?.path;
  }
}

/** What a {@link StateStoreRequestError} knows beyond its message. */
export interface StateStoreRequestErrorOptions extends ErrorOptions {
  /** The DynamoDB operation (`UpdateItem`, `Query`...). */
  operation?: string;
  /** The table. */
  tableName?: string;
}

/**
 * A DynamoDB request failed for a reason other than a condition: the table is missing, access is
 * denied, or DynamoDB stayed unreachable or throttled after the SDK's retries. The SDK's error is the
 * `cause`.
 */
export class StateStoreRequestError extends StateStoreError {
  override readonly code: string = 'STATE_STORE_REQUEST_FAILED';
  readonly operation: string | undefined;
  readonly tableName: string | undefined;

  constructor(message: string, options?: StateStoreRequestErrorOptions) {
    super(message, options);
    this.name = 'StateStoreRequestError';
    this.operation = options?.operation;
    this.tableName = options?.tableName;
  }
}

/** A stored item or file entry does not have the shape this program writes. */
export class StateItemCorruptError extends StateStoreError {
  override readonly code: string = 'STATE_ITEM_CORRUPT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateItemCorruptError';
  }
}

/** What a {@link StateItemRefusedError} knows beyond its message. */
export interface StateItemRefusedErrorOptions extends ErrorOptions {
  /** The item's partition key (a name longer than 1 KB is hashed in it), for a DynamoDB item. */
  pk?: string;
}

/**
 * The store will not write an item that DynamoDB would refuse (or a record the file store keeps for
 * the same reason): it says so before sending it, so that one such item never fails a request that
 * carries others, and names the item.
 */
export class StateItemRefusedError extends StateStoreError {
  override readonly code: string = 'STATE_ITEM_REFUSED';
  readonly pk: string | undefined;

  constructor(message: string, options?: StateItemRefusedErrorOptions) {
    super(message, options);
    this.name = 'StateItemRefusedError';
    this.pk = options?.pk;
  }
}

/** What a {@link StateItemTooLargeError} knows beyond its message. */
export interface StateItemTooLargeErrorOptions extends StateItemRefusedErrorOptions {
  /** Its size as DynamoDB counts it, in bytes. */
  bytes?: number;
}

/** An item would exceed DynamoDB's 400 KB item limit (see {@link StateItemRefusedError}). */
export class StateItemTooLargeError extends StateItemRefusedError {
  override readonly code: string = 'STATE_ITEM_TOO_LARGE';
  readonly bytes: number | undefined;

  constructor(message: string, options?: StateItemTooLargeErrorOptions) {
    super(message, options);
    this.name = 'StateItemTooLargeError';
    this.bytes = options?.bytes;
  }
}

/** Concurrent writers kept changing a counter between a read and a conditional write. */
export class StateConflictError extends StateStoreError {
  override readonly code: string = 'STATE_CONFLICT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateConflictError';
  }
}

/** The store was used after `close()`. */
export class StateStoreClosedError extends StateStoreError {
  override readonly code: string = 'STATE_STORE_CLOSED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateStoreClosedError';
  }
}
