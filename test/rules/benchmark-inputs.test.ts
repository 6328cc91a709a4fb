import { describe, expect, it } from 'vitest';
import { generateEventMix } from '../../bench/support/event-mix.js';
import { generateRuleMix } from '../../bench/support/rule-mix.js';
import { parseEventTime } from '../../shared/rules/event-time.js';
import { packOf } from './rule-files.js';

describe('generateEventMix', () => {
  it('gives the same events for the same seed, in time order, with unique ids', () => {
    const events = generateEventMix({ count: 2000, seed: 3 });

    const times = events.map((event) => parseEventTime(event.created) ?? Number.NaN);

    expect(generateEventMix({ count: 2000, seed: 3 })).toEqual(events);
    expect(times.every((time, index) => index === 0 || time > (times[index - 1] ?? 0))).toBe(true);
    expect(new Set(events.map((event) => event.id)).size).toBe(2000);
  });
});

describe('generateRuleMix', () => {
  it('writes rules the loader accepts, some of them stateful', () => {
    const pack = packOf(generateRuleMix({ count: 200, seed: 11 }), 'generated.yaml');

    expect(pack.rules).toHaveLength(200);
    expect(pack.rules.some((rule) => rule.spec.threshold !== undefined)).toBe(true);
    expect(pack.rules.some((rule) => rule.spec.match.eventTypeName === undefined)).toBe(true);
  });

  it('adds exceptions for every rule when asked, by regex and by value', () => {
    const pack = packOf(generateRuleMix({ count: 20, exceptions: 10, seed: 29 }), 'generated.yaml');

    expect(pack.exceptions).toHaveLength(10);
    expect(pack.exceptions.every((exception) => exception.scope.size === 20)).toBe(true);
    expect(pack.exceptions.filter((exception) => 'username' in exception.match)).not.toHaveLength(0);
  });
});
