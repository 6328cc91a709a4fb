import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AtlasClient } from '../../shared/atlas/index.js';
import { silentLogger } from '../../shared/logger.js';
import { InventoryBudgetExceededError } from '../../shared/poll/errors.js';
import { InventoryReadBudget } from '../../shared/poll/inventory-budget.js';
import { checkInventory } from '../../shared/poll/inventory-check.js';
import { createRuleEngine, MemoryCounterStore } from '../../shared/rules/index.js';
import { FileStateStore } from '../../shared/state/index.js';
import {
  type DigestServer,
  listPage,
  type RecordedRequest,
  type Route,
  startDigestServer,
} from '../support/digest-server.js';
import { defaultRulePack } from './support/poll-fixture.js';
import { RecordingNotifier } from './support/recording-notifier.js';

const ORG = '6650a1b2c3d4e5f601000061';
const GROUP = '6650a1b2c3d4e5f602000061';
const credentials = { publicKey: 'budget01', privateKey: 'fake-private-key-for-tests' };

let server: DigestServer | undefined;
let atlas: AtlasClient | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await atlas?.close();
  atlas = undefined;
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A list that never ends: `size` entries a page, each page linking to the next. */
function endless(size: number, entry: (index: number) => Record<string, unknown>): Route {
  return (request: RecordedRequest) => {
    const pageNum = Number(request.url.searchParams.get('pageNum') ?? '1');
    const next = new URL(request.url);
    next.searchParams.set('pageNum', String(pageNum + 1));
    const results = Array.from({ length: size }, (_, at) => entry((pageNum - 1) * size + at));
    return {
      body: listPage(results, { self: request.url.toString(), next: next.toString(), totalCount: 1e9 }),
    };
  };
}

function accessListEntry(index: number): Record<string, unknown> {
  return {
    cidrBlock: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}/32`,
    comment: `entry ${index}`,
  };
}

async function serve(route: Route): Promise<AtlasClient> {
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
  return atlas;
}

function pagesServed(): number {
  return (server as DigestServer).requests.filter((request) => request.status === 200).length;
}

describe('InventoryReadBudget', () => {
  it('gives up an endless list once the inventory holds more entries than its budget', async () => {
    // Prepare
    const client = await serve(endless(500, accessListEntry));
    const budget = new InventoryReadBudget({ scope: `project ${GROUP}`, maxEntries: 2_000 });

    // Act
    const read = budget.readAll(client.listProjectAccessList(GROUP), `GET /groups/${GROUP}/accessList`);

    // Assess
    await expect(read).rejects.toThrow(InventoryBudgetExceededError);
    await expect(read).rejects.toThrow(
      `The inventory of project ${GROUP} was given up: it lists more than 2000 entries (counted while reading GET /groups/${GROUP}/accessList)`,
    );
    expect(pagesServed()).toBe(5);
  });

  it('gives up a list of endless short pages once it passes the pages its entries could need', async () => {
    // Prepare
    const client = await serve(endless(1, accessListEntry));
    const budget = new InventoryReadBudget({ scope: `project ${GROUP}`, maxEntries: 2_000 });

    // Act
    const read = budget.readAll(client.listProjectAccessList(GROUP), `GET /groups/${GROUP}/accessList`);

    // Assess
    await expect(read).rejects.toThrow(/went on past 20 pages \(20 entries, fewer than 100 a page\)/);
    expect(pagesServed()).toBe(21);
  });

  it('counts the entries of every list of the inventory together', async () => {
    // Prepare
    const client = await serve(() => ({
      body: listPage(
        Array.from({ length: 400 }, (_, i) => accessListEntry(i)),
        { self: '' },
      ),
    }));
    const budget = new InventoryReadBudget({ scope: `org ${ORG}`, maxEntries: 1_000 });
    const list = (key: string) => client.listApiKeyAccessList(ORG, key);

    // Act
    const first = await budget.readAll(list('6650a1b2c3d4e5f603000061'), 'key 1');
    const second = await budget.readAll(list('6650a1b2c3d4e5f603000062'), 'key 2');
    const third = budget.readAll(list('6650a1b2c3d4e5f603000063'), 'key 3');

    // Assess
    expect([first.length, second.length, budget.entries]).toEqual([400, 400, 800]);
    await expect(third).rejects.toThrow(/more than 1000 entries \(counted while reading key 3\)/);
  });
});

describe('checkInventory of an endless list', () => {
  it('fails with INVENTORY_BUDGET_EXCEEDED and stores nothing', async () => {
    // Prepare
    const client = await serve(endless(500, accessListEntry));
    const dir = await mkdtemp(join(tmpdir(), 'inventory-budget-'));
    const store = await FileStateStore.open({ path: join(dir, 'state.json') });
    cleanups.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    const engine = createRuleEngine({ pack: await defaultRulePack(), counters: new MemoryCounterStore() });

    // Act
    const check = checkInventory({
      atlas: client,
      store,
      engine,
      notifier: new RecordingNotifier(),
      logger: silentLogger,
      scope: { groupId: GROUP },
      now: Date.now(),
      concurrency: 2,
      claimMs: 60_000,
      signal: new AbortController().signal,
      maxEntries: 1_500,
    });

    // Assess
    await expect(check).rejects.toMatchObject({ code: 'INVENTORY_BUDGET_EXCEEDED' });
    expect(await store.readInventory({ groupId: GROUP })).toBeUndefined();
  });
});
