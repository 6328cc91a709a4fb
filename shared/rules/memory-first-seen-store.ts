import {
  type FirstSeenRecord,
  type FirstSeenStore,
  type FirstSeenWriteFailures,
  firstSeenRecordProblem,
} from './first-seen-store.js';

/**
 * A `FirstSeenStore` held in memory: for the inline rule tests, `rules replay` and the engine's own
 * tests. Records are kept until replaced; the engine bounds each one (values per group, and bytes as
 * the other stores count them), and the number of groups follows the events evaluated. A record the
 * other stores cannot hold is refused, as they refuse it.
 *
 * @example
 * ```ts
 * const store = new MemoryFirstSeenStore();
 * await store.writeFirstSeen(new Map([['k', { values: {}, expiresAt: 0, startedAt: 0 }]]));
 * (await store.readFirstSeen(['k'])).get('k')?.startedAt; // 0
 * ```
 */
export class MemoryFirstSeenStore implements FirstSeenStore {
  readonly #records = new Map<string, FirstSeenRecord>();
  /** Calls made, for tests: reads and writes. */
  readonly calls = { reads: 0, writes: 0 };

  /** Number of records held: for tests and diagnostics. */
  get size(): number {
    return this.#records.size;
  }

  /** The records as stored: frozen, so what a caller reads can never change what is stored. */
  readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> {
    this.calls.reads += 1;
    const found = new Map<string, FirstSeenRecord>();
    for (const key of keys) {
      const record = this.#records.get(key);
      if (record !== undefined) found.set(key, record);
    }
    return Promise.resolve(found);
  }

  writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures> {
    this.calls.writes += 1;
    const failures = new Map<string, Error>();
    for (const [key, record] of records) {
      const problem = firstSeenRecordProblem(record);
      if (problem !== undefined) {
        failures.set(
          key,
          new RangeError(`first-seen record ${key} would hold ${problem}: it was not written`),
        );
      } else if (Object.keys(record.values).length === 0 && record.startedAt === undefined) {
        this.#records.delete(key);
      } else {
        this.#records.set(key, frozenCopy(record));
      }
    }
    return Promise.resolve(failures);
  }
}

/**
 * A frozen copy, so a caller that changes what it wrote never changes what is stored. Reads hand the
 * frozen record out as it is: records are read far more often than they change.
 */
function frozenCopy(record: FirstSeenRecord): FirstSeenRecord {
  const values = Object.freeze(
    Object.fromEntries(
      Object.entries(record.values).map(([value, seen]) => [value, Object.freeze({ ...seen })]),
    ),
  );
  return Object.freeze(
    record.startedAt === undefined
      ? { values, expiresAt: record.expiresAt }
      : { values, expiresAt: record.expiresAt, startedAt: record.startedAt },
  );
}
