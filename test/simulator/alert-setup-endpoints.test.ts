import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { DigestSession } from './support/digest-client.js';
import { ids, keys, testSeed } from './support/test-seed.js';

const SECRET = 'fake-webhook-secret-for-tests';

describe('simulator alert configurations, integrations and event types', () => {
  let sim: AtlasSimulator;
  let owner: DigestSession;
  let readOnly: DigestSession;
  let v2: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: testSeed() });
    owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
    readOnly = new DigestSession({ username: keys.readOnly.publicKey, password: keys.readOnly.privateKey });
    v2 = `${sim.baseUrl}/api/atlas/v2`;
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('lists event types with alertable as the OpenAPI document marks them', async () => {
    // Act
    const first = await readOnly.json(`${v2}/eventTypes?itemsPerPage=500&includeCount=true`);
    const second = await readOnly.json(`${v2}/eventTypes?itemsPerPage=500&pageNum=2`);

    // Assess
    type EventTypeDetails = { eventType: string; alertable: boolean; description: string };
    const results = [...(first.results as EventTypeDetails[]), ...(second.results as EventTypeDetails[])];
    expect(results).toHaveLength(first.totalCount as number);
    expect(results.find((type) => type.eventType === 'NETWORK_PERMISSION_ENTRY_ADDED')).toEqual({
      eventType: 'NETWORK_PERMISSION_ENTRY_ADDED',
      alertable: true,
      description: 'Network permission entry added',
    });
    expect(results.find((type) => type.eventType === 'DATA_EXPLORER')?.alertable).toBe(false);
  });

  it('creates a Webhook integration with Project Owner and never serves its secret back', async () => {
    // Act
    const created = await owner.request('POST', `${v2}/groups/${ids.project}/integrations/WEBHOOK`, {
      type: 'WEBHOOK',
      url: 'https://hooks.example.com/atlas/path',
      secret: SECRET,
    });
    const again = await owner.request('POST', `${v2}/groups/${ids.project}/integrations/WEBHOOK`, {
      type: 'WEBHOOK',
      url: 'https://hooks.example.com/other',
    });
    const read = await readOnly.get(`${v2}/groups/${ids.project}/integrations/WEBHOOK`);

    // Assess
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text).results).toEqual([
      expect.objectContaining({ type: 'WEBHOOK', url: 'https://hooks.example.com/****', secret: '******' }),
    ]);
    expect(again.status).toBe(409);
    expect(read.status).toBe(200);
    expect(`${created.text}${read.text}`).not.toContain(SECRET);
  });

  it('refuses writes with 403 to a read-only key, naming the role', async () => {
    // Act
    const integration = await readOnly.request(
      'PUT',
      `${v2}/groups/${ids.otherProject}/integrations/WEBHOOK`,
      {
        type: 'WEBHOOK',
        url: 'https://hooks.example.com/x',
      },
    );
    const config = await readOnly.request('POST', `${v2}/groups/${ids.project}/alertConfigs`, {
      eventTypeName: 'JOINED_GROUP',
      enabled: true,
      notifications: [{ typeName: 'WEBHOOK' }],
    });

    // Assess
    expect(integration.status).toBe(403);
    expect(JSON.parse(integration.text).detail).toContain('Project Owner');
    expect(config.status).toBe(403);
    expect(JSON.parse(config.text).errorCode).toBe('USER_UNAUTHORIZED');
  });

  it('creates, lists, updates and deletes an alert configuration with a Webhook notification', async () => {
    // Act
    const created = await owner.request('POST', `${v2}/groups/${ids.project}/alertConfigs`, {
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      enabled: true,
      notifications: [{ typeName: 'WEBHOOK', delayMin: 0 }],
    });
    const id = String(JSON.parse(created.text).id);
    const listed = await owner.json(`${v2}/groups/${ids.project}/alertConfigs`);
    const updated = await owner.request('PUT', `${v2}/groups/${ids.project}/alertConfigs/${id}`, {
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      enabled: false,
      notifications: [
        { typeName: 'WEBHOOK', webhookUrl: 'https://other.example.com/x', webhookSecret: SECRET },
      ],
    });
    const deleted = await owner.request('DELETE', `${v2}/groups/${ids.project}/alertConfigs/${id}`);
    const gone = await owner.get(`${v2}/groups/${ids.project}/alertConfigs/${id}`);

    // Assess
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text)).toMatchObject({
      groupId: ids.project,
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      enabled: true,
      notifications: [
        { typeName: 'WEBHOOK', delayMin: 0, notifierId: expect.stringMatching(/^[0-9a-f]{24}$/) },
      ],
    });
    expect((listed.results as { id: string }[]).map((config) => config.id)).toContain(id);
    expect(updated.status).toBe(200);
    expect(JSON.parse(updated.text)).toMatchObject({
      enabled: false,
      notifications: [{ webhookUrl: 'https://other.example.com/****', webhookSecret: '******' }],
    });
    expect(updated.text).not.toContain(SECRET);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(gone.status).toBe(404);
  });

  it('answers 400 for an event type Atlas cannot alert on, a body that is not JSON and a Webhook without a URL', async () => {
    // Act
    const notAlertable = await owner.request('POST', `${v2}/groups/${ids.project}/alertConfigs`, {
      eventTypeName: 'API_KEY_CREATED',
      notifications: [{ typeName: 'WEBHOOK' }],
    });
    const notJson = await owner.request('POST', `${v2}/groups/${ids.project}/alertConfigs`, [1, 2]);
    const noUrl = await owner.request('POST', `${v2}/groups/${ids.otherProject}/alertConfigs`, {
      eventTypeName: 'JOINED_GROUP',
      notifications: [{ typeName: 'WEBHOOK' }],
    });
    const badType = await owner.get(`${v2}/groups/${ids.project}/integrations/CARRIER_PIGEON`);

    // Assess
    expect(JSON.parse(notAlertable.text)).toMatchObject({
      error: 400,
      errorCode: 'INVALID_EVENT_TYPE_FOR_ALERT',
    });
    expect(JSON.parse(notJson.text)).toMatchObject({ error: 400, errorCode: 'MALFORMED_JSON' });
    expect(JSON.parse(noUrl.text)).toMatchObject({ error: 400, errorCode: 'INVALID_ATTRIBUTE' });
    expect(badType.status).toBe(400);
  });

  it('takes no writes on other routes and no alert setup on the legacy API', async () => {
    // Act
    const post = await owner.request('POST', `${v2}/groups/${ids.project}/events`, {});
    const legacy = await owner.get(`${sim.baseUrl}/api/atlas/v1.0/groups/${ids.project}/integrations`, {
      accept: 'application/json',
    });

    // Assess
    expect(post.status).toBe(405);
    expect(legacy.status).toBe(404);
  });
});
