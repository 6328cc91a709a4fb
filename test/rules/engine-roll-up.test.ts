import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Alert } from '../../shared/notify/alert.js';
import type { CounterStore } from '../../shared/rules/counter-store.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { createStateTable, DynamoDbStateStore } from '../../shared/state/index.js';
import { ManualClock } from '../state/manual-clock.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { packOf } from './rule-files.js';

const PACK = packOf(`
rules:
  - id: read-once
    name: Data Explorer reads, once an hour a user
    severity: info
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [groupId, username]
    suppress: 1h
    title: 'Data Explorer read by {{username}}'
  - id: failures
    name: Failed logins, once an hour a user
    severity: medium
    match: { eventTypeName: DB_AUTH_FAILED }
    group_by: [username]
    threshold: { count: 3, window: 5m }
    suppress: 1h
    title: '{{username}} failed 3 times'
`);

const START = Date.UTC(2026, 10, 16, 9, 0, 0);
const MINUTE = 60_000;

function read(id: string, minute: number, username = 'ana@acme.example'): AtlasEvent {
  return {
    id,
    created: new Date(START + minute * MINUTE).toISOString(),
    eventTypeName: 'DATA_EXPLORER',
    groupId,
    username,
    opType: 'find',
  };
}

function failure(id: string, second: number): AtlasEvent {
  return {
    id,
    created: new Date(START + second * 1000).toISOString(),
    eventTypeName: 'DB_AUTH_FAILED',
    username: `app-writer-${groupId}`,
  };
}

// The DynamoDB table outlives a test: each test's groups are its own.
let groupId = '';
beforeEach(() => {
  groupId = randomUUID();
});

const rollUps = (alerts: readonly Alert[]) => alerts.map((alert) => [alert.events.at(-1)?.id, alert.rollUp]);

let client: DynamoDBClient;
const tableName = `engine-roll-up-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
});

const STORES: ReadonlyArray<[string, () => CounterStore]> = [
  ['MemoryCounterStore', () => new MemoryCounterStore()],
  ['DynamoDbStateStore', () => new DynamoDbStateStore({ client, tableName, clock: new ManualClock(START) })],
];

describe.each(STORES)('createRuleEngine roll-ups over %s', (_name, createStore) => {
  it('tells, in the group next alert, how many were suppressed and between when, across batches', async () => {
    // Prepare: three ticks of one user reading, each with an engine of its own (Lambda containers).
    const store = createStore();
    const ticks = [
      [read('r1', 0), read('r2', 2), read('r3', 3, 'bo@acme.example')],
      [read('r4', 20), read('r5', 41)],
      [read('r6', 59), read('r7', 61), read('r8', 62)],
    ];

    // Act
    const alerts: Alert[] = [];
    for (const batch of ticks)
      alerts.push(...(await createRuleEngine({ pack: PACK, counters: store }).evaluate(batch)));

    // Assess: r7 starts the second hour; r2, r4, r5 and r6 were suppressed.
    expect(rollUps(alerts)).toEqual([
      ['r1', undefined],
      ['r3', undefined],
      ['r7', { suppressed: 4, first: START + 2 * MINUTE, last: START + 59 * MINUTE }],
    ]);
  });

  it('counts nothing twice when a tick fails after counting and is evaluated again', async () => {
    // Prepare: the second tick counts its events, then fails (its alerts are never sent); the poller
    // reads the same events again with the next tick's new ones.
    const store = createStore();
    await createRuleEngine({ pack: PACK, counters: store }).evaluate([read('r1', 0), read('r2', 1)]);
    await createRuleEngine({ pack: PACK, counters: store }).evaluate([read('r3', 5), read('r4', 6)]);

    // Act
    const retried = await createRuleEngine({ pack: PACK, counters: store }).evaluate([
      read('r3', 5),
      read('r4', 6),
      read('r5', 7),
      read('r6', 70),
    ]);

    // Assess
    expect(rollUps(retried)).toEqual([
      ['r6', { suppressed: 4, first: START + MINUTE, last: START + 7 * MINUTE }],
    ]);
  });

  it('rolls up the full windows a threshold rule with suppress did not alert for', async () => {
    const store = createStore();
    const engine = createRuleEngine({ pack: PACK, counters: store });
    const windows = [0, 300, 600, 900, 3_900].flatMap((second) => [
      failure(`f${second}a`, second),
      failure(`f${second}b`, second + 1),
      failure(`f${second}c`, second + 2),
    ]);

    const alerts = await engine.evaluate(windows);

    expect(rollUps(alerts)).toEqual([
      ['f0c', undefined],
      ['f3900c', { suppressed: 3, first: START + 302_000, last: START + 902_000 }],
    ]);
  });
});

describe('createRuleEngine roll-up keys', () => {
  it('holds back and rolls up by the key a rule names, across the groups of its group_by', async () => {
    // Prepare: one person reading in two projects; the rule groups by project and person, and rolls
    // up by person alone.
    const pack = packOf(`
rules:
  - id: reads-by-person
    name: Data Explorer reads, once an hour a person
    severity: info
    match: { eventTypeName: DATA_EXPLORER }
    group_by: [groupId, username]
    suppress: { for: 1h, key: [username] }
    title: 'Data Explorer read by {{username}}'
`);
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore() });
    const inProject = (id: string, minute: number, project: string): AtlasEvent => ({
      ...read(id, minute),
      groupId: project,
    });

    // Act
    const alerts = await engine.evaluate([
      inProject('r1', 0, 'p1'),
      inProject('r2', 5, 'p2'),
      inProject('r3', 6, 'p1'),
      inProject('r4', 61, 'p2'),
    ]);

    // Assess: each alert still names its own group (project and person).
    expect(rollUps(alerts)).toEqual([
      ['r1', undefined],
      ['r4', { suppressed: 2, first: START + 5 * MINUTE, last: START + 6 * MINUTE }],
    ]);
    expect(alerts.map((alert) => alert.groupKey)).toEqual(['p1|ana@acme.example', 'p2|ana@acme.example']);
  });
});
