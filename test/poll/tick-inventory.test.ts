import { afterEach, describe, expect, it } from 'vitest';
import { outcomeOf } from './support/assertions.js';
import { HOUR, ids, MINUTE, type PollFixture, pollSeed, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const ORG = `org:${ids.org}`;
const orgOnly = { sources: { orgIds: [ids.org] } };

/** The seed with one more key: an organization owner usable from the whole internet. */
const seedWithRogueKey = () =>
  pollSeed([
    {
      id: '6650a1b2c3d4e5f603000009',
      desc: 'rogue automation',
      publicKey: 'roguekey',
      privateKey: 'fake-private-key-rogue',
      roles: [{ orgId: ids.org, roleName: 'ORG_OWNER' }],
      accessList: [{ cidrBlock: '0.0.0.0/0' }],
    },
  ]);

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('inventory with the $name', (kind) => {
  it('stores the first snapshot as a baseline, without alerts when nothing is already wrong', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: orgOnly });

    // Act
    const summary = await fixture.tick();

    // Assess
    expect(outcomeOf(summary, ORG).inventory).toEqual({
      status: 'baseline',
      apiKeys: 2,
      serviceAccounts: 0,
      changes: 0,
      findings: 0,
      resolved: 0,
    });
    expect(fixture.notifier.delivered).toEqual([]);
    const stored = await fixture.store.readInventory({ orgId: ids.org });
    expect(stored?.apiKeys.map((entry) => entry.apiKey.publicKey).sort()).toEqual(['dashbrds', 'pollerky']);
    expect(JSON.stringify(stored)).not.toContain('privateKey');
  });

  it('alerts once on a new owner key open to 0.0.0.0/0 at the next snapshot, and not again', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: orgOnly });
    await fixture.tick();
    await fixture.restartSimulator(seedWithRogueKey());
    fixture.clock.advance(10 * MINUTE);
    const notDue = await fixture.tick();
    fixture.clock.advance(HOUR);

    // Act
    const compared = await fixture.tick();
    fixture.clock.advance(HOUR);
    const after = await fixture.tick();

    // Assess
    expect(outcomeOf(notDue, ORG).inventory?.status).toBe('not-due');
    expect(outcomeOf(compared, ORG).inventory).toMatchObject({ status: 'compared', apiKeys: 3, changes: 3 });
    expect(fixture.notifier.delivered.map((alert) => [alert.ruleId, alert.severity])).toEqual([
      ['inventory-api-key-owner-role-granted', 'critical'],
      ['inventory-access-list-open-to-internet', 'critical'],
    ]);
    expect(fixture.notifier.delivered[0]?.events[0]).toMatchObject({
      eventTypeName: 'INVENTORY_API_KEY_OWNER_ROLE_GRANTED',
      source: 'inventory',
      targetPublicKey: 'roguekey',
    });
    expect(outcomeOf(after, ORG).inventory).toMatchObject({ status: 'compared', apiKeys: 3, changes: 0 });
    expect(fixture.notifier.delivered).toHaveLength(2);
    expect(JSON.stringify(await fixture.store.readInventory({ orgId: ids.org }))).not.toContain('privateKey');
  });

  it('compares with the same old snapshot again when an alert of it was not delivered, and repeats none', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: orgOnly });
    await fixture.tick();
    await fixture.restartSimulator(seedWithRogueKey());
    fixture.clock.advance(HOUR);
    fixture.notifier.failNext({ count: 1, retryable: true });

    // Act
    const failed = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const retried = await fixture.tick();

    // Assess
    expect(outcomeOf(failed, ORG)).toMatchObject({
      status: 'ok',
      inventory: { status: 'failed', errorCode: 'ALERT_DELIVERY_FAILED' },
    });
    expect(failed.totals.sourceErrors).toBe(1);
    expect(outcomeOf(retried, ORG)).toMatchObject({
      inventory: { status: 'compared', changes: 3 },
      alerts: { alreadySent: 1, published: { critical: 1 } },
    });
    const fingerprints = fixture.notifier.fingerprints();
    expect(fingerprints).toHaveLength(2);
    expect(new Set(fingerprints).size).toBe(2);
  });
});
