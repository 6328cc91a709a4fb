import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Clock } from '../../shared/clock.js';
import { type Logger, silentLogger } from '../../shared/logger.js';
import type { Alert } from '../../shared/notify/alert.js';
import type { CounterStore } from '../../shared/rules/counter-store.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { RuleEvaluationError, RuleLoadError, RuleStateError } from '../../shared/rules/errors.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import type { RulePack } from '../../shared/rules/rule-pack.js';
import { createPrng } from '../../simulator/prng.js';
import { packOf } from './rule-files.js';

const STATELESS = `
rules:
  - id: project-deleted
    name: Project deleted
    severity: high
    tags: [destruction]
    match: { eventTypeName: GROUP_DELETED }
    group_by: [groupId]
    title: 'Project {{groupId}} deleted by {{username | publicKey | "unknown"}}'
    summary: 'Deleted at {{created}}'
    runbook: https://runbooks.example/project-deleted
  - id: any-admin
    name: Action by a MongoDB employee
    severity: medium
    match: { isGlobalAdmin: true }
    title: 'MongoDB employee acted: {{eventTypeName}}'
  - id: disabled-rule
    name: Disabled
    severity: low
    enabled: false
    match: { eventTypeName: GROUP_DELETED }
    title: never
  - id: mentions
    name: Mentions allowed
    severity: info
    allow_mentions: true
    match: { eventTypeName: JOINED_TEAM }
    title: '<!channel> {{targetUsername}} joined a team'
`;

const STATEFUL = `
rules:
  - id: many-reads
    name: Many Data Explorer operations by one user
    severity: medium
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [username]
    threshold: { count: 3, window: 10m }
    title: '{{username}} ran many Data Explorer operations'
  - id: metric-once
    name: Metric outside threshold
    severity: low
    match: { eventTypeName: OUTSIDE_METRIC_THRESHOLD }
    group_by: [metricName, hostname]
    suppress: 1h
    title: '{{metricName}} on {{hostname}}'
  - id: many-reads-quiet
    name: Many reads, at most one alert an hour
    severity: low
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [username]
    threshold: { count: 2, window: 10m }
    suppress: 1h
    title: '{{username}} again'
`;

const T0 = Date.UTC(2024, 2, 18, 14, 0, 0);

/**
 * A user name and a title repeating it so often that the title would be longer than the longest
 * string JavaScript can hold (2^29 - 24 characters): rendering it throws a RangeError.
 */
const HUGE_USER_NAME = 'x'.repeat(600_000);
const THROWING_TITLE_PLACEHOLDERS = 900;

function at(offsetMs: number): string {
  return new Date(T0 + offsetMs).toISOString();
}

function read(id: string, offsetMs: number, username = 'ana@example.com'): AtlasEvent {
  return { id, eventTypeName: 'DATA_EXPLORER', username, created: at(offsetMs) };
}

function metric(id: string, offsetMs: number, hostname = 'host-1'): AtlasEvent {
  return {
    id,
    eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
    metricName: 'CONNECTIONS',
    hostname,
    created: at(offsetMs),
  };
}

function engineFor(pack: RulePack, counters: CounterStore = new MemoryCounterStore(), ruleIds?: string[]) {
  return createRuleEngine({ pack, counters, ruleIds });
}

const minutes = (count: number): number => count * 60_000;

