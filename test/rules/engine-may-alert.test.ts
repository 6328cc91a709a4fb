import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateEventMix } from '../../bench/support/event-mix.js';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import type { Clock } from '../../shared/clock.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { loadRulePack } from '../../shared/rules/loader.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { packOf, ruleFile } from './rule-files.js';

/**
 * `mayAlert` decides which events a poll holds whole: an event it says no to is dropped before
 * evaluation, so it must never say no to an event that raises an alert or counts toward a rule.
 */

const rulesDirectory = fileURLToPath(new URL('../../rules/', import.meta.url));
const clock: Clock = { now: () => Date.UTC(2024, 2, 20), sleep: () => Promise.resolve() };

function engineOf(text: string) {
  return createRuleEngine({ pack: packOf(text), counters: new MemoryCounterStore() });
}

describe('RuleEngine.mayAlert', () => {
  const anchored = engineOf(
    ruleFile({
      id: 'user-added',
      match: '      eventTypeName: MONGODB_USER_ADDED\n      username: { exists: true }',
    }),
  );

  it('says yes to an event whose type and conditions a rule matches', () => {
    expect(anchored.mayAlert({ id: 'e1', eventTypeName: 'MONGODB_USER_ADDED', username: 'ana' })).toBe(true);
  });

  it('says no to an event of a type no rule names, and to one whose conditions fail', () => {
    expect(anchored.mayAlert({ id: 'e2', eventTypeName: 'CLUSTER_READY', username: 'ana' })).toBe(false);
    expect(anchored.mayAlert({ id: 'e3', eventTypeName: 'MONGODB_USER_ADDED' })).toBe(false);
    expect(anchored.mayAlert({ id: 'e4' })).toBe(false);
  });

  it('says yes to what evaluation must see to report it: a value that is not an object', () => {
    expect(anchored.mayAlert(null)).toBe(true);
    expect(anchored.mayAlert('MONGODB_USER_ADDED')).toBe(true);
    expect(anchored.mayAlert(42)).toBe(true);
  });

  it('says yes when a rule of any type matches, whatever the event type', () => {
    const anyType = engineOf(
      ruleFile({ id: 'from-address', match: '      remoteAddress: { exists: true }' }),
    );

    expect(anyType.mayAlert({ id: 'e5', eventTypeName: 'ANYTHING', remoteAddress: '192.0.2.1' })).toBe(true);
    expect(anyType.mayAlert({ id: 'e6', eventTypeName: 'ANYTHING' })).toBe(false);
  });

  it('says yes when a rule cannot tell because it throws on the event, so that evaluation reports it', () => {
    const engine = engineOf(
      ruleFile({
        id: 'user-added',
        match: '      eventTypeName: MONGODB_USER_ADDED\n      username: { exists: true }',
      }),
    );
    const hostile = new Proxy(
      { id: 'e7', eventTypeName: 'MONGODB_USER_ADDED' },
      {
        get(target, property) {
          if (property === 'eventTypeName') return 'MONGODB_USER_ADDED';
          if (property in target) return target[property as keyof typeof target];
          throw new Error('field read failed');
        },
      },
    );

    expect(engine.mayAlert(hostile)).toBe(true);
  });

  it('never drops an event that matters: the default pack alerts the same on the events it keeps', async () => {
    const pack = await loadRulePack({ paths: [rulesDirectory] });
    const events: AtlasEvent[] = generateEventMix({ count: 4000, seed: 19 });
    const engineFor = () =>
      createRuleEngine({
        pack,
        counters: new MemoryCounterStore(),
        firstSeen: new MemoryFirstSeenStore(),
        clock,
      });
    const probe = engineFor();
    const kept = events.filter((event) => probe.mayAlert(event));

    const fromAll = await engineFor().evaluate(events);
    const fromKept = await engineFor().evaluate(kept);

    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(events.length);
    expect(fromAll.length).toBeGreaterThan(0);
    expect(fromKept).toEqual(fromAll);
  });
});
