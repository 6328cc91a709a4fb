import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import type { Alert } from '../../shared/notify/alert.js';
import { alertFinding } from '../../shared/notify/alert-finding.js';
import { checkInventory } from '../../shared/poll/inventory-check.js';
import type { SeedData } from '../../simulator/index.js';
import { outcomeOf } from './support/assertions.js';
import {
  HOUR,
  ids,
  MINUTE,
  type PollFixture,
  pollerKey,
  pollSeed,
  startPollFixture,
} from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const ORG = `org:${ids.org}`;
const PROJECT = `project:${ids.project}`;
const OPEN_PROJECT_ID = `project/${ids.project}/access-list/0.0.0.0%2F0`;
const ROGUE_KEY_ID = '6650a1b2c3d4e5f603000009';
const ownerBot = {
  clientId: 'mdb_sa_id_6650a1b2c3d4e5f605000002',
  clientSecret: 'fake-client-secret-owner-bot',
  name: 'owner-bot',
  roles: [{ orgId: ids.org, roleName: 'ORG_OWNER' }],
  accessList: [],
};

/** The tick tests' seed, `payments` open to the whole internet. */
function projectSeed(): SeedData {
  const base = pollSeed();
  return {
    ...base,
    projects: (base.projects ?? []).map((project) => ({
      ...project,
      accessList: project.id === ids.project ? [{ cidrBlock: '0.0.0.0/0', comment: 'migration' }] : [],
    })),
  };
}

/** The tick tests' seed with a key usable from the whole internet, over IPv4 and IPv6. */
const seedWithRogueKey = (): SeedData =>
  pollSeed([
    {
      id: ROGUE_KEY_ID,
      desc: 'rogue automation',
      publicKey: 'roguekey',
      privateKey: 'fake-private-key-rogue',
      roles: [{ orgId: ids.org, roleName: 'ORG_READ_ONLY' }],
      accessList: [{ cidrBlock: '0.0.0.0/0' }, { cidrBlock: '::/0' }],
    },
  ]);

const isResolved = (alert: Alert): boolean => alertFinding(alert)?.state === 'resolved';

let fixture: PollFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The posture findings of the alerts delivered since `from`, in order: `open <id>` or `resolved <id>`. */
function findings(from = 0): string[] {
  return (fixture?.notifier.delivered ?? [])
    .slice(from)
    .map(alertFinding)
    .filter((finding) => finding !== undefined)
    .map((finding) => `${finding.state} ${finding.id}`);
}

