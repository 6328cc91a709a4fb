import { describe, expect, it } from 'vitest';
import type { CompileProblem } from '../../shared/rules/conditions.js';
import { RuleStateError } from '../../shared/rules/errors.js';
import type { FirstSeenRecord, FirstSeenStore } from '../../shared/rules/first-seen-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import {
  type CompiledSequence,
  compileSequence,
  earlierWithin,
  keptEarlier,
  MAX_SEQUENCE_EARLIER,
  type SequenceSighting,
  SequenceTracker,
  sequenceKey,
} from '../../shared/rules/sequence.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);

function compiled(
  spec = { after: { eventTypeName: 'API_KEY_CREATED' }, within: '10m' },
  groupBy: string[] = ['apiKeyId'],
): { sequence: CompiledSequence | undefined; problems: CompileProblem[] } {
  const problems: CompileProblem[] = [];
  const sequence = compileSequence(spec, groupBy, { lists: new Map(), problems });
  return { sequence, problems };
}

describe('compileSequence', () => {
  it('compiles the earlier step, its event types and the window', () => {
    const { sequence, problems } = compiled();

    expect(problems).toEqual([]);
    expect(sequence?.withinMs).toBe(10 * MINUTE);
    expect([...(sequence?.afterTypes ?? [])]).toEqual(['API_KEY_CREATED']);
    expect(sequence?.after({ eventTypeName: 'API_KEY_CREATED' })).toBe(true);
    expect(sequence?.after({ eventTypeName: 'API_KEY_DELETED' })).toBe(false);
  });

  it('has no event types for an earlier step that may match any', () => {
    const { sequence } = compiled({ after: { apiKeyId: { exists: true } }, within: '1h' } as never);

    expect(sequence?.afterTypes).toBeUndefined();
  });

  it('says an event is grouped only when it carries every group_by field, not null and not empty', () => {
    const { sequence } = compiled(undefined, ['apiKeyId', 'orgId', 'not a path']);

    expect(sequence?.grouped({ apiKeyId: 'k', orgId: 'o' })).toBe(true);
    expect(sequence?.grouped({ apiKeyId: 'k', orgId: 0 } as never)).toBe(true);
    expect(sequence?.grouped({ apiKeyId: 'k' })).toBe(false);
    expect(sequence?.grouped({ apiKeyId: 'k', orgId: null } as never)).toBe(false);
    expect(sequence?.grouped({ apiKeyId: '', orgId: 'o' })).toBe(false);
  });

  it('groups every event together without group_by', () => {
    expect(compiled(undefined, []).sequence?.grouped({})).toBe(true);
  });

  it('reports a window that is not a duration at sequence.within, and returns nothing', () => {
    const { sequence, problems } = compiled({
      after: { eventTypeName: 'API_KEY_CREATED' },
      within: '10 min',
    });

    expect(sequence).toBeUndefined();
    expect(problems).toEqual([
      {
        code: 'INVALID_DURATION',
        path: ['sequence', 'within'],
        message:
          '"10 min" is not a duration: write days, hours, minutes and seconds such as 30s, 10m, 1h or 1d (more than 0, at most 366d)',
      },
    ]);
  });

  it('reports a bad earlier step under sequence.after, and returns nothing', () => {
    const { sequence, problems } = compiled({
      after: { eventTypeName: { regex: '(' } },
      within: '10m',
    } as never);

    expect(sequence).toBeUndefined();
    expect(problems.map((problem) => problem.path.slice(0, 3))).toEqual([
      ['sequence', 'after', 'eventTypeName'],
    ]);
  });
});

