import { afterEach, describe, expect, it } from 'vitest';
import { runTick } from '../../shared/poll/index.js';
import { learningKey } from '../../shared/rules/first-seen-tracker.js';
import { createRuleEngine, parseRulePack, type RuleEngine } from '../../shared/rules/index.js';
import { DAY, HOUR, ids, MINUTE, type PollFixture, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

/** One first-seen rule: a key's address, known for a day, learnt for an hour, two kept per key. */
const pack = parseRulePack({
  sources: [
    {
      file: 'first-seen.yaml',
      text: `
rules:
  - id: key-new-address
    name: Key used from a new address
    severity: medium
    match: { publicKey: { exists: true } }
    group_by: [publicKey]
    first_seen: { field: remoteAddress, within: 1d, learning: 1h, max_values: 2 }
    title: 'key {{publicKey}} from {{remoteAddress}}'
`,
    },
  ],
});

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())('a first-seen rule through runTick, $name', ({ factory }) => {
  /** A tick with an engine of its own, as a new Lambda container would build it, on the fixture's store. */
  const tickWith = (engine: RuleEngine) => {
    const current = fixture as PollFixture;
    return runTick(
      {
        atlas: current.atlas,
        store: current.store,
        engine,
        notifier: current.notifier,
        clock: current.clock,
        discoveryCache: current.discoveryCache,
      },
      { config: current.config, owner: 'worker-a' },
    );
  };
  const newEngine = (): RuleEngine =>
    createRuleEngine({
      pack,
      counters: (fixture as PollFixture).store,
      firstSeen: (fixture as PollFixture).store,
      clock: (fixture as PollFixture).clock,
    });
  const use = (created: number, remoteAddress: string, publicKey = 'ciruner1'): void => {
    (fixture as PollFixture).sim.addEvent(
      { groupId: ids.project },
      {
        eventTypeName: 'CLUSTER_UPDATED',
        created: new Date(created).toISOString().replace('.000Z', 'Z'),
        publicKey,
        remoteAddress,
      },
    );
  };
  const titles = (): string[] => (fixture as PollFixture).notifier.delivered.map((alert) => alert.title);

  it('records during its learning period, survives a new engine, then alerts on new addresses only, keeping two per key', async () => {
    // Prepare
    fixture = await startPollFixture({ store: factory, pack });
    const { clock, store } = fixture;
    const deployedAt = clock.now();
    use(deployedAt - 5 * MINUTE, '198.51.100.1');

    // Act: tick 1, in learning; a new engine 30 minutes later, still in learning
    await tickWith(newEngine());
    clock.advance(30 * MINUTE);
    use(clock.now() - MINUTE, '198.51.100.2');
    await tickWith(newEngine());
    const duringLearning = titles();
    // Past learning: two known addresses and a new one; then the oldest, evicted by the third
    clock.advance(HOUR);
    use(clock.now() - 3 * MINUTE, '198.51.100.2');
    use(clock.now() - 2 * MINUTE, '203.0.113.9');
    use(clock.now() - 2 * MINUTE, '203.0.113.9', 'otherkey');
    await tickWith(newEngine());
    clock.advance(MINUTE);
    use(clock.now() - MINUTE, '198.51.100.1');
    await tickWith(newEngine());

    // Assess
    expect(duringLearning).toEqual([]);
    expect(
      (await store.readFirstSeen([learningKey('key-new-address')])).get(learningKey('key-new-address')),
    ).toMatchObject({ startedAt: deployedAt });
    expect(titles()).toEqual([
      'key ciruner1 from 203.0.113.9',
      'key otherkey from 203.0.113.9',
      'key ciruner1 from 198.51.100.1',
    ]);
  });

  it('forgets an address not seen within the period', async () => {
    // Prepare
    fixture = await startPollFixture({ store: factory, pack });
    const { clock } = fixture;
    const engine = newEngine();
    use(clock.now() - 5 * MINUTE, '198.51.100.1');
    await tickWith(engine);
    clock.advance(2 * HOUR);
    use(clock.now() - MINUTE, '198.51.100.1');
    await tickWith(engine);
    const withinTheDay = titles();

    // Act
    clock.advance(DAY + HOUR);
    use(clock.now() - MINUTE, '198.51.100.1');
    await tickWith(engine);

    // Assess
    expect(withinTheDay).toEqual([]);
    expect(titles()).toEqual(['key ciruner1 from 198.51.100.1']);
  });
});
