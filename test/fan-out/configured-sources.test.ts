import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import { systemClock } from '../../shared/clock.js';
import { ConfiguredSources, type SourceMessage } from '../../shared/fan-out/index.js';
import { DiscoveryCache, type PollerConfig } from '../../shared/poll/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ids, keys, testSeed } from '../simulator/support/test-seed.js';

const LISTING = 'GET /orgs/{orgId}/groups';
const TICK = '2026-11-24T03:05:00.000Z';

const org = (id: string): SourceMessage => ({ v: 1, kind: 'org', id, orgId: id, tick: TICK });
const project = (id: string, orgId?: string): SourceMessage => ({
  v: 1,
  kind: 'project',
  id,
  ...(orgId === undefined ? {} : { orgId }),
  tick: TICK,
});

describe('ConfiguredSources', () => {
  let sim: AtlasSimulator;
  let owner: AtlasClient;
  let foreign: AtlasClient;
  let cache: DiscoveryCache;

  const wholeOrg: PollerConfig['sources'] = { orgIds: [ids.org], projectIds: [], allProjectsOfOrgs: true };
  const configured = (sources: PollerConfig['sources'], atlas = owner): ConfiguredSources =>
    new ConfiguredSources({
      connections: [{ name: 'default', sources }],
      atlas: () => atlas,
      cache,
      clock: systemClock,
    });
  /** The organization of the test seed through the connection default, the other through `subsidiary`. */
  const estate = (asked: string[] = []): ConfiguredSources =>
    new ConfiguredSources({
      connections: [
        { name: 'default', sources: wholeOrg },
        { name: 'subsidiary', sources: { orgIds: [ids.otherOrg], projectIds: [], allProjectsOfOrgs: true } },
      ],
      atlas: async (name) => {
        asked.push(name);
        return name === 'subsidiary' ? foreign : owner;
      },
      cache,
      clock: systemClock,
    });
  const listings = (): number => sim.counters.byPath[LISTING] ?? 0;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    owner = new AtlasClient({ baseUrl: sim.baseUrl, credentials: { kind: 'digest', ...keys.owner } });
    // Organization Owner of the other organization only: Atlas refuses it the projects of this one.
    foreign = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...keys.foreign },
      retry: { maxAttempts: 1 },
    });
    // The Digest challenge of each client once, so each listing below costs one request.
    await owner.listOrgProjects(ids.org).toArray();
    await foreign.listOrgProjects(ids.otherOrg).toArray();
  });

  afterAll(async () => {
    await owner?.close();
    await foreign?.close();
    await sim?.stop();
  });

  beforeEach(() => {
    cache = new DiscoveryCache();
    sim.resetCounters();
  });

  it('takes the organizations of sources.orgIds and no other', async () => {
    const sources = configured(wholeOrg);

    expect(await sources.standing(org(ids.org))).toEqual({ status: 'configured' });
    expect(await sources.standing(org(ids.otherOrg))).toEqual({
      status: 'not-configured',
      reason: `organization ${ids.otherOrg} is not in sources.orgIds`,
    });
    expect(listings()).toBe(0);
  });

  it('takes the projects of sources.projectIds, and without allProjectsOfOrgs no other', async () => {
    const sources = configured({ orgIds: [ids.org], projectIds: [ids.project], allProjectsOfOrgs: false });

    expect(await sources.standing(project(ids.project))).toEqual({ status: 'configured' });
    expect(await sources.standing(project(ids.otherProject, ids.org))).toEqual({
      status: 'not-configured',
      reason: `project ${ids.otherProject} is not in sources.projectIds`,
    });
    expect(listings()).toBe(0);
  });

  it('takes a project Atlas lists under an organization polled whole, listing it once', async () => {
    const sources = configured(wholeOrg);

    const first = await sources.standing(project(ids.project, ids.org));
    const second = await sources.standing(project(ids.otherProject, ids.org));

    expect([first, second]).toEqual([{ status: 'configured' }, { status: 'configured' }]);
    expect(listings()).toBe(1);
    expect(cache.last(ids.org)?.ids).toEqual([ids.project, ids.otherProject]);
  });

  it('refuses a project that names a polled organization Atlas does not list it under', async () => {
    const sources = configured(wholeOrg);

    const claimed = await sources.standing(project(ids.foreignProject, ids.org));
    const own = await sources.standing(project(ids.foreignProject, ids.otherOrg));
    const unnamed = await sources.standing(project(ids.foreignProject));

    expect(claimed).toEqual({
      status: 'not-configured',
      reason: `project ${ids.foreignProject} is not among the projects Atlas lists for organization ${ids.org}`,
    });
    expect(own).toEqual({
      status: 'not-configured',
      reason: `project ${ids.foreignProject} is not in sources.projectIds, and its organization ${ids.otherOrg} is not in sources.orgIds`,
    });
    expect(unnamed.status).toBe('not-configured');
    expect(listings()).toBe(1);
  });

  it('lists again, once, for a project created since the cached list was taken', async () => {
    cache.remember(ids.org, { ids: [ids.project], listedAt: systemClock.now() });
    const sources = configured(wholeOrg);

    const created = await sources.standing(project(ids.otherProject, ids.org));
    const stranger = await sources.standing(project(ids.foreignProject, ids.org));

    expect(created).toEqual({ status: 'configured' });
    expect(stranger.status).toBe('not-configured');
    expect(listings()).toBe(1);
  });

  it('cannot tell when Atlas refuses the listing and no list says, and says why', async () => {
    const sources = configured(wholeOrg, foreign);

    const standing = await sources.standing(project(ids.project, ids.org));
    const again = await sources.standing(project(ids.otherProject, ids.org));

    expect(standing.status).toBe('unknown');
    expect(standing.status === 'unknown' && standing.reason).toMatch(
      new RegExp(
        `^the projects of organization ${ids.org} could not be listed to check project ${ids.project}: Atlas answered 403`,
      ),
    );
    expect(again.status).toBe('unknown');
    expect(listings()).toBe(1);
  });

  it('takes a project of the last list when Atlas refuses a new one', async () => {
    cache.remember(ids.org, { ids: [ids.project], listedAt: 0 });
    const sources = configured(wholeOrg, foreign);

    expect(await sources.standing(project(ids.project, ids.org))).toEqual({ status: 'configured' });
    expect((await sources.standing(project(ids.otherProject, ids.org))).status).toBe('unknown');
  });

  it('takes a source only under the connection its message names', async () => {
    const sources = estate();

    expect(await sources.standing({ ...org(ids.otherOrg), connection: 'subsidiary' })).toEqual({
      status: 'configured',
    });
    expect(await sources.standing(org(ids.otherOrg))).toEqual({
      status: 'not-configured',
      reason: `organization ${ids.otherOrg} is not in sources.orgIds`,
    });
    expect(await sources.standing({ ...org(ids.org), connection: 'subsidiary' })).toEqual({
      status: 'not-configured',
      reason: `organization ${ids.org} is not in connection subsidiary's sources.orgIds`,
    });
    expect(await sources.standing({ ...org(ids.org), connection: 'archive' })).toEqual({
      status: 'not-configured',
      reason: 'connection archive is not configured',
    });
    expect(listings()).toBe(0);
  });

  it("lists the projects of a connection's organization with that connection's credentials", async () => {
    const asked: string[] = [];
    const sources = estate(asked);

    const theirs = await sources.standing({
      ...project(ids.foreignProject, ids.otherOrg),
      connection: 'subsidiary',
    });
    const ours = await sources.standing(project(ids.project, ids.org));

    expect([theirs, ours]).toEqual([{ status: 'configured' }, { status: 'configured' }]);
    expect(asked).toEqual(['subsidiary', 'default']);
    expect(listings()).toBe(2);
  });
});
