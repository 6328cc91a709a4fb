import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import type { FirstSeenStateError } from '../../shared/rules/errors.js';
import type {
  FirstSeenRecord,
  FirstSeenStore,
  FirstSeenWriteFailures,
} from '../../shared/rules/first-seen-store.js';
import { seenSetKey } from '../../shared/rules/first-seen-tracker.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { packOf } from './rule-files.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');

/**
 * A first-seen store that does not keep the records at some keys, as a store reports a record it
 * cannot hold (DynamoDB refusing its item), and keeps the others in memory.
 */
class RefusingFirstSeenStore implements FirstSeenStore {
  readonly #inner = new MemoryFirstSeenStore();
  readonly #refused: ReadonlySet<string>;

  constructor(refused: Iterable<string>) {
    this.#refused = new Set(refused);
  }

  readFirstSeen(keys: readonly string[]): Promise<Map<string, FirstSeenRecord>> {
    return this.#inner.readFirstSeen(keys);
  }

  async writeFirstSeen(records: ReadonlyMap<string, FirstSeenRecord>): Promise<FirstSeenWriteFailures> {
    const kept = new Map([...records].filter(([key]) => !this.#refused.has(key)));
    const failures = new Map(await this.#inner.writeFirstSeen(kept));
    for (const key of records.keys()) {
      if (this.#refused.has(key)) failures.set(key, new Error('ValidationException: refused for the test'));
    }
    return failures;
  }
}

const pack = packOf(`
rules:
  - id: data-explorer-first-use
    name: Data Explorer first use
    severity: medium
    match: { eventTypeName: DATA_EXPLORER_CRUD }
    group_by: [groupId]
    first_seen: { field: username, within: 30d, learning: 0s }
    title: '{{username}} first used Data Explorer in {{groupId}}'
  - id: data-explorer-delete
    name: Documents deleted through Data Explorer
    severity: high
    match: { eventTypeName: DATA_EXPLORER_CRUD, opType: deleteDocument }
    title: '{{username}} deleted documents in {{groupId}}'
`);

function crud(index: number, groupId: string, username: string, opType = 'deleteDocument'): AtlasEvent {
  return {
    id: `e${index}`,
    eventTypeName: 'DATA_EXPLORER_CRUD',
    created: new Date(T0 + index * 1_000).toISOString(),
    groupId,
    username,
    opType,
  };
}

describe('a first-seen record the store does not keep', () => {
  it('costs that group its first-seen judgement alone: the other rules and groups alert, and the failure is reported', async () => {
    // Prepare
    const store = new RefusingFirstSeenStore([seenSetKey('data-explorer-first-use', 'p-hostile')]);
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });
    const failures: FirstSeenStateError[] = [];

    // Act
    const alerts = await engine.evaluate(
      [crud(1, 'p-hostile', 'mallory'), crud(2, 'p-hostile', 'mallory2'), crud(3, 'p-quiet', 'ana')],
      { onStateError: (failure) => failures.push(failure) },
    );

    // Assess
    expect(alerts.map((alert) => alert.title)).toEqual([
      'mallory deleted documents in p-hostile',
      'mallory2 deleted documents in p-hostile',
      'ana first used Data Explorer in p-quiet',
      'ana deleted documents in p-quiet',
    ]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      code: 'FIRST_SEEN_STATE_FAILED',
      ruleId: 'data-explorer-first-use',
      eventIds: ['e1', 'e2'],
    });
    expect(failures[0]?.message).toContain('ValidationException: refused for the test');
    expect(failures[0]?.message).toContain('2 events were not judged first-seen by it');
  });

  it('logs the failure as a warning when the caller is not told', async () => {
    // Prepare
    const store = new RefusingFirstSeenStore([seenSetKey('data-explorer-first-use', 'p-hostile')]);
    const warnings: Array<{ message: string; attributes: unknown }> = [];
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (message: string, attributes?: unknown) => warnings.push({ message, attributes }),
      error: () => {},
    };
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store, logger });

    // Act
    await engine.evaluate([crud(1, 'p-hostile', 'mallory', 'find')]);

    // Assess
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.attributes).toEqual({
      errorCode: 'FIRST_SEEN_STATE_FAILED',
      ruleId: 'data-explorer-first-use',
    });
  });
});
