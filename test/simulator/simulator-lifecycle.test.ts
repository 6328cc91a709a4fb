import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  SimulatorEventError,
  SimulatorOptionsError,
  SimulatorStartError,
  startSimulator,
} from '../../simulator/index.js';
import { DigestSession, send } from './support/digest-client.js';
import { ManualClock } from './support/manual-clock.js';
import { ids, keys, testSeed } from './support/test-seed.js';

describe('startSimulator', () => {
  it('starts on a free loopback port with the default seed and its first key', async () => {
    const sim = await startSimulator();
    await sim.stop();

    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.credentials.publicKey).toBe('qkzvbgyt');
    expect(sim.orgIds).toHaveLength(2);
    expect(sim.projectIds).toHaveLength(5);
    expect(sim.orgs[0]).toEqual({ id: '64b5c9e2f1a3d40012ab3c01', name: 'Acme Corp' });
    expect(sim.projects[0]).toEqual({ id: sim.projectIds[0], name: 'payments-prod', orgId: sim.orgIds[0] });
    expect(sim.serviceAccount?.clientId).toMatch(/^mdb_sa_id_/);
  });

  it('adds a credential given in the options, with Organization Owner on every organization', async () => {
    const sim = await startSimulator({
      seed: testSeed(),
      publicKey: 'extrakey',
      privateKey: 'fake-private-key-extra',
    });
    try {
      const session = new DigestSession({ username: 'extrakey', password: 'fake-private-key-extra' });

      const statuses = [
        (await session.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events`)).status,
        (await session.get(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.otherOrg}/events`)).status,
      ];

      expect(sim.credentials).toEqual({ publicKey: 'extrakey', privateKey: 'fake-private-key-extra' });
      expect(statuses).toEqual([200, 200]);
    } finally {
      await sim.stop();
    }
  });

  it('replaces the private key of a seeded key with the same public key', async () => {
    const sim = await startSimulator({
      seed: testSeed(),
      publicKey: keys.member.publicKey,
      privateKey: 'fake-private-key-replaced',
    });
    try {
      const oldKey = new DigestSession({ username: keys.member.publicKey, password: keys.member.privateKey });
      const newKey = new DigestSession({
        username: keys.member.publicKey,
        password: 'fake-private-key-replaced',
      });
      const path = `${sim.baseUrl}/api/atlas/v2/groups/${ids.otherProject}/events`;

      const statuses = [(await oldKey.get(path)).status, (await newKey.get(path)).status];

      expect(statuses).toEqual([401, 403]);
    } finally {
      await sim.stop();
    }
  });

  it('generates a credential when the seed has no API key', async () => {
    const { apiKeys: _keys, ...seed } = testSeed();

    const sim = await startSimulator({ seed });
    await sim.stop();

    expect(sim.credentials.publicKey).toMatch(/^[a-z]{8}$/);
    expect(sim.credentials.privateKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a public key without a private key', async () => {
    const result = startSimulator({ seed: testSeed(), publicKey: 'lonelykey' });

    await expect(result).rejects.toThrow(SimulatorOptionsError);
  });

  it('refuses a rate limit that is not a positive whole number of requests', async () => {
    for (const rateLimitPerMinute of [0, -5, 2.5, Number.NaN]) {
      await expect(startSimulator({ seed: testSeed(), rateLimitPerMinute })).rejects.toThrow(
        SimulatorOptionsError,
      );
    }
  });

  it('refuses a port already in use with SimulatorStartError', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = startSimulator({ seed: testSeed(), port });

      await expect(result).rejects.toThrow(SimulatorStartError);
      await expect(result).rejects.toThrow(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });

  it('stops, closing idle keep-alive connections, and may be stopped twice', async () => {
    const sim = await startSimulator({ seed: testSeed() });
    await send(`${sim.baseUrl}/api/public/v1.0/orgs/${ids.org}/events`);

    await Promise.all([sim.stop(), sim.stop()]);

    await expect(send(`${sim.baseUrl}/api/public/v1.0/orgs/${ids.org}/events`)).rejects.toThrow();
  });
});

describe('AtlasSimulator.addEvent', () => {
  it('fills in id, created, scope fields and a v2 self link', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    const sim = await startSimulator({ seed: testSeed(), clock });
    try {
      const event = sim.addEvent(
        { groupId: ids.project },
        { eventTypeName: 'MONGODB_USER_ADDED', dbUserUsername: 'svc' },
      );

      expect(event).toEqual({
        created: '2026-03-01T12:00:00Z',
        dbUserUsername: 'svc',
        eventTypeName: 'MONGODB_USER_ADDED',
        groupId: ids.project,
        id: expect.stringMatching(/^69a42a40[0-9a-f]{16}$/),
        links: [
          { href: `${sim.baseUrl}/api/atlas/v2/groups/${ids.project}/events/${event.id}`, rel: 'self' },
        ],
        orgId: ids.org,
      });
    } finally {
      await sim.stop();
    }
  });

  it('keeps its own copy of the event', async () => {
    const sim = await startSimulator({ seed: testSeed() });
    try {
      const input = {
        eventTypeName: 'JOINED_ORG',
        created: '2026-03-01T12:00:00Z',
        username: 'a@example.com',
      };
      const event = sim.addEvent({ orgId: ids.org }, input);
      input.username = 'changed@example.com';
      const session = new DigestSession({ username: keys.owner.publicKey, password: keys.owner.privateKey });

      const served = await session.json(`${sim.baseUrl}/api/atlas/v2/orgs/${ids.org}/events/${event.id}`);

      expect(served.username).toBe('a@example.com');
    } finally {
      await sim.stop();
    }
  });

  it.each([
    [
      'an unknown project',
      { groupId: '64b5ca17f1a3d40012ab3d99' },
      { eventTypeName: 'HOST_UP' },
      /no such project/,
    ],
    ['a missing eventTypeName', { groupId: ids.project }, { eventTypeName: '' }, /has no eventTypeName/],
    [
      'a created that is no date',
      { orgId: ids.org },
      { eventTypeName: 'JOINED_ORG', created: 'yesterday' },
      /not an ISO-8601/,
    ],
    [
      'a groupId of another project',
      { groupId: ids.project },
      { eventTypeName: 'HOST_UP', groupId: ids.otherProject },
      /groupId/,
    ],
  ])('refuses %s', async (_name, scope, event, message) => {
    const sim = await startSimulator({ seed: testSeed() });
    try {
      const act = (): unknown => sim.addEvent(scope, event);

      expect(act).toThrow(SimulatorEventError);
      expect(act).toThrow(message);
    } finally {
      await sim.stop();
    }
  });

  it('refuses an id already stored, adding none of the batch', async () => {
    const sim = await startSimulator({ seed: testSeed() });
    try {
      sim.addEvent({ groupId: ids.project }, { eventTypeName: 'HOST_UP', id: '64b5d0000000000000000001' });

      const act = (): unknown =>
        sim.addEvents({ groupId: ids.project }, [
          { eventTypeName: 'HOST_UP', id: '64b5d0000000000000000002' },
          { eventTypeName: 'HOST_UP', id: '64b5d0000000000000000001' },
        ]);

      expect(act).toThrow(/already stored/);
      expect(() =>
        sim.addEvent({ groupId: ids.project }, { eventTypeName: 'HOST_UP', id: '64b5d0000000000000000002' }),
      ).not.toThrow();
    } finally {
      await sim.stop();
    }
  });
});
