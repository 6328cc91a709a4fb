import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../shared/notify/alert.js';
import { runTick } from '../../shared/poll/index.js';
import { createRuleEngine, learningEndingAt } from '../../shared/rules/index.js';
import type { SeedData } from '../../simulator/index.js';
import { DEFAULT_SEED_PATH } from '../../simulator/seed-loader.js';
import { HOUR, MINUTE, type PollFixture, pollerKey, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

/**
 * The moment the simulator's default seed counts its access history back from: a week of usual
 * logins, then the hour with the brute force on payments-main and the spraying on analytics-main.
 */
const SEED_NOW = Date.UTC(2026, 2, 2, 9, 25, 30);
const TICK = 5 * MINUTE;
const ATTACKER = '198.51.100.203';
const SPRAYER = '203.0.113.250';

interface SeedAccessLog {
  secondsAgo?: number;
  timestamp?: string;
}

/**
 * The default seed, its access-history lines at fixed times around {@link SEED_NOW} (so that they
 * appear as the test's clock reaches them), and the poller's key an owner of both organizations.
 */
function defaultSeedAtFixedTimes(): { seed: SeedData; orgIds: string[] } {
  const seed = JSON.parse(readFileSync(DEFAULT_SEED_PATH, 'utf8')) as SeedData & {
    orgs: Array<{ id: string }>;
    projects: Array<{ clusters?: Array<{ accessLogs?: SeedAccessLog[] }> }>;
    apiKeys: NonNullable<SeedData['apiKeys']>;
  };
  for (const project of seed.projects) {
    for (const cluster of project.clusters ?? []) {
      cluster.accessLogs = (cluster.accessLogs ?? []).map(({ secondsAgo, ...line }) => ({
        ...line,
        timestamp: line.timestamp ?? new Date(SEED_NOW - (secondsAgo ?? 0) * 1_000).toISOString(),
      }));
    }
  }
  const orgIds = seed.orgs.map((org) => org.id);
  seed.apiKeys.push({
    id: '64b5cb00f1a3d40012ab3e99',
    desc: 'audit poller reading logins',
    ...pollerKey,
    roles: orgIds.map((orgId) => ({ orgId, roleName: 'ORG_OWNER' })),
    accessList: [{ cidrBlock: '127.0.0.1/32' }],
  });
  return { seed, orgIds };
}

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(storeKinds())(
  'the default pack over the seeded access history, tick by tick, $name',
  ({ factory }) => {
    it('raises each database-access rule once, on its seeded pattern, and nothing on the normal traffic', async () => {
      // Prepare: deployed a week before the seed's last hour, the first-seen rules past learning when it
      // begins; the first tick reads the week, then one tick every five minutes through the hour.
      const { seed, orgIds } = defaultSeedAtFixedTimes();
      fixture = await startPollFixture({
        store: factory,
        seed,
        config: {
          sources: { orgIds, allProjectsOfOrgs: true, accessHistory: true },
          timing: { initialLookbackSeconds: 8 * 24 * 3_600 },
        },
      });
      const current = fixture;
      await current.store.writeFirstSeen(learningEndingAt(current.pack, SEED_NOW - HOUR));
      current.clock.advance(SEED_NOW - HOUR - MINUTE - current.clock.now());

      // Each tick with an engine of its own on the store, as a new Lambda container builds it.
      const tick = () =>
        runTick(
          {
            atlas: current.atlas,
            store: current.store,
            engine: createRuleEngine({
              pack: current.pack,
              counters: current.store,
              firstSeen: current.store,
              clock: current.clock,
            }),
            notifier: current.notifier,
            clock: current.clock,
            discoveryCache: current.discoveryCache,
          },
          { config: current.config, owner: 'worker-a' },
        );

      // Act
      const summaries = [await tick()];
      while (current.clock.now() < SEED_NOW + TICK) {
        current.clock.advance(TICK);
        summaries.push(await tick());
      }

      // Assess
      for (const summary of summaries) {
        const clusters = summary.sources.filter((source) => source.kind === 'cluster');
        expect(clusters.map((source) => [source.source, source.status])).toEqual(
          clusters.map((source) => [source.source, 'ok']),
        );
      }
      const clusterNames = summaries[0]?.sources
        .filter((source) => source.kind === 'cluster')
        .map((source) => source.cluster)
        .sort();
      // The shared-tier tools-free keeps no access history: left out.
      expect(clusterNames).toEqual([
        'analytics-main',
        'payments-main',
        'sandbox',
        'staging-main',
        'tools-main',
      ]);
      const logins = current.notifier.delivered.filter(
        (alert: Alert) => alert.events.at(-1)?.source === 'access-history',
      );
      expect(logins.map((alert) => alert.ruleId).sort()).toEqual([
        'db-admin-login-new-network',
        'db-login-after-failures',
        'db-login-unknown-user',
        'db-password-spraying',
        'db-user-new-network',
        'db-user-repeated-failures',
      ]);
      // Each on its pattern: the brute force's address, or the spraying's.
      expect(logins.map((alert) => alert.events.at(-1)?.remoteAddress).sort()).toEqual([
        ATTACKER,
        ATTACKER,
        ATTACKER,
        ATTACKER,
        SPRAYER,
        SPRAYER,
      ]);
    }, 120_000);
  },
);
