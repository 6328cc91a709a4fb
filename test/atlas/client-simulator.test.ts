import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import type { AtlasClientOptions, AtlasFlavor } from '../../shared/atlas/client-options.js';
import { AtlasNotFoundError, AtlasRateLimitError } from '../../shared/atlas/errors.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { ManualClock } from './manual-clock.js';

const ADDED = 19;
const PAGE_SIZE = 5;

let sim: AtlasSimulator;
let orgId: string;
const clients: AtlasClient[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  orgId = sim.orgIds.at(-1) ?? '';
  sim.addEvents(
    { orgId },
    Array.from({ length: ADDED }, (_, index) => ({
      eventTypeName: 'API_KEY_CREATED',
      created: new Date(sim.startedAt - (index + 1) * 1000).toISOString(),
      targetPublicKey: `key${index}`,
    })),
  );
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sim.stop();
});

beforeEach(() => {
  sim.setFaults();
  sim.resetCounters();
});

function client(options: Partial<AtlasClientOptions> = {}): AtlasClient {
  const created = new AtlasClient({
    baseUrl: sim.baseUrl,
    credentials: { kind: 'digest', ...sim.credentials },
    clock: new ManualClock(),
    random: () => 0.5,
    ...options,
  });
  clients.push(created);
  return created;
}

describe('AtlasClient against the simulator', () => {
  it.each(['atlas-v2', 'atlas-v1', 'ops-manager'] as const)(
    'fetches N events over P pages with %s for P requests plus one challenge',
    async (flavor: AtlasFlavor) => {
      const atlas = client({ flavor });

      let pages = 0;
      const ids: string[] = [];
      for await (const page of atlas.listOrgEvents(orgId, { itemsPerPage: PAGE_SIZE }).pages()) {
        pages += 1;
        ids.push(...page.items.map((event) => event.id ?? ''));
      }

      expect(ids.length).toBeGreaterThanOrEqual(ADDED);
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages).toBe(Math.ceil(ids.length / PAGE_SIZE));
      expect(sim.counters).toMatchObject({ requests: pages + 1, challenges: 1, authFailures: 0 });
      expect(atlas.stats).toMatchObject({ requests: pages + 1, authRoundTrips: 1, retries: 0 });
    },
  );

  it('spends exactly one extra round trip on an expired nonce', async () => {
    const atlas = client();
    await atlas.listOrgProjects(orgId).toArray();
    sim.expireNonces();
    sim.resetCounters();

    await atlas.listOrgProjects(orgId).toArray();

    expect(sim.counters).toMatchObject({ requests: 2, challenges: 1 });
  });

  it('returns the same events through rate limits, 5xx, resets, truncated bodies and stale nonces', async () => {
    const expected = await client().listOrgEvents(orgId).toArray();
    sim.setFaults({
      schedule: [
        { kind: 'rateLimited' },
        { kind: 'serviceUnavailable' },
        { kind: 'connectionReset' },
        { kind: 'truncatedBody' },
        { kind: 'nonceExpired' },
        { kind: 'badGateway' },
      ],
      retryAfterSeconds: 3,
    });
    const clock = new ManualClock();
    const atlas = client({ clock, retry: { maxAttempts: 10 } });

    const received = await atlas.listOrgEvents(orgId).toArray();

    expect(received).toEqual(expected);
    expect(atlas.stats.retries).toBe(5);
    expect(atlas.stats.rateLimited).toBe(1);
    expect(clock.sleeps[0]).toBe(3000);
  });

  it('stops retrying at the cap with AtlasRateLimitError', async () => {
    sim.setFaults({ schedule: [{ kind: 'rateLimitedNoRetryAfter', count: 10 }] });
    const atlas = client({ retry: { maxAttempts: 3 } });

    await expect(atlas.listOrgEvents(orgId).toArray()).rejects.toBeInstanceOf(AtlasRateLimitError);
    expect(sim.counters.byStatus['429']).toBe(3);
  });

  it('reads with the service account, one token for several calls', async () => {
    const account = sim.serviceAccount;
    if (!account) {
      throw new Error('the default seed has a service account');
    }
    const atlas = client({ credentials: { kind: 'service-account', ...account } });

    await atlas.listOrgEvents(orgId).toArray();
    await atlas.listOrgProjects(orgId).toArray();

    expect(sim.counters.tokensIssued).toBe(1);
    expect(atlas.stats.tokenFetches).toBe(1);
  });

  it('lists API keys with masked private keys, their access lists and the org projects', async () => {
    const atlas = client();
    const firstOrg = sim.orgIds[0] ?? '';

    const keys = await atlas.listApiKeys(firstOrg).toArray();
    const entries = await atlas.listApiKeyAccessList(firstOrg, keys[0]?.id ?? '').toArray();
    const projects = await atlas.listOrgProjects(firstOrg).toArray();

    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key.privateKey ?? '********').toMatch(/^\*{8}.{0,4}$/);
    }
    expect(Array.isArray(entries)).toBe(true);
    expect(projects.map((project) => project.id).every((id) => sim.projectIds.includes(id))).toBe(true);
  });

  it('reads one org event, and answers AtlasNotFoundError for an unknown one', async () => {
    const atlas = client();
    const [first] = await atlas
      .listOrgEvents(orgId, { itemsPerPage: 1 })
      .pages()
      .next()
      .then((page) => page.value?.items ?? []);

    const event = await atlas.getOrgEvent(orgId, first?.id ?? '');

    expect(event.id).toBe(first?.id);
    await expect(atlas.getOrgEvent(orgId, '000000000000000000000000')).rejects.toBeInstanceOf(
      AtlasNotFoundError,
    );
  });
});
