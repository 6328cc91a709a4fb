import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AtlasEvent } from '../../shared/atlas/types.js';
import { createRuleEngine } from '../../shared/rules/engine.js';
import { seenSetKey } from '../../shared/rules/first-seen-tracker.js';
import { MemoryCounterStore } from '../../shared/rules/memory-counter-store.js';
import { MemoryFirstSeenStore } from '../../shared/rules/memory-first-seen-store.js';
import { packOf } from './rule-files.js';

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

describe('first-seen group keys', () => {
  it('gives a name spelt as another group key hash a history of its own', async () => {
    // Prepare: a long group key, and a name that spells the form older versions stored it under
    const store = new MemoryFirstSeenStore();
    const engine = createRuleEngine({ pack, counters: new MemoryCounterStore(), firstSeen: store });
    const long = `${'a'.repeat(300)}@example.com`;
    const crafted = `sha256:${createHash('sha256').update(long).digest('hex')}`;
    await engine.evaluate([use(T0, long, '198.51.100.7')]);

    // Act
    const alerts = await engine.evaluate([use(T0 + 1_000, crafted, '198.51.100.7')]);

    // Assess
    expect(alerts.map((alert) => alert.title)).toEqual([`${crafted} from 198.51.100.7`]);
    expect(seenSetKey('user-new-address', crafted)).not.toBe(seenSetKey('user-new-address', long));
  });

  it('keys every group by the SHA-256 of its key, whatever its length', () => {
    const short = seenSetKey('user-new-address', 'ana');
    const long = seenSetKey('user-new-address', 'a'.repeat(10_000));

    expect(short).toBe(
      `first-seen|user-new-address|group-sha256|${createHash('sha256').update('ana').digest('hex')}`,
    );
    expect(long).toMatch(/^first-seen\|user-new-address\|group-sha256\|[0-9a-f]{64}$/);
  });
});
