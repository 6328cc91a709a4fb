/**
 * What first-seen rules keep between events: for each rule and group, the values seen lately, and for
 * each rule, when it started learning. A port of its own (not the threshold counters'), because its
 * access pattern differs: a batch of events reads every set it needs at once and writes back only the
 * sets that changed.
 *
 * The rule engine ships an in-memory implementation; the state store implements it in DynamoDB and in
 * its local file.
 */
export interface FirstSeenStore {
  /**
   * The records at `keys` that exist (absent keys are missing from the map). DynamoDB reads them in
   * `BatchGetItem` requests of 100 keys.
   */
  readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>>;
  /**
   * Replaces the records at these keys (each key once). A record whose `values` is empty and that has no
   * `startedAt` is deleted. DynamoDB writes them in `TransactWriteItems` requests of 100 puts.
   */
  writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<void>;
}

/** One value a first-seen rule saw for a group. Times are on the engine's clock (event `created`). */
export interface SeenValue {
  /** When the value was first seen (or seen again after it expired). */
  readonly first: number;
  /** When it was last seen, refreshed at most about once a day (see `first-seen.ts`). */
  readonly last: number;
  /** A short hash of the id of the event that first saw it: that event, read again, is still the first. */
  readonly by: string;
}

/** A record of the first-seen store: a group's seen values, or a rule's learning start. */
export interface FirstSeenRecord {
  /** By value, as the rule compares it (bounded in length: long values are hashed). */
  readonly values: Readonly<Record<string, SeenValue>>;
  /**
   * When the record has no live value left, on the engine's clock; `Number.MAX_SAFE_INTEGER` for a
   * record that never expires (a learning start). Stores keep a record at least a day past this on the
   * wall clock too, so a backfill over old events does not lose what it just wrote.
   */
  readonly expiresAt: number;
  /** For a rule's learning record: when the rule was first evaluated, in milliseconds since the epoch. */
  readonly startedAt?: number;
}
