import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import type { Logger } from '../../shared/logger.js';
import { describeAlert } from '../../shared/notify/alert-facts.js';
import { formatHeadline } from '../../shared/notify/headline.js';
import { checkInventory } from '../../shared/poll/inventory-check.js';
import type { SeedData } from '../../simulator/index.js';
import { outcomeOf } from './support/assertions.js';
import {
  fileStoreFactory,
  HOUR,
  ids,
  type PollFixture,
  pollerKey,
  pollSeed,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const ORG = `org:${ids.org}`;
const PROJECT = `project:${ids.project}`;
const SECOND_PROJECT = `project:${ids.secondProject}`;
const deployer = {
  clientId: 'mdb_sa_id_6650a1b2c3d4e5f605000001',
  clientSecret: 'fake-client-secret-deployer',
  name: 'deployer',
  roles: [{ orgId: ids.org, roleName: 'ORG_MEMBER' }],
  accessList: [{ cidrBlock: '198.51.100.0/28' }],
};
const ownerBot = {
  clientId: 'mdb_sa_id_6650a1b2c3d4e5f605000002',
  clientSecret: 'fake-client-secret-owner-bot',
  name: 'owner-bot',
  roles: [{ orgId: ids.org, roleName: 'ORG_OWNER' }],
  accessList: [],
};

/** The tick tests' seed with two service accounts and two project access lists, one open to the internet. */
function seed(): SeedData {
  const base = pollSeed();
  return {
    ...base,
    projects: (base.projects ?? []).map((project) => ({
      ...project,
      accessList:
        project.id === ids.project
          ? [{ cidrBlock: '0.0.0.0/0', comment: 'migration' }]
          : project.id === ids.secondProject
            ? [{ cidrBlock: '10.0.0.0/8' }]
            : [],
    })),
    serviceAccounts: [deployer, ownerBot],
  };
}

const config = { sources: { orgIds: [ids.org], projectIds: [ids.project, ids.secondProject] } };

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Rule and headline (title, where, who) of the alerts delivered since `from`. */
function alerts(from = 0): string[][] {
  return (fixture?.notifier.delivered ?? [])
    .slice(from)
    .map((alert) => [alert.ruleId, formatHeadline(alert, describeAlert(alert))])
    .sort();
}

describe.each(storeKinds())(
  'inventory of service accounts and project access lists with the $name',
  (kind) => {
    it('raises each baseline finding once on the first snapshot, marked pre-existing, and never again', async () => {
      // Prepare
      fixture = await startPollFixture({ store: kind.factory, seed: seed(), config });

      // Act
      const first = await fixture.tick();
      fixture.clock.advance(HOUR);
      const second = await fixture.tick();

      // Assess
      expect(outcomeOf(first, ORG).inventory).toEqual({
        status: 'baseline',
        apiKeys: 2,
        serviceAccounts: 2,
        changes: 0,
        findings: 1,
        resolved: 0,
      });
      expect(outcomeOf(first, PROJECT).inventory).toEqual({
        status: 'baseline',
        apiKeys: 0,
        projectEntries: 1,
        changes: 0,
        findings: 1,
        resolved: 0,
      });
      expect(alerts()).toEqual([
        [
          'inventory-credential-without-access-list-owner',
          'Owner owner-bot has no access list (Acme, pre-existing, first inventory)',
        ],
        [
          'inventory-project-open-to-internet',
          'Project IP access list open to 0.0.0.0/0 (payments, pre-existing, first inventory)',
        ],
      ]);
      expect(fixture.notifier.delivered.map((alert) => alert.events[0]?.preExisting)).toEqual([true, true]);
      expect(outcomeOf(second, ORG).inventory).toMatchObject({ status: 'compared', changes: 0, findings: 0 });
      expect(outcomeOf(second, SECOND_PROJECT).inventory).toMatchObject({ status: 'compared', changes: 0 });
      expect(fixture.notifier.delivered).toHaveLength(2);
      expect(JSON.stringify(await fixture.store.readInventory({ orgId: ids.org }))).not.toContain(
        'fake-client-secret',
      );
    });

    it('alerts on service accounts added, removed, given an owner role, and on a widened project entry, and resolves the owner removed', async () => {
      // Prepare
      fixture = await startPollFixture({ store: kind.factory, seed: seed(), config });
      await fixture.tick();
      const baseline = fixture.notifier.delivered.length;
      fixture.sim.putServiceAccount({
        ...deployer,
        roles: [...deployer.roles, { orgId: ids.org, roleName: 'ORG_OWNER' }],
      });
      fixture.sim.removeServiceAccount(ownerBot.clientId);
      fixture.sim.putServiceAccount({
        clientId: 'mdb_sa_id_6650a1b2c3d4e5f605000003',
        clientSecret: 'fake-client-secret-ci',
        name: 'ci',
        roles: [{ orgId: ids.org, roleName: 'ORG_READ_ONLY' }],
        accessList: [{ cidrBlock: '0.0.0.0/0' }],
      });
      fixture.sim.setProjectAccessList(ids.secondProject, [
        { cidrBlock: '10.0.0.0/8' },
        { cidrBlock: '0.0.0.0/0' },
      ]);
      fixture.clock.advance(HOUR);

      // Act
      const changed = await fixture.tick();
      fixture.clock.advance(HOUR);
      const quiet = await fixture.tick();

      // Assess
      expect(outcomeOf(changed, ORG).inventory).toMatchObject({
        status: 'compared',
        serviceAccounts: 2,
        changes: 5,
        resolved: 1,
      });
      expect(alerts(baseline)).toEqual([
        [
          'inventory-finding-resolved',
          'Resolved: owner service account owner-bot without an access list (Acme, found by the inventory)',
        ],
        [
          'inventory-project-open-to-internet',
          'Project IP access list open to 0.0.0.0/0 (analytics, found by the inventory)',
        ],
        [
          'inventory-service-account-access-list-open-to-internet',
          'Service account ci usable from 0.0.0.0/0 (Acme, found by the inventory)',
        ],
        ['inventory-service-account-added', 'New service account ci (Acme, found by the inventory)'],
        [
          'inventory-service-account-owner-role-granted',
          'Service account deployer given ORG_OWNER (Acme, found by the inventory)',
        ],
        [
          'inventory-service-account-removed',
          'Service account owner-bot no longer in the organization (Acme, found by the inventory)',
        ],
      ]);
      expect(outcomeOf(quiet, ORG).inventory).toMatchObject({ status: 'compared', changes: 0 });
      expect(fixture.notifier.delivered).toHaveLength(baseline + 6);
    });

    it('stores the first snapshot silently when baseline findings are turned off', async () => {
      // Prepare
      fixture = await startPollFixture({
        store: kind.factory,
        seed: seed(),
        config: { ...config, inventory: { baselineFindings: false } },
      });

      // Act
      const first = await fixture.tick();

      // Assess
      expect(outcomeOf(first, ORG).inventory).toMatchObject({ status: 'baseline', findings: 0 });
      expect(outcomeOf(first, PROJECT).inventory).toMatchObject({ status: 'baseline', findings: 0 });
      expect(fixture.notifier.delivered).toEqual([]);
    });
  },
);

describe('inventory on a deployment without service accounts', () => {
  it('skips them with one log line and no error, and snapshots the API keys', async () => {
    // Prepare
    fixture = await startPollFixture({ store: fileStoreFactory(), seed: seed(), config });
    const opsManager = new AtlasClient({
      baseUrl: fixture.sim.baseUrl,
      flavor: 'ops-manager',
      credentials: { kind: 'digest', ...pollerKey },
    });
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (message) => lines.push(message),
      warn: (message) => lines.push(message),
      error: (message) => lines.push(message),
    };

    // Act
    const check = await checkInventory({
      atlas: opsManager,
      store: fixture.store,
      engine: fixture.engine,
      notifier: fixture.notifier,
      logger,
      scope: { orgId: ids.org },
      now: fixture.clock.now(),
      concurrency: 2,
      claimMs: 60_000,
      signal: new AbortController().signal,
    });
    await opsManager.close();

    // Assess
    expect(check).toMatchObject({
      status: 'baseline',
      apiKeys: 2,
      skipped: [`/orgs/${ids.org}/serviceAccounts`],
    });
    expect(check.serviceAccounts).toBeUndefined();
    expect(lines.filter((line) => line.includes('not available'))).toHaveLength(1);
    expect((await fixture.store.readInventory({ orgId: ids.org }))?.serviceAccounts).toBeUndefined();
  });
});
