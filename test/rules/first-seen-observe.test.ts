import { describe, expect, it } from 'vitest';
import { fitSeenValues, observe, refreshAfterMs } from '../../shared/rules/first-seen.js';
import { type SeenValue, seenValuesBytes } from '../../shared/rules/first-seen-store.js';

/** The bound the straightforward way: drop expired values, sort by (last, value), keep the newest. */
function referencePrune(
  values: Record<string, SeenValue>,
  time: number,
  withinMs: number,
  maxValues: number,
) {
  for (const [value, seen] of Object.entries(values)) if (time - seen.last >= withinMs) delete values[value];
  const live = Object.entries(values).sort(
    ([a, x], [b, y]) => x.last - y.last || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const [value] of live.slice(0, Math.max(0, live.length - maxValues))) delete values[value];
}

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('observe', () => {
  it('evicts the least recently seen value once the set passes its bound', () => {
    const values: Record<string, SeenValue> = {};
    observe(values, 'a', { time: 1, by: 'e1', withinMs: 100, maxValues: 2 });
    observe(values, 'b', { time: 2, by: 'e2', withinMs: 100, maxValues: 2 });

    const seen = observe(values, 'c', { time: 3, by: 'e3', withinMs: 100, maxValues: 2 });

    expect(seen).toEqual({ isNew: true, changed: true });
    expect(Object.keys(values).sort()).toEqual(['b', 'c']);
  });

  it('evicts the smaller of two values last seen at the same time', () => {
    const values: Record<string, SeenValue> = {
      y: { first: 1, last: 1, by: 'e1' },
      x: { first: 1, last: 1, by: 'e2' },
    };

    observe(values, 'z', { time: 2, by: 'e3', withinMs: 100, maxValues: 2 });

    expect(Object.keys(values).sort()).toEqual(['y', 'z']);
  });

  it('drops expired values before counting the bound', () => {
    const values: Record<string, SeenValue> = {
      old: { first: 0, last: 0, by: 'e1' },
      recent: { first: 50, last: 50, by: 'e2' },
    };

    observe(values, 'new', { time: 100, by: 'e3', withinMs: 100, maxValues: 2 });

    expect(Object.keys(values).sort()).toEqual(['new', 'recent']);
  });

  it('cuts a set stored over a smaller bound down to that bound', () => {
    const values: Record<string, SeenValue> = Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e'].map((value, at) => [value, { first: at, last: at, by: `e${at}` }]),
    );

    observe(values, 'f', { time: 10, by: 'e9', withinMs: 100, maxValues: 3 });

    expect(Object.keys(values).sort()).toEqual(['d', 'e', 'f']);
  });

  it('keeps the same values as sorting the whole set, over long random sequences', () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const next = random(seed);
      const maxValues = 1 + Math.floor(next() * 8);
      const withinMs = 20 + Math.floor(next() * 200);
      const values: Record<string, SeenValue> = {};
      const expected: Record<string, SeenValue> = {};
      let time = 0;
      for (let step = 0; step < 400; step += 1) {
        time += Math.floor(next() * 6);
        const value = `v${Math.floor(next() * 30)}`;
        const by = `e${step}`;
        observe(values, value, { time, by, withinMs, maxValues });
        const known = expected[value];
        if (known === undefined || time - known.last >= withinMs) {
          expected[value] = { first: time, last: time, by };
          referencePrune(expected, time, withinMs, maxValues);
        } else if (known.by !== by && time - known.last >= refreshAfterMs(withinMs)) {
          expected[value] = { ...known, last: time };
        }
        expect(values, `seed ${seed}, step ${step}`).toEqual(expected);
      }
    }
  });
});

describe('fitSeenValues', () => {
  it('evicts the least recently seen values until their encoding fits the bound, and counts them', () => {
    // Prepare
    const values: Record<string, SeenValue> = {};
    for (let index = 0; index < 40; index += 1) {
      values[`${'\u0001'.repeat(100)}${String(index).padStart(2, '0')}`] = {
        first: index,
        last: 1_000 + (index % 2 === 0 ? index : 100 - index),
        by: 'aaaaaaaaaaaaaaaa',
      };
    }
    const byLast = Object.entries(values).sort(([a, x], [b, y]) => x.last - y.last || (a < b ? -1 : 1));

    // Act
    const evicted = fitSeenValues(values, 10_000);

    // Assess
    expect(seenValuesBytes(values)).toBeLessThanOrEqual(10_000);
    expect(evicted).toBeGreaterThan(0);
    expect(Object.keys(values).sort()).toEqual(
      byLast
        .slice(evicted)
        .map(([value]) => value)
        .sort(),
    );
    // One fewer eviction would not have fitted.
    const oneMore = Object.fromEntries(byLast.slice(evicted - 1));
    expect(seenValuesBytes(oneMore)).toBeGreaterThan(10_000);
  });

  it('leaves alone a set whose encoding fits, measured or not', () => {
    // Prepare
    const values: Record<string, SeenValue> = {
      '203.0.113.7': { first: 1, last: 2, by: 'aaaaaaaaaaaaaaaa' },
      日本: { first: 1, last: 3, by: 'bbbbbbbbbbbbbbbb' },
    };

    // Act
    const evicted = fitSeenValues(values, seenValuesBytes(values));

    // Assess
    expect(evicted).toBe(0);
    expect(Object.keys(values)).toHaveLength(2);
  });
});