describe('createRuleEngine', () => {
  it('raises one alert per matching rule, in event then rule order', async () => {
    const engine = engineFor(packOf(STATELESS));
    const events: AtlasEvent[] = [
      {
        id: 'e1',
        eventTypeName: 'GROUP_DELETED',
        groupId: 'g1',
        username: 'ana@example.com',
        isGlobalAdmin: true,
      },
      { id: 'e2', eventTypeName: 'CLUSTER_CREATED', isGlobalAdmin: true },
      { id: 'e3', eventTypeName: 'CLUSTER_CREATED', isGlobalAdmin: false },
    ];

    const alerts = await engine.evaluate(events);

    expect(alerts.map((alert) => [alert.ruleId, alert.events[0]?.id])).toEqual([
      ['project-deleted', 'e1'],
      ['any-admin', 'e1'],
      ['any-admin', 'e2'],
    ]);
  });

  it('fills every field of the alert from the rule and the event', async () => {
    const engine = engineFor(packOf(STATELESS));
    const event: AtlasEvent = {
      id: 'e1',
      eventTypeName: 'GROUP_DELETED',
      groupId: 'g1',
      publicKey: 'abcdefgh',
      created: '2024-03-18T14:40:03Z',
    };

    const [alert] = await engine.evaluate([event]);

    expect(alert).toEqual({
      ruleId: 'project-deleted',
      ruleName: 'Project deleted',
      severity: 'high',
      title: 'Project g1 deleted by abcdefgh',
      summary: 'Deleted at 2024-03-18T14:40:03Z',
      runbook: 'https://runbooks.example/project-deleted',
      tags: ['destruction'],
      events: [event],
      groupKey: 'g1',
      fingerprint: 'project-deleted:e1',
      allowMentions: false,
      raisedAt: Date.parse('2024-03-18T14:40:03Z'),
      rulePack: { layers: ['rules'] },
    });
  });

  it('gives the same fingerprint to the same event in another engine, and another to another event', async () => {
    const event = { id: 'e1', eventTypeName: 'GROUP_DELETED', groupId: 'g1' };

    const [first] = await engineFor(packOf(STATELESS)).evaluate([event]);
    const [again] = await engineFor(packOf(STATELESS)).evaluate([{ ...event }]);
    const [other] = await engineFor(packOf(STATELESS)).evaluate([{ ...event, id: 'e2' }]);

    expect(again?.fingerprint).toBe(first?.fingerprint);
    expect(other?.fingerprint).not.toBe(first?.fingerprint);
  });

  it('identifies an event without an id by its content', async () => {
    const event = { eventTypeName: 'GROUP_DELETED', groupId: 'g1', created: '2024-03-18T14:40:03Z' };

    const [first] = await engineFor(packOf(STATELESS)).evaluate([event]);
    const [again] = await engineFor(packOf(STATELESS)).evaluate([{ ...event }]);
    const [other] = await engineFor(packOf(STATELESS)).evaluate([{ ...event, groupId: 'g2' }]);

    expect(again?.fingerprint).toBe(first?.fingerprint);
    expect(other?.fingerprint).not.toBe(first?.fingerprint);
  });

  it('skips disabled rules unless asked for them by id', async () => {
    const event = { id: 'e1', eventTypeName: 'GROUP_DELETED', groupId: 'g1' };

    const all = engineFor(packOf(STATELESS));
    const only = engineFor(packOf(STATELESS), new MemoryCounterStore(), ['disabled-rule']);

    expect(all.ruleIds).toEqual(['project-deleted', 'any-admin', 'mentions']);
    expect((await all.evaluate([event])).map((alert) => alert.ruleId)).toEqual(['project-deleted']);
    expect((await only.evaluate([event])).map((alert) => alert.ruleId)).toEqual(['disabled-rule']);
  });

  it('carries the rule opt-in for Slack mentions', async () => {
    const [alert] = await engineFor(packOf(STATELESS)).evaluate([
      { id: 'e1', eventTypeName: 'JOINED_TEAM', targetUsername: 'b@example.com' },
    ]);

    expect(alert).toMatchObject({ allowMentions: true, title: '<!channel> b@example.com joined a team' });
  });

  it('uses the clock for raisedAt only when the event time cannot be read', async () => {
    const clock: Clock = { now: () => 1234, sleep: async () => {} };
    const engine = createRuleEngine({ pack: packOf(STATELESS), counters: new MemoryCounterStore(), clock });

    const alerts = await engine.evaluate([
      { id: 'e1', eventTypeName: 'GROUP_DELETED', created: '2024-04-03 11:13:04.000000000' },
      { id: 'e2', eventTypeName: 'GROUP_DELETED', created: 'last Tuesday' },
    ]);

    expect(alerts.map((alert) => alert.raisedAt)).toEqual([Date.UTC(2024, 3, 3, 11, 13, 4), 1234]);
  });

  it('still evaluates rules that hold when a field is missing', async () => {
    const pack = packOf(`
rules:
  - id: not-a-read
    name: Not a read
    severity: low
    match: { eventTypeName: DATA_EXPLORER, opType: { not_in: [find] } }
    title: '{{opType | "no opType"}}'
  - id: typed-in-any-case
    name: Any case
    severity: low
    match: { eventTypeName: { equals: data_explorer, ignore_case: true } }
    title: any case
`);

    const alerts = await engineFor(pack).evaluate([
      { id: 'e1', eventTypeName: 'DATA_EXPLORER' },
      { id: 'e2', eventTypeName: 'DATA_EXPLORER', opType: 'find' },
    ]);

    expect(alerts.map((alert) => [alert.ruleId, alert.events[0]?.id, alert.title])).toEqual([
      ['not-a-read', 'e1', 'no opType'],
      ['typed-in-any-case', 'e1', 'any case'],
      ['typed-in-any-case', 'e2', 'any case'],
    ]);
  });

  it('loads a regex with overlapping alternatives, matches with it, and answers at once on hostile names', async () => {
    const pack = packOf(`
rules:
  - id: acme-user-created
    name: Database user of acme.io created
    severity: medium
    match:
      eventTypeName: MONGODB_USER_ADDED
      username: { regex: '^(?:[a-z0-9]|[a-z0-9._-])+@acme\\.io$' }
    title: '{{username}} created'
`);
    const user = (id: string, username: string): AtlasEvent => ({
      id,
      eventTypeName: 'MONGODB_USER_ADDED',
      username,
      created: at(0),
    });

    // A backtracking engine takes exponential time on each hostile name: a minute to days at this length.
    const alerts = await engineFor(pack).evaluate([
      user('hostile-1', `${'a'.repeat(39)}!`),
      user('bob', 'bob.smith@acme.io'),
      user('hostile-2', `${'a1.'.repeat(13)}x@acme.io.`),
    ]);

    expect(alerts.map((alert) => alert.title)).toEqual(['bob.smith@acme.io created']);
  });

  it('skips values that are not events, and reports each one', async () => {
    const engine = engineFor(packOf(STATELESS));
    const failures: RuleEvaluationError[] = [];

    const alerts = await engine.evaluate([null, 'text', 42] as unknown as AtlasEvent[], {
      onRuleError: (failure) => failures.push(failure),
    });

    expect(alerts).toEqual([]);
    expect(failures.map((failure) => [failure.code, failure.ruleId, failure.message])).toEqual([
      [
        'RULE_EVALUATION_FAILED',
        undefined,
        'An event that is not an object (null) cannot be evaluated: it was skipped',
      ],
      [
        'RULE_EVALUATION_FAILED',
        undefined,
        'An event that is not an object (string) cannot be evaluated: it was skipped',
      ],
      [
        'RULE_EVALUATION_FAILED',
        undefined,
        'An event that is not an object (number) cannot be evaluated: it was skipped',
      ],
    ]);
  });

  it('skips an event for a rule that throws on it alone: the other rules and the later events go on', async () => {
    const pack = packOf(`
rules:
  - id: echo-user
    name: Repeats the user name in its title
    severity: low
    match: { eventTypeName: MONGODB_USER_ADDED }
    title: '${'{{username}}'.repeat(THROWING_TITLE_PLACEHOLDERS)}'
  - id: user-added
    name: Database user added
    severity: medium
    match: { eventTypeName: MONGODB_USER_ADDED }
    title: 'user added'
`);
    const failures: RuleEvaluationError[] = [];
    const warnings: unknown[][] = [];
    const logger: Logger = { ...silentLogger, warn: (...entry) => warnings.push(entry) };
    const added = (id: string, username: string): AtlasEvent => ({
      id,
      eventTypeName: 'MONGODB_USER_ADDED',
      username,
      created: at(0),
    });
    const events = [added('long', HUGE_USER_NAME), added('short', 'ana')];

    const reported = await engineFor(pack).evaluate(events, {
      onRuleError: (failure) => failures.push(failure),
    });
    const logged = await createRuleEngine({ pack, counters: new MemoryCounterStore(), logger }).evaluate(
      events,
    );

    expect(reported.map((alert) => [alert.ruleId, alert.events[0]?.id])).toEqual([
      ['user-added', 'long'],
      ['echo-user', 'short'],
      ['user-added', 'short'],
    ]);
    expect(logged).toHaveLength(3);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(RuleEvaluationError);
    expect(failures[0]).toMatchObject({
      code: 'RULE_EVALUATION_FAILED',
      ruleId: 'echo-user',
      eventId: 'long',
    });
    expect(failures[0]?.message).toBe(
      'Rule "echo-user" failed on event long (MONGODB_USER_ADDED) and skipped it; the other rules still evaluated it ' +
        "(RangeError: Invalid string length). Check the rule's templates and group_by against this event",
    );
    expect(failures[0]?.cause).toBeInstanceOf(RangeError);
    expect(warnings).toEqual([
      [failures[0]?.message, { errorCode: 'RULE_EVALUATION_FAILED', ruleId: 'echo-user', eventId: 'long' }],
    ]);
  });

  it('refuses a pack whose rules do not compile', () => {
    const [rule] = packOf(STATELESS).rules;
    const broken: RulePack = {
      ...packOf(STATELESS),
      rules:
        rule === undefined
          ? []
          : [{ spec: { ...rule.spec, suppress: 'soon' }, origin: { file: 'x' }, layers: ['rules'] }],
    };

    expect(() => engineFor(broken)).toThrow(RuleLoadError);
  });
});

