import { describe, expect, it } from 'vitest';
import { RulePackTooLargeError } from '../../shared/rules/errors.js';
import {
  checkRulePackFootprint,
  measureRulePackFootprint,
  type RulePackFootprint,
  rulePackHeapBudget,
} from '../../shared/rules/pack-footprint.js';
import { packOf } from './rule-files.js';

/** A rule file of `count` rules, each with a regex condition. */
function rules(count: number): string {
  return [
    'rules:',
    ...Array.from({ length: count }, (_, index) => [
      `  - id: rule-${index}`,
      `    name: Rule ${index}`,
      '    severity: low',
      `    match: { eventTypeName: GROUP_DELETED, username: { regex: '^svc-[a-z]+${index}-[0-9]+@' } }`,
      `    title: rule ${index}`,
    ]).flat(),
    '',
  ].join('\n');
}

const MIB = 2 ** 20;

describe('measureRulePackFootprint', () => {
  it('measures the heap the loaded pack holds: more for more rules, and at least its text', () => {
    const small = measureRulePackFootprint(packOf(rules(10)));
    const large = measureRulePackFootprint(packOf(rules(150)));

    expect(large).toMatchObject({ rules: 150, exceptions: 0 });
    expect(large.heapBytes).toBeGreaterThan(large.serializedBytes);
    expect(large.heapBytes).toBeGreaterThan(small.heapBytes + 100 * (large.serializedBytes / 150));
  });
});

describe('checkRulePackFootprint', () => {
  const footprint = (heapMiB: number): RulePackFootprint => ({
    rules: 1_146,
    exceptions: 1_000,
    serializedBytes: 0.4 * MIB,
    heapBytes: heapMiB * MIB,
    loadMs: 540,
  });

  it('gives the pack a quarter of the old space of a function of that memory', () => {
    expect(rulePackHeapBudget(256)).toBe(Math.floor((231 * MIB) / 4));
    expect(rulePackHeapBudget(128)).toBe(Math.floor((116 * MIB) / 4));
  });

  it('accepts a pack within that budget', () => {
    expect(() =>
      checkRulePackFootprint(footprint(57), { memoryMiB: 256, memorySetting: 'poller.memoryMiB' }),
    ).not.toThrow();
  });

  it('refuses a pack over it, with the figures and what to do', () => {
    const check = () =>
      checkRulePackFootprint(footprint(40), { memoryMiB: 128, memorySetting: 'poller.memoryMiB' });

    expect(check).toThrow(RulePackTooLargeError);
    expect(check).toThrow(
      'The rule pack would not fit the function: loaded, its 1,146 rules and 1,000 exceptions (0.4 MiB serialized) hold 40.0 MiB of heap (compiled in 0.5 s here), and a 128 MiB function gives its rules at most 29.0 MiB, a quarter of its 116 MiB heap: the rest holds the events of a tick. Write fewer, broader rules and exceptions (one exception with a list or a regex rather than one per value), or give the function more memory (poller.memoryMiB).',
    );
  });
});
