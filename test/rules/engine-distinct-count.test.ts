import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Alert } from '../../shared/notify/alert.js';
import type { CounterIncrement, CounterStore } from '../../shared/rules/counter-store.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { RuleStateError } from '../../shared/rules/errors.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { createPrng } from '../../simulator/prng.js';
import { packOf } from './rule-files.js';

const RULES = `
rules:
  - id: spray
    name: Many user names from one address
    severity: high
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [remoteAddress]
    distinct_count: { field: username, count: 3, window: 10m }
    title: '{{remoteAddress}} tried many user names, {{username}} last'
  - id: spray-hourly
    name: Many user names from one address, one alert an hour
    severity: medium
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [remoteAddress]
    distinct_count: { field: username, count: 2, window: 10m }
    suppress: 1h
    title: '{{remoteAddress}} again'
  - id: burst
    name: Many operations from one address
    severity: low
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [remoteAddress]
    threshold: { count: 3, window: 10m }
    title: 'Burst from {{remoteAddress}}'
`;

/** Aligned to the 10-minute windows. */
const T0 = Date.UTC(2024, 2, 18, 14, 0, 0);
const MINUTE = 60_000;
const WINDOW = 10 * MINUTE;
const ADDRESS = '203.0.113.9';

function attempt(id: string, offsetMs: number, username: string, remoteAddress = ADDRESS): AtlasEvent {
  return {
    id,
    eventTypeName: 'DATA_EXPLORER',
    username,
    remoteAddress,
    created: new Date(T0 + offsetMs).toISOString(),
  };
}

function engineOf(ruleIds: string[], counters: CounterStore = new MemoryCounterStore()) {
  return createRuleEngine({ pack: packOf(RULES), counters, ruleIds });
}

const triggers = (alerts: readonly Alert[]) => alerts.map((alert) => alert.events.at(-1)?.id);
const carried = (alerts: readonly Alert[]) => alerts.map((alert) => alert.events.map((event) => event.id));

/** A counter store that records what it is asked, in front of an in-memory one. */
function recordingStore(): { store: CounterStore; calls: CounterIncrement[][]; memory: MemoryCounterStore } {
  const memory = new MemoryCounterStore();
  const calls: CounterIncrement[][] = [];
  return {
    memory,
    calls,
    store: {
      increment: (key, member, options) => memory.increment(key, member, options),
      incrementMany: (increments) => {
        calls.push([...increments]);
        return memory.incrementMany(increments);
      },
      suppressMany: (steps) => memory.suppressMany(steps),
      get: (key, now) => memory.get(key, now),
    },
  };
}