describe('createRuleEngine threshold rules', () => {
  it('alerts once when a group reaches the count within a window, with the window events oldest first', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['many-reads']);
    const events = [
      read('r2', minutes(2)),
      read('r1', minutes(1)),
      read('r3', minutes(3)),
      read('r4', minutes(4)),
    ];

    const alerts = await engine.evaluate(events);

    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.events.map((event) => event.id)).toEqual(['r1', 'r2', 'r3']);
    expect(alerts[0]).toMatchObject({ groupKey: 'ana@example.com', raisedAt: T0 + minutes(3) });
    expect(alerts[0]?.fingerprint).toMatch(/^many-reads:[0-9a-f]{32}$/);
  });

  it('keeps each window event once, ordered by time then id, whatever order and repeats they come in', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['many-reads']);

    const alerts = await engine.evaluate([
      read('r3', minutes(2)),
      read('r2', minutes(2)),
      read('r3', minutes(2)),
      read('r1', minutes(1)),
    ]);

    expect(alerts.map((alert) => alert.events.map((event) => event.id))).toEqual([['r1', 'r2', 'r3']]);
  });

  it('counts each group apart', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['many-reads']);

    const alerts = await engine.evaluate([
      read('a1', 0),
      read('b1', 1, 'bo@example.com'),
      read('a2', 2),
      read('b2', 3, 'bo@example.com'),
    ]);

    expect(alerts).toEqual([]);
  });

  it('counts in tumbling windows aligned to the window length', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['many-reads']);

    const straddling = await engine.evaluate([
      read('s1', minutes(8)),
      read('s2', minutes(9)),
      read('s3', minutes(11)),
    ]);
    const next = await engine.evaluate([read('s4', minutes(12)), read('s5', minutes(13))]);

    expect(straddling).toEqual([]);
    expect(next.map((alert) => alert.events.map((event) => event.id))).toEqual([['s3', 's4', 's5']]);
  });

  it('counts nothing twice when a batch is read again, and keeps the fingerprint', async () => {
    const counters = new MemoryCounterStore();
    const events = [read('r1', 0), read('r2', 1), read('r3', 2)];

    const cutShort = await engineFor(packOf(STATEFUL), counters, ['many-reads']).evaluate(events.slice(0, 2));
    const retried = await engineFor(packOf(STATEFUL), counters, ['many-reads']).evaluate(events);
    const readAgain = await engineFor(packOf(STATEFUL), counters, ['many-reads']).evaluate([
      events[2] as AtlasEvent,
    ]);

    expect(cutShort).toEqual([]);
    expect(retried).toHaveLength(1);
    expect(readAgain.map((alert) => alert.fingerprint)).toEqual([retried[0]?.fingerprint]);
  });

  it('never counts events whose created time cannot be read, and says so', async () => {
    const warnings: unknown[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      error() {},
      warn: (message, attributes) => warnings.push([message, attributes]),
    };
    const engine = createRuleEngine({
      pack: packOf(STATEFUL),
      counters: new MemoryCounterStore(),
      logger,
      ruleIds: ['many-reads'],
    });
    const undated = { id: 'u1', eventTypeName: 'DATA_EXPLORER', username: 'ana@example.com' };

    const alerts = await engine.evaluate([undated, read('r1', 0), read('r2', 1)]);

    expect(alerts).toEqual([]);
    expect(warnings).toEqual([
      [expect.stringContaining('no readable created time'), { ruleId: 'many-reads', eventId: 'u1' }],
    ]);
  });

  it('wraps a counter store failure in a RuleStateError that keeps the cause', async () => {
    const failure = new Error('ProvisionedThroughputExceededException');
    const failing: CounterStore = {
      increment: () => Promise.reject(failure),
      incrementMany: () => Promise.reject(failure),
      suppressMany: () => Promise.reject(failure),
      get: () => Promise.resolve(0),
    };
    const engine = engineFor(packOf(STATEFUL), failing, ['many-reads']);

    const error = await engine.evaluate([read('r1', 0)]).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RuleStateError);
    expect((error as RuleStateError).cause).toBe(failure);
    expect((error as Error).message).toContain('rule "many-reads"');
  });
});

