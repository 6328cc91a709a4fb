import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Alert } from '../../shared/notify/alert.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { RuleStateError } from '../../shared/rules/errors.js';
import type { FirstSeenStore } from '../../shared/rules/first-seen-store.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { MAX_SEQUENCE_EARLIER } from '../../shared/rules/sequence.js';
import { packOf } from './rule-files.js';

const RULES = `
rules:
  - id: key-opened
    name: API key created, then opened to the internet
    severity: high
    match:
      eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED
      whitelistEntry: 0.0.0.0/0
    group_by: [apiKeyId]
    sequence:
      after: { eventTypeName: API_KEY_CREATED }
      within: 10m
    title: 'API key {{apiKeyId}} opened to the internet soon after it was created'
  - id: plain
    name: Any access list entry
    severity: low
    match: { eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED }
    title: 'Entry added'
`;

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
const MINUTE = 60_000;
const WITHIN = 10 * MINUTE;

function created(id: string, offsetMs: number, apiKeyId = 'key-a'): AtlasEvent {
  return { id, eventTypeName: 'API_KEY_CREATED', apiKeyId, created: new Date(T0 + offsetMs).toISOString() };
}

function opened(id: string, offsetMs: number, apiKeyId = 'key-a', whitelistEntry = '0.0.0.0/0'): AtlasEvent {
  return {
    id,
    eventTypeName: 'API_KEY_ACCESS_LIST_ENTRY_ADDED',
    apiKeyId,
    whitelistEntry,
    created: new Date(T0 + offsetMs).toISOString(),
  };
}

function engineOf(firstSeen: FirstSeenStore = new MemoryFirstSeenStore()) {
  return createRuleEngine({
    pack: packOf(RULES),
    counters: new MemoryCounterStore(),
    ruleIds: ['key-opened'],
    firstSeen,
  });
}

const carried = (alerts: readonly Alert[]) => alerts.map((alert) => alert.events.map((event) => event.id));

