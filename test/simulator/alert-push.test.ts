import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../shared/push/index.js';
import { type AtlasSimulator, startSimulator } from '../../simulator/index.js';
import { DigestSession } from './support/digest-client.js';
import { ids, keys, testSeed } from './support/test-seed.js';

const SECRET = 'fake-webhook-secret-integration';
const OWN_SECRET = 'fake-webhook-secret-notification';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A receiver on 127.0.0.1 that records every request; `/fail` answers 500, anything else 200. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.statusCode = request.url === '/fail' ? 500 : 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, received };
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

describe('the simulator posts alerts by itself', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const sims: AtlasSimulator[] = [];

  const start = async (pushAlerts?: boolean | { delayMs?: number }): Promise<AtlasSimulator> => {
    const sim = await startSimulator({
      seed: testSeed(),
      ...(pushAlerts === undefined ? {} : { pushAlerts }),
    });
    sims.push(sim);
    return sim;
  };

  const configure = async (
    sim: AtlasSimulator,
    groupId: string,
    path: string,
    body: unknown,
  ): Promise<void> => {
    // A session per call: each simulator hands out its own nonces.
    const owner = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });
    const result = await owner.request('POST', `${sim.baseUrl}/api/atlas/v2/groups/${groupId}/${path}`, body);
    if (result.status !== 200) throw new Error(`POST ${path} answered ${result.status}: ${result.text}`);
  };

  /** The project's Webhook integration and an enabled and a disabled alert configuration using it. */
  const setUpProject = async (sim: AtlasSimulator): Promise<void> => {
    await configure(sim, ids.project, 'integrations/WEBHOOK', {
      type: 'WEBHOOK',
      url: `${receiver.url}/hook`,
      secret: SECRET,
    });
    await configure(sim, ids.project, 'alertConfigs', {
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      enabled: true,
      notifications: [{ typeName: 'WEBHOOK' }],
    });
    await configure(sim, ids.project, 'alertConfigs', {
      eventTypeName: 'JOINED_GROUP',
      enabled: false,
      notifications: [{ typeName: 'WEBHOOK' }],
    });
  };

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await Promise.all(sims.splice(0).map((sim) => sim.stop()));
    receiver.received.length = 0;
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('posts one signed alert for a matching event, none for other types or a disabled configuration', async () => {
    // Prepare
    const sim = await start(true);
    await setUpProject(sim);

    // Act
    const matching = sim.addEvent(
      { groupId: ids.project },
      { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED' },
    );
    sim.addEvent({ groupId: ids.project }, { eventTypeName: 'DATA_EXPLORER' });
    sim.addEvent({ groupId: ids.project }, { eventTypeName: 'JOINED_GROUP' });
    await sim.pushes.settled();

    // Assess
    expect(receiver.received).toHaveLength(1);
    const [post] = receiver.received as [Received];
    expect(post.path).toBe('/hook');
    expect(post.headers['x-mms-event']).toBe('alert.inform');
    const signature = post.headers['x-mms-signature'] as string;
    expect(verifyWebhookSignature({ body: post.body, signature, secret: SECRET })).toBe(true);
    expect(verifyWebhookSignature({ body: post.body, signature, secret: OWN_SECRET })).toBe(false);
    expect(JSON.parse(post.body.toString('utf8'))).toMatchObject({
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      groupId: ids.project,
      orgId: ids.org,
      created: matching.created,
      status: 'INFORMATIONAL',
    });
    expect(sim.pushes).toMatchObject({ sent: 1, failed: 0, cancelled: 0, pending: 0 });
  });

  it("posts nothing for a project without an integration, and to a notification's own URL with its own secret", async () => {
    // Prepare
    const sim = await start(true);
    await configure(sim, ids.otherProject, 'alertConfigs', {
      eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'alerts@example.com' }],
    });

    // Act
    sim.addEvent({ groupId: ids.otherProject }, { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED' });
    await sim.pushes.settled();
    const withoutIntegration = receiver.received.length;
    await configure(sim, ids.otherProject, 'alertConfigs', {
      eventTypeName: 'JOINED_GROUP',
      enabled: true,
      notifications: [{ typeName: 'WEBHOOK', webhookUrl: `${receiver.url}/own`, webhookSecret: OWN_SECRET }],
    });
    sim.addEvents({ groupId: ids.otherProject }, [{ eventTypeName: 'JOINED_GROUP' }]);
    await sim.pushes.settled();

    // Assess
    expect(withoutIntegration).toBe(0);
    expect(receiver.received.map((post) => post.path)).toEqual(['/own']);
    const [post] = receiver.received as [Received];
    const signature = post.headers['x-mms-signature'] as string;
    expect(verifyWebhookSignature({ body: post.body, signature, secret: OWN_SECRET })).toBe(true);
    expect(sim.pushes.sent).toBe(1);
  });

  it('posts nothing unless asked to, and counts a receiver that answers 500 as failed', async () => {
    // Prepare
    const quiet = await start();
    await setUpProject(quiet);
    const loud = await start(true);
    await configure(loud, ids.otherProject, 'alertConfigs', {
      eventTypeName: 'JOINED_GROUP',
      enabled: true,
      notifications: [{ typeName: 'WEBHOOK', webhookUrl: `${receiver.url}/fail`, webhookSecret: OWN_SECRET }],
    });

    // Act
    quiet.addEvent({ groupId: ids.project }, { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED' });
    await quiet.pushes.settled();
    const quietPosts = receiver.received.length;
    loud.addEvent({ groupId: ids.otherProject }, { eventTypeName: 'JOINED_GROUP' });
    await loud.pushes.settled();

    // Assess
    expect(quietPosts).toBe(0);
    expect(quiet.pushes).toMatchObject({ sent: 0, failed: 0 });
    expect(receiver.received.map((post) => post.path)).toEqual(['/fail']);
    expect(loud.pushes).toMatchObject({ sent: 0, failed: 1, pending: 0 });
  });

  it('cancels a pending post when the simulator stops, leaving no timer behind', async () => {
    // Prepare
    const sim = await start({ delayMs: 600_000 });
    await setUpProject(sim);
    const timersBefore = activeTimers();
    sim.addEvent({ groupId: ids.project }, { eventTypeName: 'NETWORK_PERMISSION_ENTRY_ADDED' });
    const pendingBeforeStop = sim.pushes.pending;
    const timersWhilePending = activeTimers();

    // Act
    await sim.stop();

    // Assess
    expect(pendingBeforeStop).toBe(1);
    expect(timersWhilePending).toBe(timersBefore + 1);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(sim.pushes).toMatchObject({ sent: 0, failed: 0, cancelled: 1, pending: 0 });
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a negative delay', async () => {
    // Act
    const started = startSimulator({ seed: testSeed(), pushAlerts: { delayMs: -1 } });

    // Assess
    await expect(started).rejects.toMatchObject({ name: 'SimulatorOptionsError' });
  });
});