describe('earlierWithin', () => {
  const entries = [
    { id: 'b', time: 5 },
    { id: 'a', time: 0 },
    { id: 'c', time: 5 },
    { id: 'd', time: 9 },
  ];

  it('gives the entries before the later one, by time then id, and less than the window before it, oldest first', () => {
    expect(earlierWithin(entries, { id: 'c', time: 5 }, 10).map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(earlierWithin(entries, { id: 'z', time: 10 }, 10).map((entry) => entry.id)).toEqual([
      'b',
      'c',
      'd',
    ]);
    expect(earlierWithin(entries, { id: 'z', time: 9 }, 10).map((entry) => entry.id)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(earlierWithin(entries, { id: 'a', time: 0 }, 10)).toEqual([]);
  });
});

describe('keptEarlier', () => {
  it('keeps the live entries, oldest first', () => {
    const entries = [
      { id: 'late', time: 12 },
      { id: 'gone', time: 0 },
      { id: 'edge', time: 2 },
      { id: 'b', time: 11 },
      { id: 'a', time: 11 },
    ];

    expect(keptEarlier(entries, 10, 11).map((entry) => entry.id)).toEqual(['edge', 'a', 'b', 'late']);
    expect(keptEarlier(entries, 10, 12).map((entry) => entry.id)).toEqual(['a', 'b', 'late']);
  });

  it(`keeps the newest ${MAX_SEQUENCE_EARLIER} of them`, () => {
    const entries = Array.from({ length: MAX_SEQUENCE_EARLIER + 2 }, (_, index) => ({
      id: `e${index}`,
      time: index,
    }));

    expect(keptEarlier(entries, 100, 20).map((entry) => entry.time)).toEqual(
      Array.from({ length: MAX_SEQUENCE_EARLIER }, (_, index) => index + 2),
    );
  });
});

describe('sequenceKey', () => {
  it('names the rule and a hash of the group', () => {
    expect(sequenceKey('key-opened', 'key-a')).toMatch(/^sequence\|key-opened\|[0-9a-f]{32}$/);
    expect(sequenceKey('key-opened', 'key-a')).not.toBe(sequenceKey('key-opened', 'key-b'));
  });
});

describe('SequenceTracker', () => {
  const { sequence } = compiled();
  const sighting = (
    step: 'earlier' | 'later',
    eventId: string,
    minute: number,
    groupKey = 'key-a',
    ruleId = 'key-opened',
  ): SequenceSighting => ({
    ruleId,
    sequence: sequence as CompiledSequence,
    step,
    groupKey,
    eventId,
    time: T0 + minute * MINUTE,
    event: {
      id: eventId,
      eventTypeName: 'API_KEY_CREATED',
      created: new Date(T0 + minute * MINUTE).toISOString(),
    },
  });

  /** A store that records the records written, in front of an in-memory one. */
  function recording(): { store: FirstSeenStore; writes: Map<string, FirstSeenRecord>[] } {
    const memory = new MemoryFirstSeenStore();
    const writes: Map<string, FirstSeenRecord>[] = [];
    return {
      writes,
      store: {
        readFirstSeen: (keys) => memory.readFirstSeen(keys),
        writeFirstSeen: (records) => {
          writes.push(new Map(records));
          return memory.writeFirstSeen(records);
        },
      },
    };
  }

  it('asks nothing of the store for a batch without sightings', async () => {
    const failing: FirstSeenStore = {
      readFirstSeen: () => Promise.reject(new Error('no')),
      writeFirstSeen: () => Promise.reject(new Error('no')),
    };

    expect(await new SequenceTracker(failing).resolve([])).toEqual(new Map());
  });

  it("writes a group's earlier events with their times, expiring a window after the newest", async () => {
    const { store, writes } = recording();
    const later = sighting('later', 'o1', 3);

    const judged = await new SequenceTracker(store).resolve([
      sighting('earlier', 'c1', 0),
      sighting('earlier', 'c2', 2),
      sighting('earlier', 'c0', 1),
      later,
    ]);

    expect([...judged.keys()]).toEqual([later]);
    expect(judged.get(later)?.map((event) => event.id)).toEqual(['c1', 'c0', 'c2']);
    expect(writes).toEqual([
      new Map([
        [
          sequenceKey('key-opened', 'key-a'),
          {
            values: {
              c1: { first: T0, last: T0, by: '' },
              c0: { first: T0 + MINUTE, last: T0 + MINUTE, by: '' },
              c2: { first: T0 + 2 * MINUTE, last: T0 + 2 * MINUTE, by: '' },
            },
            expiresAt: T0 + 12 * MINUTE,
          },
        ],
      ]),
    ]);
  });

  it('writes nothing when the earlier events it holds are unchanged', async () => {
    const { store, writes } = recording();
    const tracker = new SequenceTracker(store);
    await tracker.resolve([sighting('earlier', 'c1', 0)]);

    await tracker.resolve([sighting('earlier', 'c1', 0), sighting('later', 'o1', 1)]);
    await tracker.resolve([sighting('later', 'o2', 2)]);

    expect(writes).toHaveLength(1);
  });

  it('writes a group again when an earlier event expired as another came, their number the same', async () => {
    const { store, writes } = recording();
    const tracker = new SequenceTracker(store);
    await tracker.resolve([sighting('earlier', 'c1', 0), sighting('earlier', 'c2', 5)]);

    await tracker.resolve([sighting('earlier', 'c3', 12)]);
    const later = sighting('later', 'o1', 13);
    const judged = await new SequenceTracker(store).resolve([later]);

    expect(writes).toHaveLength(2);
    expect(judged.get(later)?.map((event) => event.id)).toEqual(['c2', 'c3']);
  });

  it('deletes a group whose earlier events have all expired', async () => {
    const { store, writes } = recording();
    const tracker = new SequenceTracker(store);
    await tracker.resolve([sighting('earlier', 'c1', 0)]);

    await tracker.resolve([sighting('later', 'o1', 30)]);

    expect(writes[1]).toEqual(
      new Map([[sequenceKey('key-opened', 'key-a'), { values: {}, expiresAt: T0 + 30 * MINUTE }]]),
    );
  });

  it('keeps long event ids as hashes, and still finds the later event that follows them', async () => {
    const { store, writes } = recording();
    const long = 'x'.repeat(129);
    const edge = 'y'.repeat(128);
    const later = sighting('later', 'z'.repeat(200), 1);

    const judged = await new SequenceTracker(store).resolve([
      sighting('earlier', long, 0),
      sighting('earlier', edge, 0),
      later,
    ]);

    expect(Object.keys(writes[0]?.values().next().value?.values ?? {}).sort()).toEqual([
      expect.stringMatching(/^sha256:[0-9a-f]{32}$/),
      edge,
    ]);
    expect(judged.get(later)?.map((event) => event.id)).toEqual([long, edge]);
  });

  it('names an earlier event known only from the store by its id and time, and one this tracker saw in full', async () => {
    const store = new MemoryFirstSeenStore();
    await new SequenceTracker(store).resolve([sighting('earlier', 'c1', 0)]);
    const tracker = new SequenceTracker(store);
    const seen = sighting('earlier', 'c2', 1);
    await tracker.resolve([seen]);
    const later = sighting('later', 'o1', 2);

    const judged = await tracker.resolve([later]);

    expect(judged.get(later)).toEqual([{ id: 'c1', created: new Date(T0).toISOString() }, seen.event]);
  });

  it('forgets the oldest events it remembers past 4,096, naming them then by id and time', async () => {
    const store = new MemoryFirstSeenStore();
    const tracker = new SequenceTracker(store);
    await tracker.resolve([sighting('earlier', 'first', 0, 'group-0')]);
    await tracker.resolve([sighting('earlier', 'again', 0, 'group-1')]);
    await tracker.resolve([sighting('earlier', 'first', 0, 'group-0')]);
    const others = Array.from({ length: 4_095 }, (_, index) =>
      sighting('earlier', `c${index}`, 0, `other-${index}`),
    );
    await tracker.resolve(others);
    const first = sighting('later', 'o1', 1, 'group-0');
    const again = sighting('later', 'o2', 1, 'group-1');

    const judged = await tracker.resolve([first, again]);

    expect(judged.get(first)).toEqual([
      { id: 'first', eventTypeName: 'API_KEY_CREATED', created: new Date(T0).toISOString() },
    ]);
    expect(judged.get(again)).toEqual([{ id: 'again', created: new Date(T0).toISOString() }]);
  });

  it('names every rule and key of a failed read, and the one record a store refused', async () => {
    const failure = new Error('throttled');
    const reading: FirstSeenStore = {
      readFirstSeen: () => Promise.reject(failure),
      writeFirstSeen: () => Promise.reject(failure),
    };
    const refusing: FirstSeenStore = {
      readFirstSeen: async () => new Map(),
      writeFirstSeen: async (records) => new Map([[[...records.keys()][0] as string, new Error('too big')]]),
    };

    const read = await new SequenceTracker(reading)
      .resolve([sighting('earlier', 'c1', 0, 'key-a', 'one'), sighting('earlier', 'c2', 0, 'key-b', 'two')])
      .catch((error: unknown) => error);
    const refused = await new SequenceTracker(refusing)
      .resolve([sighting('earlier', 'c1', 0), sighting('earlier', 'c2', 0, 'key-b')])
      .catch((error: unknown) => error);

    expect(read).toBeInstanceOf(RuleStateError);
    expect((read as Error).message).toBe(
      `The state store could not read the earlier events of sequence rules "one", "two" (2 keys, such as ${sequenceKey('one', 'key-a')}): throttled; evaluate the batch again once the store answers`,
    );
    expect((refused as Error).message).toBe(
      `The state store could not write the earlier events of sequence rule "key-opened" (key ${sequenceKey('key-opened', 'key-a')}): too big; evaluate the batch again once the store answers`,
    );
    expect((refused as RuleStateError).cause).toEqual(new Error('too big'));
  });

  it('says what a store threw that is not an error', async () => {
    const store: FirstSeenStore = {
      readFirstSeen: async () => new Map(),
      writeFirstSeen: () => Promise.reject('socket closed'),
    };

    const error = await new SequenceTracker(store)
      .resolve([sighting('earlier', 'c1', 0)])
      .catch((caught: unknown) => caught);

    expect((error as Error).message).toContain(
      'could not write the earlier events of sequence rule "key-opened" (key ',
    );
    expect((error as Error).message).toContain('): socket closed; evaluate');
  });
});