describe('createRuleEngine suppressed rules', () => {
  it('lets the first alert of a group out and suppresses the rest for the period', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['metric-once']);

    const alerts = await engine.evaluate([
      metric('m1', 0),
      metric('m2', minutes(10)),
      metric('h2', minutes(20), 'host-2'),
      metric('m3', minutes(59)),
      metric('m4', minutes(61)),
    ]);

    expect(alerts.map((alert) => [alert.events[0]?.id, alert.groupKey])).toEqual([
      ['m1', 'CONNECTIONS|host-1'],
      ['h2', 'CONNECTIONS|host-2'],
      ['m4', 'CONNECTIONS|host-1'],
    ]);
  });

  it('raises the same fingerprint when the first event is read again', async () => {
    const counters = new MemoryCounterStore();

    const [first] = await engineFor(packOf(STATEFUL), counters, ['metric-once']).evaluate([metric('m1', 0)]);
    const again = await engineFor(packOf(STATEFUL), counters, ['metric-once']).evaluate([
      metric('m1', 0),
      metric('m2', 1),
    ]);

    expect(again.map((alert) => alert.fingerprint)).toEqual([first?.fingerprint]);
  });

  it('asks the store once a batch, answers what it knows itself, and the next period carries the repeats', async () => {
    const store = new MemoryCounterStore();
    const calls: string[][] = [];
    const counting: CounterStore = {
      increment: (key, member, options) => {
        calls.push([member]);
        return store.increment(key, member, options);
      },
      incrementMany: (increments) => {
        calls.push(increments.map((increment) => increment.member));
        return store.incrementMany(increments);
      },
      suppressMany: (steps) => {
        calls.push(steps.map((step) => step.member));
        return store.suppressMany(steps);
      },
      get: (key, now) => store.get(key, now),
    };
    const engine = engineFor(packOf(STATEFUL), counting, ['metric-once']);

    const first = await engine.evaluate([metric('m1', 0), metric('m2', minutes(10))]);
    const again = await engine.evaluate([
      metric('m1', 0),
      metric('m3', minutes(30)),
      metric('m4', minutes(61)),
    ]);

    expect(first.map((alert) => alert.events[0]?.id)).toEqual(['m1']);
    expect(again.map((alert) => [alert.events[0]?.id, alert.fingerprint])).toEqual([
      ['m1', first[0]?.fingerprint],
      ['m4', expect.any(String)],
    ]);
    expect(again[1]?.rollUp).toEqual({
      suppressed: 2,
      first: Date.parse(String(metric('m2', minutes(10)).created)),
      last: Date.parse(String(metric('m3', minutes(30)).created)),
    });
    // One call a batch. The first asks about both of its events: the store alone knows m1 is first.
    // The second answers m1 (the known occurrence) itself, tells the store of m3, a repeat, and asks
    // about m4, past the period.
    expect(calls).toEqual([
      ['event:m1', 'event:m2'],
      ['event:m3', 'event:m4'],
    ]);
  });

  it('suppresses threshold alerts of later windows', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['many-reads-quiet']);

    const alerts = await engine.evaluate([
      read('w1a', 0),
      read('w1b', 1),
      read('w2a', minutes(10)),
      read('w2b', minutes(11)),
      read('w7a', minutes(70)),
      read('w7b', minutes(71)),
    ]);

    expect(alerts.map((alert) => alert.events.map((event) => event.id))).toEqual([
      ['w1a', 'w1b'],
      ['w7a', 'w7b'],
    ]);
  });
});

