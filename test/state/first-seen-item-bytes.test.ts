import { afterEach, describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import {
  createRuleEngine,
  encodeSeenValues,
  type FirstSeenRecord,
  learningEndingAt,
  MAX_SEEN_VALUES_BYTES,
  MemoryCounterStore,
  seenSetKey,
  seenValuesBytes,
} from '../../shared/rules/index.js';
import type { StateStore } from '../../shared/state/index.js';
import { DAY, defaultRulePack } from '../poll/support/poll-fixture.js';
import { storeKinds } from '../poll/support/store-kinds.js';
import { TestClock } from '../poll/support/test-clock.js';

/**
 * The shipped `data-explorer-first-use` rule keeps up to 1,000 usernames per project in one record.
 * Names that anyone who can use Data Explorer chooses can make that record outgrow a DynamoDB item
 * (400 KB): 1,000 names of 128 CJK characters (384 bytes each), or 600 of 128 control characters
 * (JSON escapes each to 6 bytes). The record must stay within one item, keeping the newest names.
 */

const PROJECT = '6650a1b2c3d4e5f602000041';
const T0 = Date.parse('2026-03-01T00:00:00Z');

/** 128 characters of CJK, distinct for each index. */
function cjkName(index: number): string {
  const tail = String.fromCodePoint(0x4e00 + (index % 20_000));
  return `${'漢'.repeat(120)}${String(index).padStart(7, '0')}${tail}`;
}

/** 128 control characters, distinct for each index (its digits spelt in U+0001..U+000A). */
function controlName(index: number): string {
  const digits = [...String(index).padStart(6, '0')].map((digit) => String.fromCharCode(1 + Number(digit)));
  return `${'\u001f'.repeat(122)}${digits.join('')}`;
}

function dataExplorerEvents(names: readonly string[]): AtlasEvent[] {
  return names.map((username, index) => ({
    id: `65f0000000000000${index.toString(16).padStart(8, '0')}`,
    eventTypeName: 'DATA_EXPLORER_CRUD',
    created: new Date(T0 + index * 1_000).toISOString(),
    groupId: PROJECT,
    username,
    opType: 'insertDocument',
  }));
}

let store: StateStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe.each(storeKinds())('a first-seen group whose names outgrow an item, $name', ({ factory }) => {
  it.each([
    {
      hostile: '1,000 names of 128 CJK characters',
      names: Array.from({ length: 1_000 }, (_, i) => cjkName(i)),
    },
    {
      hostile: '600 names of 128 control characters',
      names: Array.from({ length: 600 }, (_, i) => controlName(i)),
    },
  ])(
    'keeps $hostile within one item, the least recently seen evicted, and alerts on each',
    async ({ names }) => {
      // Prepare
      const clock = new TestClock(T0);
      store = await factory(clock);
      const pack = await defaultRulePack();
      await store.writeFirstSeen(learningEndingAt(pack, T0));
      const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store, clock });
      const stateErrors: string[] = [];

      // Act
      const alerts = await engine.evaluate(dataExplorerEvents(names), {
        onStateError: (failure) => stateErrors.push(failure.message),
      });
      const key = seenSetKey('data-explorer-first-use', PROJECT);
      const record = (await store.readFirstSeen([key])).get(key) as FirstSeenRecord;

      // Assess
      expect(stateErrors).toEqual([]);
      expect(alerts.filter((alert) => alert.ruleId === 'data-explorer-first-use')).toHaveLength(names.length);
      expect(seenValuesBytes(record.values)).toBeLessThanOrEqual(MAX_SEEN_VALUES_BYTES);
      expect(seenValuesBytes(record.values)).toBeGreaterThan(MAX_SEEN_VALUES_BYTES - 1_000);
      const kept = Object.keys(record.values);
      expect(kept.length).toBeLessThan(names.length);
      expect(new Set(kept)).toEqual(new Set(names.slice(names.length - kept.length)));
    },
  );

  it('refuses alone a record whose values take more bytes than an item holds, and writes the others', async () => {
    // Prepare
    const clock = new TestClock(T0);
    store = await factory(clock);
    const values = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [
        controlName(i),
        { first: T0, last: T0, by: 'aaaaaaaaaaaaaaaa' },
      ]),
    );
    const oversized: FirstSeenRecord = { values, expiresAt: T0 + DAY };
    const small: FirstSeenRecord = {
      values: { 'ana@example.com': { first: T0, last: T0, by: 'bbbbbbbbbbbbbbbb' } },
      expiresAt: T0 + DAY,
    };

    // Act
    const failed = await store.writeFirstSeen(
      new Map([
        ['first-seen|rule|group-sha256|big', oversized],
        ['first-seen|rule|group-sha256|small', small],
      ]),
    );
    const read = await store.readFirstSeen([
      'first-seen|rule|group-sha256|big',
      'first-seen|rule|group-sha256|small',
    ]);

    // Assess
    expect(encodeSeenValues(values).length).toBeGreaterThan(MAX_SEEN_VALUES_BYTES);
    expect([...failed.keys()]).toEqual(['first-seen|rule|group-sha256|big']);
    expect(failed.get('first-seen|rule|group-sha256|big')?.message).toMatch(
      /would hold \d+ bytes of values, more than the 350000 a record may hold: it was not written/,
    );
    expect([...read.keys()]).toEqual(['first-seen|rule|group-sha256|small']);
  });

  it('refuses alone a record with a time that is not a finite number', async () => {
    // Prepare
    const clock = new TestClock(T0);
    store = await factory(clock);
    const broken: FirstSeenRecord = {
      values: { 'ana@example.com': { first: T0, last: Number.NaN, by: 'aaaaaaaaaaaaaaaa' } },
      expiresAt: T0 + DAY,
    };
    const learning: FirstSeenRecord = { values: {}, expiresAt: Number.MAX_SAFE_INTEGER, startedAt: T0 };

    // Act
    const failed = await store.writeFirstSeen(
      new Map([
        ['first-seen|rule|group-sha256|broken', broken],
        ['first-seen|rule|learning', learning],
      ]),
    );
    const read = await store.readFirstSeen([
      'first-seen|rule|group-sha256|broken',
      'first-seen|rule|learning',
    ]);

    // Assess
    expect(failed.get('first-seen|rule|group-sha256|broken')?.message).toContain(
      'would hold a time that is not a finite number: it was not written',
    );
    expect([...read.keys()]).toEqual(['first-seen|rule|learning']);
  });
});
