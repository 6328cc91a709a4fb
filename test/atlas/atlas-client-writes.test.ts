import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtlasClient, AtlasServerError } from '../../shared/atlas/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';

/** In the default seed (throwaway values): an Acme Corp project and its Organization Owner's key. */
const PROJECT = '64b5ca17f1a3d40012ab3d11';
const OWNER_KEY = { publicKey: 'qkzvbgyt', privateKey: 'fake-private-key-ci-automation' };
const CONFIG = {
  eventTypeName: 'JOINED_GROUP',
  enabled: true,
  notifications: [{ typeName: 'WEBHOOK', webhookUrl: 'https://hooks.example.com/x' }],
};

describe('AtlasClient.writeJson', () => {
  let sim: AtlasSimulator;
  let client: AtlasClient;

  beforeAll(async () => {
    sim = await startSimulator();
    client = new AtlasClient({
      baseUrl: sim.baseUrl,
      credentials: { kind: 'digest', ...OWNER_KEY },
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
  });

  afterAll(async () => {
    await client.close();
    await sim.stop();
  });

  it('posts a JSON body and returns the created resource', async () => {
    // Act
    const created = await client.writeJson('POST', `/groups/${PROJECT}/alertConfigs`, CONFIG);

    // Assess
    expect(created).toMatchObject({ groupId: PROJECT, eventTypeName: 'JOINED_GROUP', enabled: true });
    expect(typeof created.id).toBe('string');
  });

  it('never sends a write twice after a 500, which may follow a write that took effect', async () => {
    // Prepare
    sim.setFaults({
      routes: ['POST /groups/{groupId}/alertConfigs'],
      schedule: [{ kind: 'internalServerError' }],
    });
    const before = client.stats.requests;
    try {
      // Act
      const write = client.writeJson('POST', `/groups/${PROJECT}/alertConfigs`, CONFIG);

      // Assess
      await expect(write).rejects.toBeInstanceOf(AtlasServerError);
      expect(client.stats.requests - before).toBe(1);
    } finally {
      sim.setFaults();
    }
  });

  it('sends a write again after a 429, which Atlas did not carry out', async () => {
    // Prepare
    sim.setFaults({
      routes: ['POST /groups/{groupId}/alertConfigs'],
      schedule: [{ kind: 'rateLimited' }],
      retryAfterSeconds: 0,
    });
    try {
      // Act
      const created = await client.writeJson('POST', `/groups/${PROJECT}/alertConfigs`, CONFIG);

      // Assess
      expect(created.eventTypeName).toBe('JOINED_GROUP');
      expect(client.stats.rateLimited).toBeGreaterThan(0);
    } finally {
      sim.setFaults();
    }
  });
});
