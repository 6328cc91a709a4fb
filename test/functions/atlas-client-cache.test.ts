import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClientCache } from '../../functions/poller/atlas-client-cache.js';
import type { AtlasCredentials } from '../../shared/atlas/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';

describe('AtlasClientCache', () => {
  let sim: AtlasSimulator;
  let credentials: AtlasCredentials;

  beforeAll(async () => {
    sim = await startSimulator();
    credentials = { kind: 'digest', ...sim.credentials };
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('hands out the same client while the credentials keep their values', async () => {
    const cache = new AtlasClientCache({ client: { baseUrl: sim.baseUrl } });

    const first = cache.clientFor(credentials);
    const second = cache.clientFor({ ...credentials });

    expect(second).toBe(first);
    await cache.close();
  });

  it('builds a new client for new credentials and closes the old one', async () => {
    const cache = new AtlasClientCache({ client: { baseUrl: sim.baseUrl } });
    const { clientId, clientSecret } = sim.serviceAccount ?? { clientId: '', clientSecret: '' };
    const old = cache.clientFor({ kind: 'service-account', clientId, clientSecret });
    const oldProjects = await old.listOrgProjects(sim.orgIds[0] ?? '').toArray();

    const current = cache.clientFor(credentials);
    const projects = await current.listOrgProjects(sim.orgIds[0] ?? '').toArray();
    const oldRead = old.listOrgProjects(sim.orgIds[0] ?? '').toArray();

    expect(current).not.toBe(old);
    expect(projects).toEqual(oldProjects);
    await expect(oldRead).rejects.toThrow();
    await cache.close();
  });
});