describe('createRuleEngine with a sequence rule', () => {
  it('alerts for the later event that follows an earlier step of its group, carrying the earlier event first', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([created('c1', 0), opened('o1', 3 * MINUTE)]);

    expect(carried(alerts)).toEqual([['c1', 'o1']]);
    expect(alerts[0]?.title).toBe('API key key-a opened to the internet soon after it was created');
    expect(alerts[0]?.groupKey).toBe('key-a');
    expect(alerts[0]?.fingerprint).toMatch(/^key-opened:[0-9a-f]{32}$/);
  });

  it('raises nothing for a later event alone, nor for an earlier event alone', async () => {
    expect(await engineOf().evaluate([opened('o1', 0)])).toEqual([]);
    expect(await engineOf().evaluate([created('c1', 0)])).toEqual([]);
  });

  it('alerts for a later event just under the window after the earlier one, and not at the window', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([
      created('c1', 0),
      opened('o-in', WITHIN - 1),
      opened('o-edge', WITHIN),
      opened('o-out', WITHIN + MINUTE),
    ]);

    expect(carried(alerts)).toEqual([['c1', 'o-in']]);
  });

  it('orders by event time, then id: a later event before the earlier one does not alert, whatever the batch order', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([
      opened('o-before', 5 * MINUTE),
      created('c1', 6 * MINUTE),
      opened('a-same-time-lower-id', 6 * MINUTE, 'key-a'),
      opened('z-same-time-higher-id', 6 * MINUTE, 'key-a'),
      opened('o-after', 7 * MINUTE),
    ]);

    expect(carried(alerts)).toEqual([
      ['c1', 'z-same-time-higher-id'],
      ['c1', 'o-after'],
    ]);
  });

  it('judges a later event that comes first in the batch by event time', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([opened('o1', 2 * MINUTE), created('c1', 1 * MINUTE)]);

    expect(carried(alerts)).toEqual([['c1', 'o1']]);
  });

  it('keeps groups apart: an earlier event of one key does not make another key alert', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([
      created('c-a', 0, 'key-a'),
      created('c-b', MINUTE, 'key-b'),
      opened('o-c', 2 * MINUTE, 'key-c'),
      opened('o-b', 3 * MINUTE, 'key-b'),
      opened('o-a', 4 * MINUTE, 'key-a'),
    ]);

    expect(carried(alerts)).toEqual([
      ['c-b', 'o-b'],
      ['c-a', 'o-a'],
    ]);
    expect(alerts.map((alert) => alert.groupKey)).toEqual(['key-b', 'key-a']);
  });

  it('alerts once per later event, each with its own fingerprint', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([created('c1', 0), opened('o1', MINUTE), opened('o2', 2 * MINUTE)]);

    expect(carried(alerts)).toEqual([
      ['c1', 'o1'],
      ['c1', 'o2'],
    ]);
    expect(new Set(alerts.map((alert) => alert.fingerprint)).size).toBe(2);
  });

  it('ignores events of the later step that the rule match refuses, and events without the group field', async () => {
    const engine = engineOf();
    const { apiKeyId: _, ...keyless } = created('c-keyless', 0);

    const alerts = await engine.evaluate([
      keyless,
      created('c1', 0, ''),
      opened('o-narrow', MINUTE, 'key-a', '203.0.113.0/24'),
      opened('o-empty-key', MINUTE, ''),
    ]);

    expect(alerts).toEqual([]);
  });

  it(`carries at most the ${MAX_SEQUENCE_EARLIER} newest earlier events of the window, oldest first`, async () => {
    const engine = engineOf();
    const earlier = Array.from({ length: MAX_SEQUENCE_EARLIER + 3 }, (_, index) =>
      created(`c${String(index).padStart(2, '0')}`, index * 1_000),
    );

    const alerts = await engine.evaluate([...earlier, opened('o1', 5 * MINUTE)]);

    expect(carried(alerts)).toEqual([[...earlier.slice(3).map((event) => event.id), 'o1']]);
  });

  it(`keeps at most ${MAX_SEQUENCE_EARLIER} earlier events a group in the store, the newest`, async () => {
    const store = new MemoryFirstSeenStore();
    const earlier = Array.from({ length: MAX_SEQUENCE_EARLIER + 5 }, (_, index) =>
      created(`c${String(index).padStart(2, '0')}`, index * 1_000),
    );
    await engineOf(store).evaluate(earlier);

    // A new process: the earlier events come from the store alone, named by id and time.
    const alerts = await engineOf(store).evaluate([opened('o1', 5 * MINUTE)]);

    expect(carried(alerts)).toEqual([[...earlier.slice(5).map((event) => event.id), 'o1']]);
    expect(alerts[0]?.events[0]).toEqual({ id: 'c05', created: new Date(T0 + 5_000).toISOString() });
  });

  it('finds in a new process the earlier event of the last tick, and forgets it once the window has passed', async () => {
    const store = new MemoryFirstSeenStore();
    await engineOf(store).evaluate([created('c1', 0)]);

    const next = await engineOf(store).evaluate([opened('o1', 9 * MINUTE)]);
    const expired = await engineOf(store).evaluate([opened('o2', 11 * MINUTE)]);

    expect(carried(next)).toEqual([['c1', 'o1']]);
    expect(expired).toEqual([]);
  });

  it('drops expired earlier events from the store when it writes the group again', async () => {
    const store = new MemoryFirstSeenStore();
    const engine = engineOf(store);
    await engine.evaluate([created('c1', 0)]);

    await engine.evaluate([created('c2', 20 * MINUTE)]);
    const alerts = await engineOf(store).evaluate([opened('o1', 21 * MINUTE)]);

    expect(carried(alerts)).toEqual([[expect.anything(), 'o1']]);
    expect(alerts[0]?.events.map((event) => event.id)).toEqual(['c2', 'o1']);
  });

  it('raises the same alert, and no other, when the same events are read again', async () => {
    const store = new MemoryFirstSeenStore();
    const batch = [
      created('c1', 0),
      opened('o1', MINUTE),
      created('c2', 2 * MINUTE),
      opened('o2', 3 * MINUTE),
    ];
    const first = await engineOf(store).evaluate(batch);

    const again = await engineOf(store).evaluate(batch);
    const sameEngineAgain = await engineOf(store).evaluate(batch.slice(1));

    expect(first.map((alert) => alert.fingerprint)).toHaveLength(2);
    expect(again.map((alert) => alert.fingerprint)).toEqual(first.map((alert) => alert.fingerprint));
    expect(sameEngineAgain.map((alert) => alert.fingerprint)).toEqual(
      first.map((alert) => alert.fingerprint),
    );
    expect(carried(again)).toEqual(carried(first));
  });

  it('fails the batch as a threshold does when the store fails, and loses nothing once it answers', async () => {
    const memory = new MemoryFirstSeenStore();
    const failure = new Error('ProvisionedThroughputExceededException');
    let failing: 'read' | 'write' | undefined = 'write';
    const store: FirstSeenStore = {
      readFirstSeen: (keys) => (failing === 'read' ? Promise.reject(failure) : memory.readFirstSeen(keys)),
      writeFirstSeen: (records) =>
        failing === 'write' ? Promise.reject(failure) : memory.writeFirstSeen(records),
    };
    const engine = engineOf(store);

    const written = await engine.evaluate([created('c1', 0)]).catch((error: unknown) => error);
    failing = 'read';
    const read = await engine
      .evaluate([created('c1', 0), opened('o1', MINUTE)])
      .catch((error: unknown) => error);
    failing = undefined;
    const alerts = await engine.evaluate([created('c1', 0), opened('o1', MINUTE)]);

    for (const error of [written, read]) {
      expect(error).toBeInstanceOf(RuleStateError);
      expect((error as RuleStateError).cause).toBe(failure);
      expect((error as RuleStateError).message).toContain('sequence rule "key-opened"');
    }
    expect((written as Error).message).toContain('could not write');
    expect((read as Error).message).toContain('could not read');
    expect(carried(alerts)).toEqual([['c1', 'o1']]);
  });

  it('fails the batch when the store refuses a record alone', async () => {
    const memory = new MemoryFirstSeenStore();
    const refused = new Error('Item size has exceeded the maximum allowed size');
    const store: FirstSeenStore = {
      readFirstSeen: (keys) => memory.readFirstSeen(keys),
      writeFirstSeen: async (records) => new Map([...records.keys()].map((key) => [key, refused])),
    };

    const error = await engineOf(store)
      .evaluate([created('c1', 0)])
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RuleStateError);
    expect((error as RuleStateError).cause).toBe(refused);
  });

  it('says an event of the earlier step may alert, and an unrelated one may not', () => {
    const engine = engineOf();

    expect(engine.mayAlert(created('c1', 0))).toBe(true);
    expect(engine.mayAlert({ ...created('c1', 0), apiKeyId: undefined })).toBe(false);
    expect(
      engine.mayAlert({ id: 'x', eventTypeName: 'GROUP_DELETED', created: created('c', 0).created }),
    ).toBe(false);
  });

  it('does not count an earlier event without a readable created time', async () => {
    const engine = engineOf();

    const alerts = await engine.evaluate([
      { ...created('c1', 0), created: 'yesterday' },
      opened('o1', MINUTE),
    ]);

    expect(alerts).toEqual([]);
  });

  it('leaves the other rules of the pack as they are', async () => {
    const engine = createRuleEngine({ pack: packOf(RULES), counters: new MemoryCounterStore() });

    const alerts = await engine.evaluate([created('c1', 0), opened('o1', MINUTE)]);

    expect(alerts.map((alert) => alert.ruleId)).toEqual(['key-opened', 'plain']);
  });
});

