import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import type { Logger } from '../../shared/logger.js';
import { checkInventory } from '../../shared/poll/inventory-check.js';
import { createRuleEngine, MemoryCounterStore } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import { type DigestServer, listPage, type Route, startDigestServer } from '../support/digest-server.js';
import { defaultRulePack } from './support/poll-fixture.js';
import { RecordingNotifier } from './support/recording-notifier.js';

const ORG = '6650a1b2c3d4e5f601000081';
const GROUP = '6650a1b2c3d4e5f602000081';
const KEY_A = '6650a1b2c3d4e5f603000081';
const KEY_B = '6650a1b2c3d4e5f603000082';
const credentials = { publicKey: 'hostile1', privateKey: 'fake-private-key-for-tests' };

let server: DigestServer | undefined;
let atlas: AtlasClient | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await atlas?.close();
  atlas = undefined;
  await server?.close();
  server = undefined;
  await cleanup?.();
  cleanup = undefined;
});

/** Checks the inventory of `scope` once against a server answering `route`, as a first snapshot. */
async function firstInventory(route: Route, scope: { orgId: string } | { groupId: string }) {
  server = await startDigestServer({
    username: credentials.publicKey,
    password: credentials.privateKey,
    route,
  });
  atlas = new AtlasClient({
    baseUrl: server.baseUrl,
    allowInsecureHttp: true,
    credentials: { kind: 'digest', ...credentials },
  });
  const dir = await mkdtemp(join(tmpdir(), 'inventory-hostile-'));
  const store = await FileStateStore.open({ path: join(dir, 'state.json') });
  cleanup = async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  const notifier = new RecordingNotifier();
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => warnings.push(message),
    error: () => {},
  };
  const check = await checkInventory({
    atlas,
    store,
    engine: createRuleEngine({ pack: await defaultRulePack(), counters: new MemoryCounterStore() }),
    notifier,
    logger,
    scope,
    now: Date.parse('2026-03-01T00:00:00Z'),
    concurrency: 2,
    claimMs: 60_000,
    signal: new AbortController().signal,
  });
  return { check, delivered: notifier.delivered, warnings, stored: await store.readInventory(scope) };
}

describe('an inventory with entries that cannot be read', () => {
  it('leaves out a role that is null, counts it, and still raises the finding of another key', async () => {
    // Prepare
    const route: Route = (request) => {
      const { pathname } = request.url;
      if (pathname.endsWith(`/orgs/${ORG}/apiKeys`)) {
        return {
          body: listPage(
            [
              { id: KEY_A, publicKey: 'keyaaaaa', roles: [null, { roleName: 'ORG_READ_ONLY', orgId: ORG }] },
              { id: KEY_B, publicKey: 'keybbbbb', roles: [{ roleName: 'ORG_OWNER', orgId: ORG }] },
            ],
            { self: '' },
          ),
        };
      }
      if (pathname.endsWith(`/apiKeys/${KEY_A}/accessList`)) {
        return { body: listPage([{ cidrBlock: '198.51.100.0/24' }], { self: '' }) };
      }
      if (pathname.endsWith(`/apiKeys/${KEY_B}/accessList`)) {
        return { body: listPage([{ cidrBlock: '0.0.0.0/0' }], { self: '' }) };
      }
      return { status: 404, body: {} };
    };

    // Act
    const { check, delivered, warnings, stored } = await firstInventory(route, { orgId: ORG });

    // Assess
    expect(check).toMatchObject({ status: 'baseline', apiKeys: 2, invalidEntries: 1 });
    expect(delivered.map((alert) => `${alert.ruleId} ${alert.title}`)).toEqual([
      'inventory-access-list-open-to-internet API key keybbbbb usable from 0.0.0.0/0',
    ]);
    expect(warnings).toContain('inventory entries that cannot be read were left out; the rest is compared');
    const keyA = stored?.apiKeys.find((entry) => entry.apiKey.id === KEY_A);
    expect(keyA?.apiKey.roles).toEqual([{ roleName: 'ORG_READ_ONLY', orgId: ORG }]);
    expect(keyA?.accessList).toEqual([{ cidrBlock: '198.51.100.0/24' }]);
  });

  it('reads an access list around an entry that is not an object, and counts it', async () => {
    // Prepare
    const route: Route = (request) =>
      request.url.pathname.endsWith(`/groups/${GROUP}/accessList`)
        ? { body: listPage(['0.0.0.0/0', { cidrBlock: '0.0.0.0/0' }], { self: '' }) }
        : { status: 404, body: {} };

    // Act
    const { check, delivered } = await firstInventory(route, { groupId: GROUP });

    // Assess
    expect(check).toMatchObject({ status: 'baseline', projectEntries: 1, invalidEntries: 1 });
    expect(delivered.map((alert) => alert.ruleId)).toEqual(['inventory-project-open-to-internet']);
  });
});

describe('an inventory with access-list entries that are not an address or range', () => {
  it('raises a finding for each one on the first snapshot, and none for a range or a security group', async () => {
    // Prepare
    const unreadable = ['000.000.000.000/0', '0.0.0.0/0.0.0.0', '[::]/0', '0/0', '0.0.0.0 /0'];
    const route: Route = (request) =>
      request.url.pathname.endsWith(`/groups/${GROUP}/accessList`)
        ? {
            body: listPage(
              [
                ...unreadable.map((cidrBlock) => ({ cidrBlock, comment: 'hostile' })),
                { cidrBlock: '198.51.100.0/24' },
                { awsSecurityGroup: 'sg-0123abcd' },
              ],
              { self: '' },
            ),
          }
        : { status: 404, body: {} };

    // Act
    const { check, delivered } = await firstInventory(route, { groupId: GROUP });

    // Assess
    expect(check).toMatchObject({ status: 'baseline', projectEntries: 7, findings: 5 });
    expect(
      delivered.map((alert) => `${alert.ruleId} ${alert.severity} ${alert.events[0]?.accessListEntry}`),
    ).toEqual(unreadable.map((entry) => `inventory-access-list-entry-unreadable high ${entry}`));
  });
});
