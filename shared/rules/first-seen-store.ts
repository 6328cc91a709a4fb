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
   *
   * A record the store cannot hold (its values encode to more than {@link MAX_SEEN_VALUES_BYTES}, or
   * DynamoDB refuses its item) fails alone: it is in the returned map, with why, and every other
   * record is written.
   *
   * @throws when the store cannot be reached: which records were written is then unknown.
   */
  writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures>;
}

/** The records a store did not write, by key, with why: see {@link FirstSeenStore.writeFirstSeen}. */
export type FirstSeenWriteFailures = ReadonlyMap<string, Error>;

/**
 * The most bytes a group's values may take in {@link encodeSeenValues}' form: what both stores keep
 * of a record besides a few numbers. A DynamoDB item holds 400 KB, its key and other attributes
 * included; the rule engine evicts a group's least recently seen values to stay under this.
 */
export const MAX_SEEN_VALUES_BYTES = 350_000;

/**
 * A group's values as both stores keep them: compact JSON, `[[value, first, last, by], ...]`.
 *
 * @example
 * ```ts
 * encodeSeenValues({ '203.0.113.7': { first: 1, last: 2, by: 'abc' } }); // '[["203.0.113.7",1,2,"abc"]]'
 * ```
 */
export function encodeSeenValues(values: Readonly<Record<string, SeenValue>>): string {
  return JSON.stringify(
    Object.entries(values).map(([value, seen]) => [value, seen.first, seen.last, seen.by]),
  );
}

/**
 * Why a store cannot hold a record, or `undefined` when it can: its values encode to more than
 * {@link MAX_SEEN_VALUES_BYTES}, or one of its times is not a finite number (JSON would keep it as
 * `null`). Every store refuses such a record alone (see {@link FirstSeenStore.writeFirstSeen}).
 * `encoded` is the record's values in {@link encodeSeenValues}' form, when the caller has it.
 *
 * @example
 * ```ts
 * firstSeenRecordProblem({ values: {}, expiresAt: Number.NaN }); // 'a time that is not a finite number'
 * ```
 */
export function firstSeenRecordProblem(
  record: FirstSeenRecord,
  encoded: string = encodeSeenValues(record.values),
): string | undefined {
  const times = [record.expiresAt, record.startedAt ?? 0];
  for (const seen of Object.values(record.values)) times.push(seen.first, seen.last);
  if (!times.every(Number.isFinite)) return 'a time that is not a finite number';
  const bytes = Buffer.byteLength(encoded, 'utf8');
  if (bytes > MAX_SEEN_VALUES_BYTES) {
    return `${bytes} bytes of values, more than the ${MAX_SEEN_VALUES_BYTES} a record may hold`;
  }
  return undefined;
}

/**
 * The UTF-8 bytes of {@link encodeSeenValues}: what a store compares with {@link MAX_SEEN_VALUES_BYTES}.
 *
 * @example
 * ```ts
 * seenValuesBytes({}); // 2
 * ```
 */
export function seenValuesBytes(values: Readonly<Record<string, SeenValue>>): number {
  return Buffer.byteLength(encodeSeenValues(values), 'utf8');
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