describe('createRuleEngine with a sequence rule that needs several earlier events', () => {
  const COUNTED = `
rules:
  - id: key-opened-after-three
    name: API key created three times, then opened
    severity: high
    match: { eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED }
    group_by: [apiKeyId]
    sequence:
      after: { eventTypeName: API_KEY_CREATED }
      within: 10m
      count: 3
    title: 'API key {{apiKeyId}} opened after three creations'
`;
  const countedEngine = (firstSeen: FirstSeenStore = new MemoryFirstSeenStore()) =>
    createRuleEngine({ pack: packOf(COUNTED), counters: new MemoryCounterStore(), firstSeen });

  it('alerts only for a later event that follows count earlier events of its group, carrying them all', async () => {
    const alerts = await countedEngine().evaluate([
      created('c1', 0),
      created('c2', MINUTE),
      opened('o-after-two', 2 * MINUTE),
      created('c3', 3 * MINUTE),
      opened('o-after-three', 4 * MINUTE),
      created('c4', 5 * MINUTE),
      opened('o-after-four', 6 * MINUTE),
    ]);

    expect(carried(alerts)).toEqual([
      ['c1', 'c2', 'c3', 'o-after-three'],
      ['c1', 'c2', 'c3', 'c4', 'o-after-four'],
    ]);
  });

  it('counts neither earlier events of another group, nor those at or past the window, nor those after the later event', async () => {
    const alerts = await countedEngine().evaluate([
      created('c-old', 0),
      created('c-b', 2 * MINUTE, 'key-b'),
      created('c1', 3 * MINUTE),
      created('c2', 4 * MINUTE),
      opened('o1', WITHIN),
      created('c3', WITHIN + MINUTE),
    ]);

    expect(alerts).toEqual([]);
  });

  it('counts earlier events another process kept in the store, with those of the batch', async () => {
    const store = new MemoryFirstSeenStore();
    await countedEngine(store).evaluate([created('c1', 0)]);
    await countedEngine(store).evaluate([created('c2', MINUTE)]);

    const short = await countedEngine(store).evaluate([opened('o1', 2 * MINUTE)]);
    const alerts = await countedEngine(store).evaluate([created('c3', 3 * MINUTE), opened('o2', 4 * MINUTE)]);

    expect(short).toEqual([]);
    expect(carried(alerts)).toEqual([['c1', 'c2', 'c3', 'o2']]);
    expect(alerts[0]?.events[0]).toEqual({ id: 'c1', created: new Date(T0).toISOString() });
  });

  it(`reaches a count of ${MAX_SEQUENCE_EARLIER} from the events a group keeps in the store`, async () => {
    const store = new MemoryFirstSeenStore();
    const pack = packOf(COUNTED.replace('count: 3', `count: ${MAX_SEQUENCE_EARLIER}`));
    const engine = () => createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });
    const earlier = Array.from({ length: MAX_SEQUENCE_EARLIER }, (_, index) =>
      created(`c${String(index).padStart(2, '0')}`, index * 1_000),
    );
    await engine().evaluate(earlier.slice(0, -1));
    const short = await engine().evaluate([opened('o1', MINUTE)]);
    await engine().evaluate(earlier.slice(-1));

    const alerts = await engine().evaluate([opened('o2', 2 * MINUTE)]);

    expect(short).toEqual([]);
    expect(carried(alerts)).toEqual([[...earlier.map((event) => event.id), 'o2']]);
  });
});
