import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import type { FirstSeenRecord } from '../../shared/rules/first-seen-store.js';
import { legacySeenSetKey, seenSetKey } from '../../shared/rules/first-seen-tracker.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import type { StateStore } from '../../shared/state/index.js';
import { storeKinds } from '../poll/support/store-kinds.js';
import { TestClock } from '../poll/support/test-clock.js';
import { packOf } from '../rules/rule-files.js';

/**
 * First-seen records written before every group key was hashed (a group key of up to 256 characters
 * kept as it is), read by this version on both stores: moved, not forgotten and not alerted on again.
 */

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-03-01T00:00:00Z');

const pack = packOf(`
rules:
  - id: user-new-address
    name: User from a new address
    severity: low
    match: { username: { exists: true } }
    group_by: [username]
    first_seen: { field: remoteAddress, within: 30d, learning: 0s }
    title: '{{username}} from {{remoteAddress}}'
`);

let counter = 0;
function use(at: number, username: string, remoteAddress: string): AtlasEvent {
  counter += 1;
  return {
    id: `e${counter}`,
    eventTypeName: 'JOINED_ORG',
    created: new Date(at).toISOString(),
    username,
    remoteAddress,
  };
}

/** A record of one address, seen a day before T0, as a version before hashed keys wrote it. */
function oldRecord(remoteAddress: string): FirstSeenRecord {
  return {
    values: { [remoteAddress]: { first: T0 - DAY, last: T0 - DAY, by: 'aaaaaaaaaaaaaaaa' } },
    expiresAt: T0 + 29 * DAY,
  };
}

let store: StateStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe.each(storeKinds())('first-seen records kept before group keys were hashed, $name', ({ factory }) => {
  it('reads a group record where the old version kept it, moves it to its hashed key, and alerts only on what is new', async () => {
    // Prepare
    store = await factory(new TestClock(T0));
    const legacy = legacySeenSetKey('user-new-address', 'ana@example.com') as string;
    await store.writeFirstSeen(new Map([[legacy, oldRecord('198.51.100.7')]]));
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });

    // Act
    const alerts = await engine.evaluate([
      use(T0, 'ana@example.com', '198.51.100.7'),
      use(T0 + 1_000, 'ana@example.com', '203.0.113.9'),
    ]);
    const key = seenSetKey('user-new-address', 'ana@example.com');
    const records = await store.readFirstSeen([legacy, key]);

    // Assess
    expect(legacy).toBe('first-seen|user-new-address|group|ana@example.com');
    expect(alerts.map((alert) => alert.title)).toEqual(['ana@example.com from 203.0.113.9']);
    expect([...records.keys()]).toEqual([key]);
    expect(Object.keys(records.get(key)?.values ?? {}).sort()).toEqual(['198.51.100.7', '203.0.113.9']);
  });

  it('does not read an old record whose key a crafted name could have spelt', async () => {
    // Prepare: what a crafted name wrote under the old form, the same as a long key's old form
    store = await factory(new TestClock(T0));
    const crafted = `sha256:${'0'.repeat(64)}`;
    await store.writeFirstSeen(
      new Map([[`first-seen|user-new-address|group|${crafted}`, oldRecord('198.51.100.7')]]),
    );
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });

    // Act
    const alerts = await engine.evaluate([use(T0, crafted, '198.51.100.7')]);

    // Assess
    expect(legacySeenSetKey('user-new-address', crafted)).toBeUndefined();
    expect(legacySeenSetKey('user-new-address', 'a'.repeat(257))).toBeUndefined();
    expect(alerts).toHaveLength(1);
  });
});