describe.each(storeKinds())('posture findings over time with the $name', (kind) => {
  it('resolves a baseline finding once when it is gone, and reopens it once under the same id when it returns', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: kind.factory,
      seed: projectSeed(),
      config: { sources: { projectIds: [ids.project] } },
    });
    const baseline = await fixture.tick();
    const opened = fixture.notifier.delivered.length;
    fixture.sim.setProjectAccessList(ids.project, [{ cidrBlock: '10.0.0.0/8' }]);
    fixture.clock.advance(HOUR);

    // Act
    const fixed = await fixture.tick();
    const afterFix = fixture.notifier.delivered.length;
    fixture.clock.advance(HOUR);
    const unchanged = await fixture.tick();
    const afterUnchanged = fixture.notifier.delivered.length;
    const firstFound = (await fixture.store.readInventory({ groupId: ids.project }))?.openFindings;
    fixture.sim.setProjectAccessList(ids.project, [{ cidrBlock: '10.0.0.0/8' }, { cidrBlock: '0.0.0.0/0' }]);
    fixture.clock.advance(HOUR);
    const returnedAt = fixture.clock.now();
    const returned = await fixture.tick();
    const afterReturn = fixture.notifier.delivered.length;
    fixture.clock.advance(HOUR);
    await fixture.tick();
    const reopened = (await fixture.store.readInventory({ groupId: ids.project }))?.openFindings;

    // Assess
    expect(outcomeOf(baseline, PROJECT).inventory).toMatchObject({
      status: 'baseline',
      findings: 1,
      resolved: 0,
    });
    expect(findings(0)).toEqual([
      `open ${OPEN_PROJECT_ID}`,
      `resolved ${OPEN_PROJECT_ID}`,
      `open ${OPEN_PROJECT_ID}`,
    ]);
    expect(outcomeOf(fixed, PROJECT).inventory).toMatchObject({
      status: 'compared',
      changes: 2,
      resolved: 1,
    });
    const resolved = fixture.notifier.delivered.filter(isResolved);
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({
      ruleId: 'inventory-finding-resolved',
      severity: 'low',
      title: 'Resolved: project IP access list open to 0.0.0.0/0',
    });
    expect(resolved[0]?.summary).toMatch(
      /^Fixed: the entry was removed from the project's IP access list\. It had been open since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC or earlier: the first inventory found it already there\.$/,
    );
    expect(resolved[0]?.events[0]).toMatchObject({
      eventTypeName: 'INVENTORY_FINDING_RESOLVED',
      resolvedFindingType: 'INVENTORY_PROJECT_ACCESS_LIST_ENTRY_ADDED',
      groupId: ids.project,
      accessListEntry: '0.0.0.0/0',
      comment: 'migration',
    });
    expect(outcomeOf(unchanged, PROJECT).inventory).toMatchObject({
      status: 'compared',
      changes: 0,
      resolved: 0,
    });
    expect(afterUnchanged).toBe(afterFix);
    expect(outcomeOf(returned, PROJECT).inventory).toMatchObject({
      status: 'compared',
      changes: 1,
      resolved: 0,
    });
    expect(
      fixture.notifier.delivered.slice(afterUnchanged).map((alert) => [alert.ruleId, alert.severity]),
    ).toEqual([['inventory-project-open-to-internet', 'critical']]);
    expect(fixture.notifier.delivered).toHaveLength(afterReturn);
    expect(opened).toBe(1);
    expect(firstFound).toEqual({});
    expect(reopened).toEqual({ [OPEN_PROJECT_ID]: { foundAt: returnedAt } });
  });

  it.each([
    { failing: 'the resolved alert', only: isResolved, published: { low: 1 } },
    { failing: 'the removal beside it', only: (alert: Alert) => !isResolved(alert), published: { info: 1 } },
  ])(
    'delivers the resolved alert exactly once when $failing failed once, comparing with the same old snapshot',
    async ({ only, published }) => {
      // Prepare
      fixture = await startPollFixture({
        store: kind.factory,
        seed: projectSeed(),
        config: { sources: { projectIds: [ids.project] } },
      });
      await fixture.tick();
      fixture.sim.setProjectAccessList(ids.project, []);
      fixture.clock.advance(HOUR);
      fixture.notifier.failNext({ count: 1, retryable: true, only });

      // Act
      const failed = await fixture.tick();
      fixture.clock.advance(MINUTE);
      const retried = await fixture.tick();
      fixture.clock.advance(HOUR);
      const after = await fixture.tick();

      // Assess
      expect(outcomeOf(failed, PROJECT)).toMatchObject({
        inventory: { status: 'failed', errorCode: 'ALERT_DELIVERY_FAILED' },
      });
      expect(outcomeOf(retried, PROJECT)).toMatchObject({
        inventory: { status: 'compared', changes: 1, resolved: 1 },
        alerts: { alreadySent: 1, published },
      });
      expect(outcomeOf(after, PROJECT).inventory).toMatchObject({
        status: 'compared',
        changes: 0,
        resolved: 0,
      });
      expect(findings()).toEqual([`open ${OPEN_PROJECT_ID}`, `resolved ${OPEN_PROJECT_ID}`]);
      const fingerprints = fixture.notifier.fingerprints();
      expect(fingerprints).toHaveLength(3);
      expect(new Set(fingerprints).size).toBe(3);
    },
  );

  it('resolves each entry finding of a key deleted, and nothing more', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: kind.factory,
      seed: seedWithRogueKey(),
      config: { sources: { orgIds: [ids.org] } },
    });
    await fixture.tick();
    const opened = findings();
    await fixture.restartSimulator(pollSeed());
    fixture.clock.advance(HOUR);

    // Act
    const deleted = await fixture.tick();

    // Assess
    const keyFindings = [
      `org/${ids.org}/api-key/${ROGUE_KEY_ID}/access-list/0.0.0.0%2F0`,
      `org/${ids.org}/api-key/${ROGUE_KEY_ID}/access-list/::%2F0`,
    ];
    expect(opened).toEqual(keyFindings.map((id) => `open ${id}`));
    expect(outcomeOf(deleted, ORG).inventory).toMatchObject({ status: 'compared', changes: 1, resolved: 2 });
    expect(findings(opened.length)).toEqual(keyFindings.map((id) => `resolved ${id}`));
    expect(
      fixture.notifier.delivered
        .filter(isResolved)
        .map((alert) => [alert.title, alert.events[0]?.resolution]),
    ).toEqual([
      ['Resolved: API key roguekey open to 0.0.0.0/0', 'the API key was deleted'],
      ['Resolved: API key roguekey open to ::/0', 'the API key was deleted'],
    ]);
  });

  it('resolves an owner without an access list when its owner role goes, and reopens it when the role comes back', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: kind.factory,
      seed: { ...pollSeed(), serviceAccounts: [ownerBot] },
      config: { sources: { orgIds: [ids.org] } },
    });
    await fixture.tick();
    fixture.sim.putServiceAccount({ ...ownerBot, roles: [{ orgId: ids.org, roleName: 'ORG_MEMBER' }] });
    fixture.clock.advance(HOUR);
    const demoted = await fixture.tick();
    const afterDemotion = fixture.notifier.delivered.length;
    fixture.sim.putServiceAccount(ownerBot);
    fixture.clock.advance(HOUR);

    // Act
    const promoted = await fixture.tick();

    // Assess
    const id = `org/${ids.org}/service-account/${ownerBot.clientId}/owner-without-access-list`;
    expect(findings()).toEqual([`open ${id}`, `resolved ${id}`, `open ${id}`]);
    expect(outcomeOf(demoted, ORG).inventory).toMatchObject({ changes: 1, resolved: 1 });
    expect(fixture.notifier.delivered.find(isResolved)?.summary).toMatch(
      /^Fixed: the owner role was removed\. /,
    );
    expect(outcomeOf(promoted, ORG).inventory).toMatchObject({ changes: 3, resolved: 0 });
    expect(
      fixture.notifier.delivered.slice(afterDemotion).map((alert) => [alert.ruleId, alertFinding(alert)?.id]),
    ).toEqual([
      ['inventory-service-account-owner-role-granted', undefined],
      ['inventory-credential-without-access-list-owner', id],
    ]);
  });

  it('resolves nothing in service accounts the stored snapshot did not hold, and raises their baseline findings', async () => {
    // Prepare
    fixture = await startPollFixture({ store: kind.factory, config: { sources: { orgIds: [ids.org] } } });
    await fixture.tick();
    const stored = await fixture.store.readInventory({ orgId: ids.org });
    if (stored === undefined) throw new Error('the first tick stored no snapshot');
    // As a snapshot stored before service accounts were read.
    const { serviceAccounts: _notRead, ...older } = stored;
    await fixture.store.writeInventory({ snapshot: older });
    fixture.sim.putServiceAccount(ownerBot);
    fixture.clock.advance(HOUR);

    // Act
    const check = await checkOrg(fixture, fixture.atlas);

    // Assess
    expect(stored.serviceAccounts).toEqual([]);
    expect(check).toMatchObject({
      status: 'compared',
      serviceAccounts: 1,
      changes: 0,
      findings: 1,
      resolved: 0,
    });
    expect(findings()).toEqual([
      `open org/${ids.org}/service-account/${ownerBot.clientId}/owner-without-access-list`,
    ]);
  });

  it('resolves nothing in service accounts the deployment no longer answers for', async () => {
    // Prepare
    fixture = await startPollFixture({
      store: kind.factory,
      seed: { ...pollSeed(), serviceAccounts: [ownerBot] },
      config: { sources: { orgIds: [ids.org] } },
    });
    await fixture.tick();
    const opened = fixture.notifier.delivered.length;
    const opsManager = new AtlasClient({
      baseUrl: fixture.sim.baseUrl,
      flavor: 'ops-manager',
      credentials: { kind: 'digest', ...pollerKey },
    });
    fixture.clock.advance(HOUR);

    // Act
    const check = await checkOrg(fixture, opsManager).finally(() => opsManager.close());

    // Assess
    expect(opened).toBe(1);
    expect(check).toMatchObject({
      status: 'compared',
      resolved: 0,
      skipped: [`/orgs/${ids.org}/serviceAccounts`],
    });
    expect(fixture.notifier.delivered).toHaveLength(opened);
  });
});

/** One inventory check of the test organization through `atlas`, on the fixture's store and rules. */
function checkOrg(poll: PollFixture, atlas: AtlasClient) {
  return checkInventory({
    atlas,
    store: poll.store,
    engine: poll.engine,
    notifier: poll.notifier,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    scope: { orgId: ids.org },
    now: poll.clock.now(),
    concurrency: 2,
    claimMs: 60_000,
    signal: new AbortController().signal,
  });
}