describe('createRuleEngine batches of stateful matches', () => {
  /** Seeded events of every stateful rule over three hours, with events read twice and a few late. */
  function mixedEvents(seed: number, count: number): AtlasEvent[] {
    const next = createPrng(seed);
    const events: AtlasEvent[] = [];
    for (let index = 0; index < count; index += 1) {
      const late = next() < 0.05 ? -minutes(15) : 0;
      const offset = Math.floor((index / count) * minutes(180)) + late;
      const repeated = index > 0 && next() < 0.1 ? events[Math.floor(next() * events.length)] : undefined;
      if (repeated !== undefined) {
        events.push(repeated);
      } else if (next() < 0.6) {
        events.push(
          read(`r${index}`, offset, ['ana@example.com', 'bo@example.com', 'cy@example.com'][index % 3]),
        );
      } else {
        events.push(metric(`m${index}`, offset, index % 2 === 0 ? 'host-1' : 'host-2'));
      }
    }
    return events;
  }

  const summary = (alerts: readonly Alert[]) =>
    alerts.map((alert) => [alert.ruleId, alert.fingerprint, alert.events.map((event) => event.id)]);

  it('raises in one batch exactly the alerts it raises event by event', async () => {
    // Prepare
    const events = mixedEvents(1_124, 400);
    const batched = engineFor(packOf(STATEFUL));
    const single = engineFor(packOf(STATEFUL));

    // Act
    const inOneBatch = await batched.evaluate(events);
    const oneByOne: Alert[] = [];
    for (const event of events) oneByOne.push(...(await single.evaluate([event])));

    // Assess
    expect(summary(inOneBatch)).toEqual(summary(oneByOne));
    expect(new Set(inOneBatch.map((alert) => alert.ruleId))).toEqual(
      new Set(['many-reads', 'metric-once', 'many-reads-quiet']),
    );
  });

  it('alerts again, as before, for a first event read again after its group started over in the same batch', async () => {
    // Prepare: m1 was the first of its group; m2 comes after the hour, then m1 is read again, late.
    const batched = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['metric-once']);
    const single = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['metric-once']);
    const [first] = await batched.evaluate([metric('m1', 0)]);
    await single.evaluate([metric('m1', 0)]);
    const later = [metric('m2', minutes(61)), metric('m1', 0)];

    // Act
    const inOneBatch = await batched.evaluate(later);
    const oneByOne: Alert[] = [];
    for (const event of later) oneByOne.push(...(await single.evaluate([event])));

    // Assess: m2 starts a new hour; m1, read again (a tick retried over a long window), alerts with
    // the fingerprint it had, so the poller's record of that alert decides whether it goes out.
    expect(inOneBatch.map((alert) => alert.events[0]?.id)).toEqual(['m2', 'm1']);
    expect(inOneBatch[0]?.fingerprint).not.toBe(first?.fingerprint);
    expect(inOneBatch[1]?.fingerprint).toBe(first?.fingerprint);
    expect(summary(inOneBatch)).toEqual(summary(oneByOne));
  });

  it('asks the counter store once for threshold windows and once for suppressions, whatever the batch size', async () => {
    // Prepare
    const store = new MemoryCounterStore();
    const calls: number[] = [];
    const counting: CounterStore = {
      increment: (key, member, options) => {
        calls.push(1);
        return store.increment(key, member, options);
      },
      incrementMany: (increments) => {
        calls.push(increments.length);
        return store.incrementMany(increments);
      },
      suppressMany: (steps) => {
        calls.push(steps.length);
        return store.suppressMany(steps);
      },
      get: (key, now) => store.get(key, now),
    };
    const engine = engineFor(packOf(STATEFUL), counting);

    // Act
    await engine.evaluate(mixedEvents(7, 300));

    // Assess: every read counts toward two thresholds; metrics and full windows ask about suppression.
    expect(calls).toHaveLength(2);
    expect(calls[0]).toBeGreaterThan(250);
    expect(calls[1]).toBeGreaterThan(0);
  });
});

describe('createRuleEngine group keys', () => {
  it('encodes separators inside values so that distinct groups never share a key', async () => {
    const engine = engineFor(packOf(STATEFUL), new MemoryCounterStore(), ['metric-once']);

    const alerts = await engine.evaluate([
      { ...metric('a', 0), metricName: 'A|B', hostname: 'C' },
      { ...metric('b', 0), metricName: 'A', hostname: 'B|C' },
    ]);

    expect(alerts.map((alert) => alert.groupKey)).toEqual(['A%7CB|C', 'A|B%7CC']);
  });
});