describe('createRuleEngine distinct-count rules', () => {
  it('alerts once, for the event that brings a group to the count, with the first event of each value', async () => {
    const engine = engineOf(['spray']);

    const alerts = await engine.evaluate([
      attempt('e1', 0, 'alice'),
      attempt('e2', MINUTE, 'alice'),
      attempt('e3', 2 * MINUTE, 'bob'),
      attempt('e4', 3 * MINUTE, 'carol'),
      attempt('e5', 4 * MINUTE, 'dave'),
      attempt('e6', 5 * MINUTE, 'alice'),
    ]);

    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      ruleId: 'spray',
      severity: 'high',
      title: '203.0.113.9 tried many user names, carol last',
      groupKey: ADDRESS,
      raisedAt: T0 + 3 * MINUTE,
    });
    expect(carried(alerts)).toEqual([['e1', 'e3', 'e4']]);
  });

  it('counts a repeated value once, however often it comes', async () => {
    const engine = engineOf(['spray']);

    const alerts = await engine.evaluate(
      ['alice', 'bob', 'alice', 'bob', 'alice', 'bob', 'bob'].map((name, at) =>
        attempt(`e${at}`, at * MINUTE, name),
      ),
    );

    expect(alerts).toEqual([]);
  });

  it('counts each group apart', async () => {
    const engine = engineOf(['spray']);

    const alerts = await engine.evaluate([
      attempt('a1', 0, 'alice', '198.51.100.1'),
      attempt('b1', 0, 'alice', '198.51.100.2'),
      attempt('a2', MINUTE, 'bob', '198.51.100.1'),
      attempt('b2', MINUTE, 'bob', '198.51.100.2'),
      attempt('b3', 2 * MINUTE, 'carol', '198.51.100.2'),
      attempt('a3', 3 * MINUTE, 'bob', '198.51.100.1'),
    ]);

    expect(alerts.map((alert) => [alert.groupKey, alert.events.at(-1)?.id])).toEqual([
      ['198.51.100.2', 'b3'],
    ]);
  });

  it('counts an address in any spelling as one group and one value', async () => {
    const engine = engineOf(['spray']);
    const byAddress = createRuleEngine({
      pack: packOf(
        RULES.replace('group_by: [remoteAddress]', 'group_by: [username]').replace(
          'field: username',
          'field: remoteAddress',
        ),
      ),
      counters: new MemoryCounterStore(),
      ruleIds: ['spray'],
    });
    const spellings = ['2001:db8::1', '2001:DB8:0::1', '[2001:db8::1]:443'];

    const alerts = await engine.evaluate(
      spellings.map((address, at) => attempt(`e${at}`, at, 'alice', address)),
    );
    const sameUser = await byAddress.evaluate(
      spellings.map((address, at) => attempt(`u${at}`, at, 'alice', address)),
    );

    expect([alerts, sameUser]).toEqual([[], []]);
  });

  it('counts in tumbling windows aligned to the window: the start is in, the end is out', async () => {
    const engine = engineOf(['spray']);

    const alerts = await engine.evaluate([
      attempt('before', -1, 'zoe'),
      attempt('start', 0, 'alice'),
      attempt('middle', 5 * MINUTE, 'bob'),
      attempt('end', WINDOW, 'carol'),
      attempt('last', WINDOW - 1, 'dave'),
    ]);

    expect(triggers(alerts)).toEqual(['last']);
    expect(alerts[0]?.events.map((event) => event.id)).toEqual(['start', 'middle', 'last']);
  });

  it('opens its windows exactly where a threshold rule of the same window opens its own', async () => {
    // Prepare: every attempt a new user name, so both rules count the same members at the same times.
    const next = createPrng(31);
    const events = Array.from({ length: 300 }, (_, at) =>
      attempt(
        `e${at}`,
        Math.floor(next() * 12 * WINDOW),
        `user-${at}`,
        `198.51.100.${Math.floor(next() * 3)}`,
      ),
    ).sort((a, b) => String(a.created).localeCompare(String(b.created)));
    const distinct = engineOf(['spray']);
    const threshold = engineOf(['burst']);

    // Act
    const counted = await distinct.evaluate(events);
    const thresholded = await threshold.evaluate(events);

    // Assess
    const windows = (alerts: readonly Alert[]) =>
      alerts.map((alert) => [alert.groupKey, triggers([alert])[0]]);
    expect(counted.length).toBeGreaterThan(10);
    expect(windows(counted)).toEqual(windows(thresholded));
  });

  it('starts again in the next window: a value of an ended window does not count', async () => {
    const engine = engineOf(['spray']);

    const first = await engine.evaluate([attempt('e1', 0, 'alice'), attempt('e2', MINUTE, 'bob')]);
    const next = await engine.evaluate([
      attempt('e3', WINDOW, 'carol'),
      attempt('e4', WINDOW + MINUTE, 'alice'),
    ]);
    const third = await engine.evaluate([attempt('e5', WINDOW + 2 * MINUTE, 'bob')]);

    expect([first, next]).toEqual([[], []]);
    expect(carried(third)).toEqual([['e3', 'e4', 'e5']]);
  });

  it('keeps at most count values a window: the values past it are not stored, and raise nothing', async () => {
    const counters = new MemoryCounterStore();
    const engine = engineOf(['spray'], counters);
    const names = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'alice'];

    const alerts = await engine.evaluate(names.map((name, at) => attempt(`e${at}`, at * MINUTE, name)));
    const held = await counters.get(`distinct|spray|${ADDRESS}|${T0}`, T0);

    expect(triggers(alerts)).toEqual(['e2']);
    expect(held).toBe(3);
  });

  it('never loses the alert at the bound: the count is the bound, reached by the value that alerts', async () => {
    // Prepare: the largest count a rule may give, each value reaching the store exactly once.
    const pack = packOf(RULES.replace('count: 3, window: 10m', 'count: 5000, window: 1h'));
    const counters = new MemoryCounterStore();
    const engine = createRuleEngine({ pack, counters, ruleIds: ['spray'] });
    const events = Array.from({ length: 5_100 }, (_, at) =>
      attempt(`e${String(at).padStart(5, '0')}`, 0, `user-${at}`),
    );

    // Act
    const alerts = await engine.evaluate(events);

    // Assess
    expect(triggers(alerts)).toEqual(['e04999']);
    expect(alerts[0]?.events).toHaveLength(5_000);
    expect(await counters.get(`distinct|spray|${ADDRESS}|${T0}`, T0)).toBe(5_000);
  });

  it('raises nothing more for the values of a window that has alerted, in later batches', async () => {
    const engine = engineOf(['spray']);
    await engine.evaluate([attempt('e1', 0, 'alice'), attempt('e2', 1, 'bob'), attempt('e3', 2, 'carol')]);

    const later = await engine.evaluate([
      attempt('e4', MINUTE, 'alice'),
      attempt('e5', 2 * MINUTE, 'dave'),
      attempt('e6', 3 * MINUTE, 'carol'),
    ]);

    expect(later).toEqual([]);
  });

  it('raises the same alert again when the batch is read again, by this engine or a new one', async () => {
    // Prepare: a tick that counted, then stopped before the alert was sent; the next reads it again.
    const counters = new MemoryCounterStore();
    const batch = [
      attempt('e1', 0, 'alice'),
      attempt('e2', 1, 'bob'),
      attempt('e3', 2, 'carol'),
      attempt('e4', 3, 'alice'),
    ];
    const engine = engineOf(['spray'], counters);
    const [first] = await engine.evaluate(batch);

    // Act
    const again = await engine.evaluate(batch);
    const elsewhere = await engineOf(['spray'], counters).evaluate(batch);

    // Assess: one alert each time, with the window's fingerprint.
    expect(first?.fingerprint).toMatch(/^spray:[0-9a-f]{32}$/);
    expect(again.map((alert) => alert.fingerprint)).toEqual([first?.fingerprint]);
    expect(elsewhere.map((alert) => alert.fingerprint)).toEqual([first?.fingerprint]);
    expect(triggers(again)).toEqual(['e3']);
    expect(await counters.get(`distinct|spray|${ADDRESS}|${T0}`, T0)).toBe(3);
  });

  it('gives each window of each group its own fingerprint', async () => {
    const engine = engineOf(['spray']);
    const names = ['alice', 'bob', 'carol'];

    const alerts = await engine.evaluate([
      ...names.map((name, at) => attempt(`a${at}`, at, name)),
      ...names.map((name, at) => attempt(`b${at}`, at, name, '198.51.100.1')),
      ...names.map((name, at) => attempt(`c${at}`, WINDOW + at, name)),
    ]);

    expect(alerts).toHaveLength(3);
    expect(new Set(alerts.map((alert) => alert.fingerprint)).size).toBe(3);
  });

  it('judges a batch in the order given, as it judges the same events one by one', async () => {
    // Prepare: late and early events mixed, several groups, values repeated.
    const next = createPrng(7);
    const events = Array.from({ length: 400 }, (_, at) =>
      attempt(
        `e${at}`,
        Math.floor(next() * 4 * WINDOW),
        `user-${Math.floor(next() * 6)}`,
        `198.51.100.${Math.floor(next() * 4)}`,
      ),
    );
    const batched = engineOf(['spray', 'spray-hourly', 'burst']);
    const single = engineOf(['spray', 'spray-hourly', 'burst']);

    // Act
    const inOneBatch = await batched.evaluate(events);
    const oneByOne: Alert[] = [];
    for (const event of events) oneByOne.push(...(await single.evaluate([event])));

    // Assess
    const summary = (alerts: readonly Alert[]) =>
      alerts.map((alert) => [alert.ruleId, alert.fingerprint, triggers([alert])[0]]);
    expect(summary(inOneBatch)).toEqual(summary(oneByOne));
    expect(new Set(inOneBatch.map((alert) => alert.ruleId))).toEqual(
      new Set(['spray', 'spray-hourly', 'burst']),
    );
  });

  it('alerts on the event that reaches the count in the order given, not in time order', async () => {
    const engine = engineOf(['spray']);

    const alerts = await engine.evaluate([
      attempt('late', 5 * MINUTE, 'carol'),
      attempt('early', 0, 'alice'),
      attempt('middle', 2 * MINUTE, 'bob'),
    ]);

    expect(triggers(alerts)).toEqual(['late']);
    expect(carried(alerts)).toEqual([['early', 'middle', 'late']]);
    expect(alerts[0]?.title).toBe('203.0.113.9 tried many user names, bob last');
  });

  it('counts no event without the field or the group, nor one whose time cannot be read', async () => {
    const engine = engineOf(['spray']);
    const { username: _username, ...anonymous } = attempt('x1', 0, 'zoe');
    const { remoteAddress: _address, ...nowhere } = attempt('x2', 0, 'yann');

    const alerts = await engine.evaluate([
      attempt('e1', 0, 'alice'),
      anonymous,
      { ...attempt('x3', 0, ''), username: '' },
      nowhere,
      { ...attempt('x4', 0, 'xavier'), created: 'yesterday' },
      attempt('e2', MINUTE, 'bob'),
      attempt('e3', 2 * MINUTE, 'carol'),
    ]);

    expect(carried(alerts)).toEqual([['e1', 'e2', 'e3']]);
  });

  it('with suppress, lets one full window out a period and suppresses the next ones', async () => {
    const engine = engineOf(['spray-hourly']);
    const pair = (prefix: string, offset: number) => [
      attempt(`${prefix}1`, offset, 'alice'),
      attempt(`${prefix}2`, offset + 1, 'bob'),
    ];

    const alerts = await engine.evaluate([
      ...pair('a', 0),
      ...pair('b', 2 * WINDOW),
      ...pair('c', 7 * WINDOW),
    ]);

    expect(triggers(alerts)).toEqual(['a2', 'c2']);
  });

  it('asks the counter store once for the windows of every threshold and distinct-count rule', async () => {
    const { store, calls } = recordingStore();
    const engine = engineOf(['spray', 'burst'], store);

    await engine.evaluate([attempt('e1', 0, 'alice'), attempt('e2', 1, 'bob'), attempt('e3', 2, 'carol')]);

    expect(calls).toHaveLength(1);
    expect(calls[0]?.map(({ key, member, limit }) => [key, member, limit])).toEqual([
      [`distinct|spray|${ADDRESS}|${T0}`, 'alice', 3],
      [`threshold|burst|${ADDRESS}|${T0}`, 'e1', 3],
      [`distinct|spray|${ADDRESS}|${T0}`, 'bob', 3],
      [`threshold|burst|${ADDRESS}|${T0}`, 'e2', 3],
      [`distinct|spray|${ADDRESS}|${T0}`, 'carol', 3],
      [`threshold|burst|${ADDRESS}|${T0}`, 'e3', 3],
    ]);
    expect(calls[0]?.[0]).toMatchObject({ now: T0, expiresAt: T0 + WINDOW });
  });

  it('keeps a group key longer than 256 characters as a hash in the counter key', async () => {
    const { store, calls } = recordingStore();
    const engine = engineOf(['spray'], store);

    await engine.evaluate([attempt('e1', 0, 'alice', 'h'.repeat(300))]);

    expect(calls[0]?.[0]?.key).toMatch(new RegExp(`^distinct\\|spray\\|sha256:[0-9a-f]{64}\\|${T0}$`));
  });

  it('fails the batch as a threshold does when the counter store fails, and loses nothing once it answers', async () => {
    // Prepare
    const failure = new Error('ProvisionedThroughputExceededException');
    const memory = new MemoryCounterStore();
    let failing = true;
    const flaky: CounterStore = {
      increment: (key, member, options) => memory.increment(key, member, options),
      incrementMany: (increments) => (failing ? Promise.reject(failure) : memory.incrementMany(increments)),
      suppressMany: (steps) => (failing ? Promise.reject(failure) : memory.suppressMany(steps)),
      get: (key, now) => memory.get(key, now),
    };
    const engine = engineOf(['spray'], flaky);
    const batch = [attempt('e1', 0, 'alice'), attempt('e2', 1, 'bob'), attempt('e3', 2, 'carol')];

    // Act
    const error = await engine.evaluate(batch).catch((caught: unknown) => caught);
    failing = false;
    const retried = await engine.evaluate(batch);

    // Assess
    expect(error).toBeInstanceOf(RuleStateError);
    expect((error as RuleStateError).cause).toBe(failure);
    expect((error as Error).message).toContain('rule "spray"');
    expect((error as Error).message).toContain(`distinct|spray|${ADDRESS}|${T0}`);
    expect(triggers(retried)).toEqual(['e3']);
  });
});
