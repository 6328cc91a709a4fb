import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AtlasApiKey, AtlasEvent } from '../../shared/atlas/types.js';
import {
  type CounterStore,
  createRuleEngine,
  MemoryCounterStore,
  parseRulePack,
} from '../../shared/rules/index.js';
import { type InventorySnapshot, LeaseLostError, type StateStore } from '../../shared/state/index.js';
import { createPrng } from '../../simulator/prng.js';
import { ManualClock } from './manual-clock.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Options a contract store is created with. */
export interface ContractStoreOptions {
  clock: ManualClock;
}

/** Creates a store for one test; the contract closes it when the test ends. */
export type CreateContractStore = (options: ContractStoreOptions) => Promise<StateStore>;

/** An Atlas-style id: 24 hex characters. */
export function atlasId(): string {
  return randomBytes(12).toString('hex');
}

function unique(prefix: string): string {
  return `${prefix}:${randomUUID()}`;
}

async function setUp(createStore: CreateContractStore): Promise<{ store: StateStore; clock: ManualClock }> {
  const clock = new ManualClock();
  const store = await createStore({ clock });
  onTestFinished(() => store.close());
  return { store, clock };
}

/**
 * A claim of a new alert for a minute, then, once it expired, a second claimant's: the first claim and
 * the second's result (a take-over, unless the store is broken).
 */
async function claimThenTakeOver(store: StateStore, clock: ManualClock, fingerprint: string) {
  const first = await store.claimAlert({ fingerprint, claimMs: MINUTE });
  if (first.outcome !== 'claimed') throw new Error('expected a claim');
  clock.advance(MINUTE);
  const second = await store.claimAlert({ fingerprint, claimMs: MINUTE });
  return { first: first.claim, second };
}

async function acquire(store: StateStore, source: string, owner = 'worker-a', durationMs = 5 * MINUTE) {
  const acquisition = await store.acquireLease({ source, owner, durationMs });
  if (!acquisition.acquired) throw new Error(`expected to acquire ${source}, held by ${acquisition.owner}`);
  return acquisition;
}

function apiKey(overrides: Partial<AtlasApiKey> = {}): AtlasApiKey {
  return {
    id: atlasId(),
    desc: 'deploy pipeline',
    publicKey: 'abcdefgh',
    privateKey: 'fake-private-key-for-tests',
    roles: [{ orgId: atlasId(), roleName: 'ORG_OWNER' }],
    ...overrides,
  };
}

function snapshot(orgId: string, takenAt: number, keys = 2): InventorySnapshot {
  return {
    orgId,
    takenAt,
    apiKeys: Array.from({ length: keys }, (_, index) => ({
      apiKey: apiKey({ desc: `key ${index}` }),
      accessList: [
        { cidrBlock: `10.0.${index % 250}.0/24`, count: index, created: '2025-05-01T00:00:00Z' },
        { ipAddress: `192.168.${index % 250}.7`, cidrBlock: `192.168.${index % 250}.7/32` },
      ],
    })),
  };
}

/** The snapshot as it must come back: every `privateKey` gone, nothing else changed. */
function withoutSecrets(value: InventorySnapshot): InventorySnapshot {
  return {
    ...value,
    apiKeys: value.apiKeys.map(({ apiKey: { privateKey: _privateKey, ...rest }, accessList }) => ({
      apiKey: rest as AtlasApiKey,
      accessList,
    })),
  };
}

/**
 * Registers the state store contract for one implementation: leases and fencing, cursors (with many
 * seen ids), alert records, counters and inventory snapshots, each with expiry driven by the clock.
 */
export function describeStateStoreContract(name: string, createStore: CreateContractStore): void {
  describe(`${name}: source leases`, () => {
    it('grants the lease on a new source, with no cursor', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');

      const acquisition = await store.acquireLease({ source, owner: 'worker-a', durationMs: 5 * MINUTE });

      expect(acquisition).toMatchObject({ acquired: true, cursor: undefined });
      expect(acquisition.acquired && acquisition.lease).toMatchObject({
        source,
        owner: 'worker-a',
        expiresAt: clock.now() + 5 * MINUTE,
      });
    });

    it('refuses a second lease while the first is live, naming its holder and expiry', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      await acquire(store, source, 'worker-a');
      clock.advance(4 * MINUTE);

      const second = await store.acquireLease({ source, owner: 'worker-b', durationMs: 5 * MINUTE });

      expect(second).toEqual({ acquired: false, owner: 'worker-a', expiresAt: clock.now() + MINUTE });
    });

    it('lets another owner take over a lease past its expiry, with the cursor as last committed', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('project');
      const first = await acquire(store, source, 'worker-a');
      await store.commitCursor({ lease: first.lease, watermark: 1_000, seenIds: ['a'], release: false });
      clock.advance(5 * MINUTE);

      const second = await acquire(store, source, 'worker-b');

      expect(second.lease.owner).toBe('worker-b');
      expect(second.lease.token).not.toBe(first.lease.token);
      expect(second.cursor?.watermark).toBe(1_000);
      expect(second.cursor?.seenIds.has('a')).toBe(true);
    });

    it('refuses a commit from a worker whose lease was taken over, and keeps the cursor (fencing)', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const stale = await acquire(store, source, 'worker-a');
      await store.commitCursor({ lease: stale.lease, watermark: 1_000, seenIds: ['a'], release: false });
      clock.advance(6 * MINUTE);
      const fresh = await acquire(store, source, 'worker-b');

      const commit = store.commitCursor({ lease: stale.lease, watermark: 9_000, seenIds: ['z'] });

      await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
      await expect(commit).rejects.toMatchObject({ code: 'STATE_LEASE_LOST', source });
      await store.releaseLease({ lease: fresh.lease });
      const after = await acquire(store, source, 'worker-c');
      expect(after.cursor?.watermark).toBe(1_000);
      expect(after.cursor?.seenIds.has('z')).toBe(false);
    });

    it('accepts a commit from a holder whose lease lapsed while nobody took it over', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const slow = await acquire(store, source);
      clock.advance(10 * MINUTE);

      await store.commitCursor({ lease: slow.lease, watermark: 2_000, seenIds: [] });

      const next = await acquire(store, source, 'worker-b');
      expect(next.cursor?.watermark).toBe(2_000);
    });

    it('renews a held lease so that it outlives its first expiry', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const held = await acquire(store, source, 'worker-a', 5 * MINUTE);
      clock.advance(4 * MINUTE);

      const renewed = await store.renewLease({ lease: held.lease, durationMs: 5 * MINUTE });
      clock.advance(3 * MINUTE);
      const other = await store.acquireLease({ source, owner: 'worker-b', durationMs: MINUTE });

      expect(renewed.expiresAt).toBe(clock.now() + 2 * MINUTE);
      expect(renewed.token).toBe(held.lease.token);
      expect(other).toMatchObject({ acquired: false, owner: 'worker-a' });
      await store.commitCursor({ lease: renewed, watermark: 5, seenIds: [] });
    });

    it('refuses to renew a lease that was taken over', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const stale = await acquire(store, source, 'worker-a');
      clock.advance(5 * MINUTE);
      await acquire(store, source, 'worker-b');

      const renewal = store.renewLease({ lease: stale.lease, durationMs: 5 * MINUTE });

      await expect(renewal).rejects.toBeInstanceOf(LeaseLostError);
    });

    it('frees the source on release without moving the cursor', async () => {
      const { store } = await setUp(createStore);
      const source = unique('org');
      const first = await acquire(store, source);
      await store.commitCursor({ lease: first.lease, watermark: 7_000, seenIds: ['x'] });
      const second = await acquire(store, source);

      const released = await store.releaseLease({ lease: second.lease });
      const third = await store.acquireLease({ source, owner: 'worker-b', durationMs: MINUTE });

      expect(released).toBe(true);
      expect(third.acquired).toBe(true);
      expect(third.acquired && third.cursor?.watermark).toBe(7_000);
    });

    it('answers false to a release of a lease that was taken over, and leaves the new holder alone', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const stale = await acquire(store, source, 'worker-a');
      clock.advance(5 * MINUTE);
      const fresh = await acquire(store, source, 'worker-b');

      const released = await store.releaseLease({ lease: stale.lease });

      expect(released).toBe(false);
      const other = await store.acquireLease({ source, owner: 'worker-c', durationMs: MINUTE });
      expect(other).toMatchObject({ acquired: false, owner: 'worker-b' });
      await store.commitCursor({ lease: fresh.lease, watermark: 1, seenIds: [] });
    });

    it('keeps the lease when a commit asks not to release it', async () => {
      const { store } = await setUp(createStore);
      const source = unique('org');
      const held = await acquire(store, source, 'worker-a');

      await store.commitCursor({ lease: held.lease, watermark: 3_000, seenIds: [], release: false });
      const other = await store.acquireLease({ source, owner: 'worker-b', durationMs: MINUTE });
      await store.commitCursor({ lease: held.lease, watermark: 4_000, seenIds: [] });
      const after = await acquire(store, source, 'worker-b');

      expect(other).toMatchObject({ acquired: false, owner: 'worker-a' });
      expect(after.cursor?.watermark).toBe(4_000);
    });

    it('keeps leases of different sources apart', async () => {
      const { store } = await setUp(createStore);
      await acquire(store, unique('org'), 'worker-a');

      const other = await store.acquireLease({
        source: unique('org'),
        owner: 'worker-b',
        durationMs: MINUTE,
      });

      expect(other.acquired).toBe(true);
    });
  });

  describe(`${name}: cursors`, () => {
    it('returns the committed watermark and seen ids, whatever their form, on the next acquisition', async () => {
      const { store } = await setUp(createStore);
      const source = unique('project');
      const atlas = atlasId();
      const held = await acquire(store, source);

      await store.commitCursor({
        lease: held.lease,
        watermark: Date.UTC(2025, 4, 31, 23, 59, 59),
        seenIds: [atlas, 'not-an-atlas-id', atlas, ''],
      });
      const next = await acquire(store, source);

      expect(next.cursor?.watermark).toBe(Date.UTC(2025, 4, 31, 23, 59, 59));
      expect(next.cursor?.seenIds.size).toBe(3);
      expect(next.cursor?.seenIds.has(atlas)).toBe(true);
      expect(next.cursor?.seenIds.has(atlas.toUpperCase())).toBe(true);
      expect(next.cursor?.seenIds.has('not-an-atlas-id')).toBe(true);
      expect(next.cursor?.seenIds.has('')).toBe(true);
      expect(next.cursor?.seenIds.has(atlasId())).toBe(false);
    });

    it('round-trips 10,000 seen ids', async () => {
      const { store } = await setUp(createStore);
      const source = unique('project');
      const ids = Array.from({ length: 10_000 }, atlasId);
      const held = await acquire(store, source);

      await store.commitCursor({ lease: held.lease, watermark: 50, seenIds: ids });
      const next = await acquire(store, source);

      expect(next.cursor?.seenIds.size).toBe(10_000);
      expect(ids.every((id) => next.cursor?.seenIds.has(id))).toBe(true);
    });

    it('returns only the new, smaller set after a large set is replaced', async () => {
      const { store } = await setUp(createStore);
      const source = unique('project');
      const old = Array.from({ length: 5_000 }, atlasId);
      const first = await acquire(store, source);
      await store.commitCursor({ lease: first.lease, watermark: 1, seenIds: old });
      const second = await acquire(store, source);

      await store.commitCursor({ lease: second.lease, watermark: 2, seenIds: ['new-1', 'new-2'] });
      const third = await acquire(store, source);

      expect(third.cursor?.seenIds.size).toBe(2);
      expect(third.cursor?.seenIds.has('new-2')).toBe(true);
      expect(third.cursor?.seenIds.has(old[0] ?? '')).toBe(false);
    });

    it('leaves a large cursor whole when a fenced commit of another large set fails', async () => {
      const { store, clock } = await setUp(createStore);
      const source = unique('project');
      const kept = Array.from({ length: 3_000 }, atlasId);
      const first = await acquire(store, source, 'worker-a');
      await store.commitCursor({ lease: first.lease, watermark: 10, seenIds: kept, release: false });
      clock.advance(6 * MINUTE);
      const fresh = await acquire(store, source, 'worker-b');

      const stale = store.commitCursor({
        lease: first.lease,
        watermark: 20,
        seenIds: Array.from({ length: 4_000 }, atlasId),
      });

      await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
      await store.releaseLease({ lease: fresh.lease });
      const after = await acquire(store, source, 'worker-c');
      expect(after.cursor?.watermark).toBe(10);
      expect(after.cursor?.seenIds.size).toBe(3_000);
      expect(kept.every((id) => after.cursor?.seenIds.has(id))).toBe(true);
    });

    it('keeps the inventory time across commits that do not set it', async () => {
      const { store } = await setUp(createStore);
      const source = unique('org');
      const first = await acquire(store, source);
      await store.commitCursor({ lease: first.lease, watermark: 1, seenIds: [], inventoryTakenAt: 123_000 });
      const second = await acquire(store, source);

      await store.commitCursor({ lease: second.lease, watermark: 2, seenIds: [] });
      const third = await acquire(store, source);

      expect(second.cursor?.inventoryTakenAt).toBe(123_000);
      expect(third.cursor?.inventoryTakenAt).toBe(123_000);
      expect(third.cursor?.watermark).toBe(2);
    });

    it('creates a cursor with no seen ids for a source that has none, and answers which it created', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const fresh = unique('project');
      const committed = unique('project');
      const first = await acquire(store, committed);
      await store.commitCursor({ lease: first.lease, watermark: 50, seenIds: [atlasId()] });

      // Act
      const created = await store.createMissingCursors({
        cursors: [
          { source: fresh, watermark: 7_000 },
          { source: committed, watermark: 9_000 },
        ],
      });

      // Assess
      expect(created).toEqual([fresh]);
      const freshCursor = (await acquire(store, fresh)).cursor;
      expect(freshCursor?.watermark).toBe(7_000);
      expect(freshCursor?.seenIds.size).toBe(0);
      const kept = (await acquire(store, committed)).cursor;
      expect(kept?.watermark).toBe(50);
      expect(kept?.seenIds.size).toBe(1);
    });

    it('never replaces a cursor, whether it created it or a worker committed it', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const source = unique('org');
      await store.createMissingCursors({ cursors: [{ source, watermark: 1_000 }] });
      const lease = await acquire(store, source);
      await store.commitCursor({ lease: lease.lease, watermark: 5_000, seenIds: [] });

      // Act
      const again = await store.createMissingCursors({ cursors: [{ source, watermark: 2_000 }] });

      // Assess
      expect(again).toEqual([]);
      expect((await acquire(store, source)).cursor?.watermark).toBe(5_000);
    });

    it('creates a cursor under a live lease without taking it, and the holder commits over it', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const source = unique('project');
      const held = await acquire(store, source, 'worker-a');

      // Act
      const created = await store.createMissingCursors({ cursors: [{ source, watermark: 3_000 }] });
      const refused = await store.acquireLease({ source, owner: 'worker-b', durationMs: MINUTE });
      await store.commitCursor({ lease: held.lease, watermark: 4_000, seenIds: [] });

      // Assess
      expect(created).toEqual([source]);
      expect(refused.acquired).toBe(false);
      expect((await acquire(store, source, 'worker-b')).cursor?.watermark).toBe(4_000);
    });
  });

  describe(`${name}: source times`, () => {
    it('tells when each source last had a turn and where its cursor is, and nothing of unknown ones', async () => {
      // Prepare
      const { store, clock } = await setUp(createStore);
      const [failed, cut, committed, kept, pinned, unknown] = [
        'org',
        'org',
        'project',
        'project',
        'project',
        'project',
      ].map(unique) as [string, string, string, string, string, string];
      const start = clock.now();
      await store.releaseLease({ lease: (await acquire(store, failed)).lease, polled: true });
      await store.releaseLease({ lease: (await acquire(store, cut)).lease });
      clock.advance(MINUTE);
      await store.commitCursor({
        lease: (await acquire(store, committed)).lease,
        watermark: 42_000,
        seenIds: [],
      });
      await store.commitCursor({
        lease: (await acquire(store, kept)).lease,
        watermark: 43_000,
        seenIds: [],
        polled: false,
      });
      await store.createMissingCursors({ cursors: [{ source: pinned, watermark: 7_000 }] });

      // Act
      const times = await store.readSourceTimes({ sources: [failed, cut, committed, kept, pinned, unknown] });

      // Assess
      expect(times.get(failed)).toEqual({ polledAt: start });
      expect(times.get(cut)).toEqual({});
      expect(times.get(committed)).toEqual({ polledAt: start + MINUTE, watermark: 42_000 });
      expect(times.get(kept)).toEqual({ watermark: 43_000 });
      expect(times.get(pinned)).toEqual({ watermark: 7_000 });
      expect(times.has(unknown)).toBe(false);
    });

    it('reads more sources than one batch holds', async () => {
      // Prepare: 250 sources, every other one committed at its own time.
      const { store, clock } = await setUp(createStore);
      const sources = Array.from({ length: 250 }, () => unique('project'));
      const polledAt = new Map<string, number>();
      for (const [index, source] of sources.entries()) {
        if (index % 2 === 1) continue;
        clock.advance(1_000);
        polledAt.set(source, clock.now());
        await store.commitCursor({
          lease: (await acquire(store, source)).lease,
          watermark: index,
          seenIds: [],
        });
      }

      // Act
      const times = await store.readSourceTimes({ sources });

      // Assess
      expect(times.size).toBe(125);
      for (const [source, at] of polledAt) expect(times.get(source)?.polledAt).toBe(at);
    });
  });

  describe(`${name}: source reports`, () => {
    it('reports watermark, last poll, live lease, last error and alerts of the last day', async () => {
      // Prepare: a source that sent alerts over two days, then failed; one that is leased now.
      const { store, clock } = await setUp(createStore);
      const [healthy, failing, leased] = [unique('org'), unique('project'), unique('project')];
      const start = clock.now();
      await store.commitCursor({
        lease: (await acquire(store, healthy)).lease,
        watermark: 1_000,
        seenIds: [],
        alertsSent: 5,
      });
      clock.advance(DAY + 2 * 60 * MINUTE);
      await store.commitCursor({
        lease: (await acquire(store, healthy)).lease,
        watermark: 2_000,
        seenIds: [],
        alertsSent: 2,
      });
      const half = (await acquire(store, healthy)).lease;
      await store.commitCursor({ lease: half, watermark: 3_000, seenIds: [], alertsSent: 1, release: false });
      await store.commitCursor({ lease: half, watermark: 4_000, seenIds: [], alertsSent: 1 });
      await store.commitCursor({
        lease: (await acquire(store, failing)).lease,
        watermark: 9_000,
        seenIds: [],
      });
      clock.advance(MINUTE);
      const failedAt = clock.now();
      await store.releaseLease({
        lease: (await acquire(store, failing)).lease,
        polled: true,
        alertsSent: 3,
        error: {
          code: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
          message: 'Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST',
        },
      });
      await acquire(store, leased, 'host-b:4242');

      // Act
      const reports = new Map((await store.listSourceReports()).map((report) => [report.source, report]));

      // Assess
      expect(reports.get(healthy)).toEqual({
        source: healthy,
        watermark: 4_000,
        polledAt: start + DAY + 2 * 60 * MINUTE,
        alertsLastDay: 4,
      });
      expect(reports.get(failing)).toEqual({
        source: failing,
        watermark: 9_000,
        polledAt: failedAt,
        lastError: {
          at: failedAt,
          code: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
          message: 'Atlas answered 403 IP_ADDRESS_NOT_ON_ACCESS_LIST',
        },
        alertsLastDay: 3,
      });
      expect(reports.get(leased)).toEqual({
        source: leased,
        lease: { owner: 'host-b:4242', expiresAt: failedAt + 5 * MINUTE },
        alertsLastDay: 0,
      });
    });

    it('records the connection that polls a source, and forgets it when the connection default takes the source', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const source = unique('project');
      const other = unique('org');
      const first = await store.acquireLease({
        source,
        owner: 'w',
        durationMs: MINUTE,
        connection: 'data-centre',
      });
      if (!first.acquired) throw new Error('expected the lease of a new source');
      await store.commitCursor({ lease: first.lease, watermark: 7, seenIds: [] });
      await store.commitCursor({ lease: (await acquire(store, other)).lease, watermark: 8, seenIds: [] });
      const named = new Map((await store.listSourceReports()).map((report) => [report.source, report]));
      await store.commitCursor({ lease: (await acquire(store, source)).lease, watermark: 9, seenIds: [] });

      // Act
      const moved = (await store.listSourceReports()).find((report) => report.source === source);

      // Assess
      expect(named.get(source)).toMatchObject({ source, connection: 'data-centre', watermark: 7 });
      expect(named.get(other)?.connection).toBeUndefined();
      expect(moved?.connection).toBeUndefined();
      expect(moved?.watermark).toBe(9);
    });

    it('clears the last error on the next commit, keeps it on a release without one, and hides a lapsed lease', async () => {
      // Prepare
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const error = { code: 'ATLAS_NETWORK', message: 'no answer' };
      await store.releaseLease({ lease: (await acquire(store, source)).lease, error });
      await store.releaseLease({ lease: (await acquire(store, source)).lease, polled: true });
      const kept = (await store.listSourceReports()).find((report) => report.source === source);
      await store.commitCursor({ lease: (await acquire(store, source)).lease, watermark: 5, seenIds: [] });
      await acquire(store, source, 'gone-worker', MINUTE);
      clock.advance(2 * MINUTE);

      // Act
      const cleared = (await store.listSourceReports()).find((report) => report.source === source);

      // Assess
      expect(kept?.lastError).toMatchObject(error);
      expect(cleared?.lastError).toBeUndefined();
      expect(cleared?.lease).toBeUndefined();
      expect(cleared?.watermark).toBe(5);
    });
  });

  describe(`${name}: alert records in batches`, () => {
    it('claims more alerts than one transaction holds, telling apart sent, in progress and expired claims', async () => {
      // Prepare: among 150 alerts, one sent, one claimed by another worker now, one claimed long ago.
      const { store, clock } = await setUp(createStore);
      const fingerprints = Array.from({ length: 150 }, () => unique('rule|group'));
      const [sent, busy, stale] = [fingerprints[10], fingerprints[120], fingerprints[140]] as [
        string,
        string,
        string,
      ];
      const sentClaim = await store.claimAlert({ fingerprint: sent, claimMs: MINUTE });
      if (sentClaim.outcome !== 'claimed') throw new Error('expected a claim');
      await store.markAlertSent({ claim: sentClaim.claim });
      await store.claimAlert({ fingerprint: stale, claimMs: MINUTE });
      clock.advance(2 * MINUTE);
      await store.claimAlert({ fingerprint: busy, claimMs: 5 * MINUTE });

      // Act
      const results = await store.claimAlerts({ fingerprints, claimMs: 3 * MINUTE });

      // Assess
      expect(results).toHaveLength(150);
      expect(results[10]).toMatchObject({ outcome: 'sent' });
      expect(results[120]).toEqual({ outcome: 'in-progress', claimExpiresAt: clock.now() + 5 * MINUTE });
      expect(results[140]).toMatchObject({ outcome: 'claimed', tookOver: true });
      const claimed = results.filter((result) => result.outcome === 'claimed');
      expect(claimed).toHaveLength(148);
      expect(claimed.filter((result) => result.tookOver)).toHaveLength(1);
      results.forEach((result, index) => {
        if (result.outcome === 'claimed') expect(result.claim.fingerprint).toBe(fingerprints[index]);
      });
      const again = await store.claimAlert({ fingerprint: fingerprints[0] as string, claimMs: MINUTE });
      expect(again.outcome).toBe('in-progress');
    });

    it('marks more claims than one transaction holds as sent', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const fingerprints = Array.from({ length: 130 }, () => unique('rule|group'));
      const results = await store.claimAlerts({ fingerprints, claimMs: MINUTE });
      const claims = results.flatMap((result) => (result.outcome === 'claimed' ? [result.claim] : []));

      // Act
      await store.markAlertsSent({ claims });

      // Assess
      expect(claims).toHaveLength(130);
      const after = await store.claimAlerts({ fingerprints, claimMs: MINUTE });
      expect(after.every((result) => result.outcome === 'sent')).toBe(true);
    });
  });

  describe(`${name}: alert records`, () => {
    it('claims an alert it has never seen', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');

      const result = await store.claimAlert({ fingerprint, claimMs: 2 * MINUTE });

      expect(result).toMatchObject({ outcome: 'claimed', tookOver: false });
      expect(result.outcome === 'claimed' && result.claim).toMatchObject({
        fingerprint,
        expiresAt: clock.now() + 2 * MINUTE,
      });
    });

    it('answers in progress, with the claim expiry, to a second claimant', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      await store.claimAlert({ fingerprint, claimMs: 2 * MINUTE });
      clock.advance(MINUTE);

      const second = await store.claimAlert({ fingerprint, claimMs: 2 * MINUTE });

      expect(second).toEqual({ outcome: 'in-progress', claimExpiresAt: clock.now() + MINUTE });
    });

    it('answers sent for an alert marked sent, so it is skipped', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const first = await store.claimAlert({ fingerprint, claimMs: MINUTE });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      const sentAt = clock.now();
      await store.markAlertSent({ claim: first.claim });
      clock.advance(10 * DAY);

      const again = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(again).toEqual({ outcome: 'sent', sentAt });
    });

    it('lets a claim past its expiry be taken over, and records sent from either claimant', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');

      const { first, second } = await claimThenTakeOver(store, clock, fingerprint);
      await store.markAlertSent({ claim: first });
      const third = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(second).toMatchObject({ outcome: 'claimed', tookOver: true });
      expect(second.outcome === 'claimed' && second.claim.token).not.toBe(first.token);
      expect(third).toMatchObject({ outcome: 'sent' });
    });

    it('keeps an alert sent by two claimants sent, at the time of the last record, in batches too', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const { first, second } = await claimThenTakeOver(store, clock, fingerprint);
      if (second.outcome !== 'claimed') throw new Error('expected a take-over');

      await store.markAlertsSent({ claims: [second.claim] });
      clock.advance(MINUTE);
      const lastSentAt = clock.now();
      await store.markAlertSent({ claim: first });
      clock.advance(DAY);
      const again = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(again).toEqual({ outcome: 'sent', sentAt: lastSentAt });
    });

    it('makes a released claim claimable again at once', async () => {
      const { store } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const first = await store.claimAlert({ fingerprint, claimMs: 10 * MINUTE });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');

      await store.releaseAlertClaim({ claim: first.claim });
      const again = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(again).toMatchObject({ outcome: 'claimed', tookOver: false });
    });

    it('ignores a release from a claimant whose claim was taken over', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const first = await store.claimAlert({ fingerprint, claimMs: MINUTE });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      clock.advance(2 * MINUTE);
      await store.claimAlert({ fingerprint, claimMs: 5 * MINUTE });

      await store.releaseAlertClaim({ claim: first.claim });
      const other = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(other).toMatchObject({ outcome: 'in-progress', claimExpiresAt: clock.now() + 5 * MINUTE });
    });

    it('ignores a release of an alert already sent', async () => {
      const { store } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const first = await store.claimAlert({ fingerprint, claimMs: MINUTE });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await store.markAlertSent({ claim: first.claim });

      await store.releaseAlertClaim({ claim: first.claim });
      const again = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(again).toMatchObject({ outcome: 'sent' });
    });

    it('forgets a sent alert once its retention has passed', async () => {
      const { store, clock } = await setUp(createStore);
      const fingerprint = unique('rule|group');
      const first = await store.claimAlert({ fingerprint, claimMs: MINUTE });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await store.markAlertSent({ claim: first.claim });
      clock.advance(30 * DAY);

      const again = await store.claimAlert({ fingerprint, claimMs: MINUTE });

      expect(again).toMatchObject({ outcome: 'claimed', tookOver: false });
    });
  });

  describe(`${name}: rule counters`, () => {
    const window = {
      now: Date.UTC(2025, 5, 1, 12, 0, 0),
      expiresAt: Date.UTC(2025, 5, 1, 12, 10, 0),
      limit: 5,
    };

    it('counts distinct members, not calls', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');

      const counts = [
        await store.increment(key, 'event-a', window),
        await store.increment(key, 'event-b', window),
        await store.increment(key, 'event-a', window),
      ];

      expect(counts).toEqual([1, 2, 2]);
      expect(await store.get(key, window.now)).toBe(2);
    });

    it('stores no member past the limit and answers limit + 1 for a new one', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      const options = { ...window, limit: 2 };
      await store.increment(key, 'a', options);
      await store.increment(key, 'b', options);

      const overflow = await store.increment(key, 'c', options);
      const overflowAgain = await store.increment(key, 'c', options);
      const known = await store.increment(key, 'a', options);

      expect([overflow, overflowAgain, known]).toEqual([3, 3, 2]);
      expect(await store.get(key, window.now)).toBe(2);
    });

    it('stores nothing under a limit of zero', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');

      const count = await store.increment(key, 'a', { ...window, limit: 0 });

      expect(count).toBe(1);
      expect(await store.get(key, window.now)).toBe(0);
    });

    it('starts an expired key again, with the new expiry', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      await store.increment(key, 'a', window);
      await store.increment(key, 'b', window);
      const later = { ...window, now: window.expiresAt, expiresAt: window.expiresAt + 10 * MINUTE };

      const before = await store.get(key, window.expiresAt - 1);
      const atExpiry = await store.get(key, window.expiresAt);
      const restarted = await store.increment(key, 'a', later);

      expect([before, atExpiry, restarted]).toEqual([2, 0, 1]);
      expect(await store.get(key, later.expiresAt - 1)).toBe(1);
      expect(await store.get(key, later.expiresAt)).toBe(0);
    });

    it('keeps the expiry a live key was created with', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      await store.increment(key, 'a', window);

      await store.increment(key, 'b', {
        ...window,
        now: window.now + MINUTE,
        expiresAt: window.expiresAt + MINUTE,
      });

      expect(await store.get(key, window.expiresAt - 1)).toBe(2);
      expect(await store.get(key, window.expiresAt)).toBe(0);
    });

    it('counts at event times in the past, and keeps the key while its window lasts on the wall clock', async () => {
      const { store, clock } = await setUp(createStore);
      const key = unique('rule|user');
      const backfill = {
        now: clock.now() - 30 * DAY,
        expiresAt: clock.now() - 30 * DAY + 10 * MINUTE,
        limit: 5,
      };
      await store.increment(key, 'a', backfill);
      clock.advance(5 * MINUTE);

      const count = await store.increment(key, 'b', { ...backfill, now: backfill.now + MINUTE });

      expect(count).toBe(2);
      expect(await store.get(key, backfill.now + 2 * MINUTE)).toBe(2);
    });

    it('treats a counter whose wall-clock lifetime has passed as absent, even inside its window', async () => {
      const { store, clock } = await setUp(createStore);
      const key = unique('rule|user');
      const backfill = {
        now: clock.now() - 30 * DAY,
        expiresAt: clock.now() - 30 * DAY + 10 * MINUTE,
        limit: 5,
      };
      await store.increment(key, 'a', backfill);
      clock.advance(2 * DAY);

      const count = await store.get(key, backfill.now + MINUTE);
      const restarted = await store.increment(key, 'b', { ...backfill, now: backfill.now + MINUTE });

      expect([count, restarted]).toEqual([0, 1]);
    });

    it('answers 0 for a key it never saw', async () => {
      const { store } = await setUp(createStore);

      expect(await store.get(unique('rule|user'), window.now)).toBe(0);
    });

    it('counts empty, long and unusual members as distinct', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      const members = ['', 'x'.repeat(500), 'x'.repeat(501), 'ünïcödé <!channel>', '#hash'];

      const counts = [];
      for (const member of [...members, ...members])
        counts.push(await store.increment(key, member, { ...window, limit: 10 }));

      expect(counts).toEqual([1, 2, 3, 4, 5, 5, 5, 5, 5, 5]);
    });

    it('keeps keys apart, long keys included', async () => {
      const { store } = await setUp(createStore);
      const prefix = unique('rule');
      const longKey = `${prefix}|${'g'.repeat(3_000)}`;
      await store.increment(`${prefix}|one`, 'a', window);
      await store.increment(longKey, 'a', window);
      await store.increment(longKey, 'b', window);

      expect(await store.get(`${prefix}|one`, window.now)).toBe(1);
      expect(await store.get(longKey, window.now)).toBe(2);
      expect(await store.get(`${longKey}g`, window.now)).toBe(0);
    });
  });

  describe(`${name}: distinct-count windows`, () => {
    const pack = parseRulePack({
      sources: [
        {
          file: 'spray.yaml',
          text: [
            'rules:',
            '  - id: spray',
            '    name: Many user names from one address',
            '    severity: high',
            '    match: { eventTypeName: DATA_EXPLORER }',
            '    group_by: [remoteAddress]',
            '    distinct_count: { field: username, count: 5, window: 10m }',
            "    title: '{{remoteAddress}} tried many user names'",
          ].join('\n'),
        },
      ],
    });
    /** A window of the engine's clock, ten minutes from an aligned start. */
    const start = Date.UTC(2025, 5, 1, 12, 0, 0);

    function attempts(address: string, names: readonly string[], at = start): AtlasEvent[] {
      return names.map((username, index) => ({
        id: `${address}/${index}`,
        eventTypeName: 'DATA_EXPLORER',
        remoteAddress: address,
        username,
        created: new Date(at + index * 1_000).toISOString(),
      }));
    }

    it('alerts once when a group reaches the count, keeps that many values, and a new engine raises the same alert on a re-read', async () => {
      // Prepare: names the store keeps as they are and names it keeps as hashes, all distinct.
      const { store } = await setUp(createStore);
      const address = unique('203.0.113.9');
      const names = [
        'alice',
        '#alice',
        'ünïcödé <!channel>',
        'x'.repeat(500),
        'x'.repeat(501),
        'late',
        'alice',
      ];
      const batch = attempts(address, names);

      // Act
      const first = await createRuleEngine({ pack, counters: store }).evaluate(batch);
      const again = await createRuleEngine({ pack, counters: store }).evaluate(batch);

      // Assess
      expect(first.map((alert) => alert.events.at(-1)?.username)).toEqual(['x'.repeat(501)]);
      expect(again.map((alert) => alert.fingerprint)).toEqual(first.map((alert) => alert.fingerprint));
      expect(await store.get(`distinct|spray|${address}|${start}`, start)).toBe(5);
    });

    it('forgets a window once its wall-clock lifetime has passed', async () => {
      const { store, clock } = await setUp(createStore);
      const address = unique('198.51.100.7');
      const past = start - 30 * DAY;
      await createRuleEngine({ pack, counters: store }).evaluate(attempts(address, ['a', 'b'], past));
      const key = `distinct|spray|${address}|${past}`;

      const held = await store.get(key, past + MINUTE);
      clock.advance(2 * DAY);
      const later = await store.get(key, past + MINUTE);

      expect([held, later]).toEqual([2, 0]);
    });
  });

  describe(`${name}: sequence steps`, () => {
    const pack = parseRulePack({
      sources: [
        {
          file: 'keys.yaml',
          text: [
            'rules:',
            '  - id: key-opened',
            '    name: API key created, then opened to the internet',
            '    severity: high',
            '    match: { eventTypeName: API_KEY_ACCESS_LIST_ENTRY_ADDED, whitelistEntry: 0.0.0.0/0 }',
            '    group_by: [apiKeyId]',
            '    sequence:',
            '      after: { eventTypeName: API_KEY_CREATED }',
            '      within: 10m',
            "    title: 'API key {{apiKeyId}} opened to the internet'",
          ].join('\n'),
        },
      ],
    });
    const start = Date.UTC(2025, 5, 1, 12, 0, 0);
    const keyEvent = (id: string, apiKeyId: string, at: number, opened: boolean): AtlasEvent => ({
      id,
      eventTypeName: opened ? 'API_KEY_ACCESS_LIST_ENTRY_ADDED' : 'API_KEY_CREATED',
      apiKeyId,
      ...(opened ? { whitelistEntry: '0.0.0.0/0' } : {}),
      created: new Date(at).toISOString(),
    });
    const engineOn = (store: StateStore) => createRuleEngine({ pack, counters: store, firstSeen: store });

    it('finds in a new engine the earlier step of the last tick, names it, and raises the same alert on a re-read', async () => {
      const { store } = await setUp(createStore);
      const apiKeyId = unique('key');
      const createdId = unique('created');
      await engineOn(store).evaluate([keyEvent(createdId, apiKeyId, start, false)]);
      const later = [keyEvent(unique('opened'), apiKeyId, start + 9 * MINUTE, true)];

      const first = await engineOn(store).evaluate(later);
      const again = await engineOn(store).evaluate(later);
      const outside = await engineOn(store).evaluate([
        keyEvent(unique('late'), apiKeyId, start + 10 * MINUTE, true),
      ]);

      expect(first.map((alert) => alert.events[0])).toEqual([
        { id: createdId, created: new Date(start).toISOString() },
      ]);
      expect(again.map((alert) => alert.fingerprint)).toEqual(first.map((alert) => alert.fingerprint));
      expect(outside).toEqual([]);
    });

    it('forgets a group once its wall-clock lifetime has passed', async () => {
      const { store, clock } = await setUp(createStore);
      const apiKeyId = unique('key');
      const past = start - 30 * DAY;
      await engineOn(store).evaluate([keyEvent(unique('created'), apiKeyId, past, false)]);
      const later = [keyEvent(unique('opened'), apiKeyId, past + MINUTE, true)];

      const held = await engineOn(store).evaluate(later);
      clock.advance(2 * DAY);
      const gone = await engineOn(store).evaluate(later);

      expect([held.length, gone.length]).toEqual([1, 0]);
    });
  });

  describe(`${name}: rule counters in batches`, () => {
    const window = {
      now: Date.UTC(2025, 5, 1, 12, 0, 0),
      expiresAt: Date.UTC(2025, 5, 1, 12, 10, 0),
      limit: 5,
    };

    it('answers a batch exactly as calls one after another would, over keys, limits and windows', async () => {
      // Prepare: seeded increments, with windows that end and start again inside a batch; the
      // in-memory store, counting them call by call, is the reference.
      const { store, clock } = await setUp(createStore);
      const reference = new MemoryCounterStore();
      const next = createPrng(20_261_124);
      const prefix = unique('rule');
      const increments = Array.from({ length: 240 }, (_, at) => {
        const start = window.now + Math.floor(at / 40) * 4 * MINUTE;
        return {
          key: `${prefix}|k${Math.floor(next() * 6)}`,
          member: `event-${Math.floor(next() * 30)}`,
          now: start + Math.floor(next() * MINUTE),
          expiresAt: start + 2 * MINUTE + Math.floor(next() * 3 * MINUTE),
          limit: 1 + Math.floor(next() * 8),
        };
      });

      // Act
      const oneByOne: number[] = [];
      for (const { key, member, ...options } of increments)
        oneByOne.push(await reference.increment(key, member, options));
      const inBatches: number[] = [];
      for (let at = 0; at < increments.length; at += 40) {
        inBatches.push(...(await store.incrementMany(increments.slice(at, at + 40))));
        clock.advance(MINUTE);
      }

      // Assess
      const keys = [...new Set(increments.map((entry) => entry.key))];
      const last = increments[increments.length - 1]?.now ?? 0;
      const sizes = (counters: CounterStore) => Promise.all(keys.map((key) => counters.get(key, last)));
      expect(inBatches).toEqual(oneByOne);
      expect(oneByOne.filter((count) => count === 1).length).toBeGreaterThan(6);
      expect(oneByOne.some((count, at) => count > (increments[at]?.limit ?? 0))).toBe(true);
      expect(await sizes(store)).toEqual(await sizes(reference));
    });

    it('counts a batch read again nothing twice', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      const batch = ['a', 'b', 'a', 'c'].map((member) => ({ key, member, ...window }));

      const first = await store.incrementMany(batch);
      const again = await store.incrementMany(batch);

      expect(first).toEqual([1, 2, 2, 3]);
      expect(again).toEqual([3, 3, 3, 3]);
      expect(await store.get(key, window.now)).toBe(3);
    });

    it('keeps the limit inside a batch and across batches', async () => {
      const { store } = await setUp(createStore);
      const key = unique('rule|user');
      const options = { ...window, limit: 3 };

      const first = await store.incrementMany(
        ['a', 'b', 'c', 'd', 'a'].map((member) => ({ key, member, ...options })),
      );
      const second = await store.incrementMany(['e', 'c'].map((member) => ({ key, member, ...options })));

      expect(first).toEqual([1, 2, 3, 4, 3]);
      expect(second).toEqual([4, 3]);
      expect(await store.get(key, window.now)).toBe(3);
    });

    it('starts a key again inside a batch once its window has ended, with the new expiry', async () => {
      const { store } = await setUp(createStore);
      const key = unique('suppress|group');
      const at = (offset: number, member: string) => ({
        key,
        member,
        now: window.now + offset,
        expiresAt: window.now + offset + 10 * MINUTE,
        limit: 1,
      });

      const counts = await store.incrementMany([
        at(0, 'first'),
        at(5 * MINUTE, 'second'),
        at(10 * MINUTE, 'third'),
        at(15 * MINUTE, 'fourth'),
      ]);

      expect(counts).toEqual([1, 2, 1, 2]);
      expect(await store.get(key, window.now + 20 * MINUTE - 1)).toBe(1);
      expect(await store.get(key, window.now + 20 * MINUTE)).toBe(0);
    });

    it('starts again a key whose wall-clock lifetime has passed, even inside its window', async () => {
      const { store, clock } = await setUp(createStore);
      const key = unique('rule|user');
      const backfill = {
        key,
        now: clock.now() - 30 * DAY,
        expiresAt: clock.now() - 30 * DAY + 10 * MINUTE,
        limit: 5,
      };
      await store.incrementMany([
        { ...backfill, member: 'a' },
        { ...backfill, member: 'b' },
      ]);
      clock.advance(2 * DAY);

      const counts = await store.incrementMany([
        { ...backfill, member: 'a' },
        { ...backfill, member: 'c' },
      ]);

      expect(counts).toEqual([1, 2]);
    });

    it('answers an empty batch with no answers', async () => {
      const { store } = await setUp(createStore);

      expect(await store.incrementMany([])).toEqual([]);
    });
  });

  describe(`${name}: inventory snapshots`, () => {
    it('returns nothing for an organization never snapshotted', async () => {
      const { store } = await setUp(createStore);

      expect(await store.readInventory({ orgId: atlasId() })).toBeUndefined();
    });

    it('round-trips a snapshot without any privateKey', async () => {
      const { store, clock } = await setUp(createStore);
      const orgId = atlasId();
      const taken = snapshot(orgId, clock.now());

      const written = await store.writeInventory({ snapshot: taken });
      const read = await store.readInventory({ orgId });

      expect(written).toBe(true);
      expect(read).toEqual(withoutSecrets(taken));
      expect(JSON.stringify(read)).not.toContain('fake-private-key-for-tests');
      expect(taken.apiKeys[0]?.apiKey.privateKey).toBe('fake-private-key-for-tests');
    });

    it('round-trips when each posture problem was first found', async () => {
      const { store, clock } = await setUp(createStore);
      const orgId = atlasId();
      const openFindings = {
        [`org/${orgId}/api-key/k1/access-list/0.0.0.0%2F0`]: {
          foundAt: clock.now() - DAY,
          preExisting: true as const,
        },
        [`org/${orgId}/api-key/k2/owner-without-access-list`]: { foundAt: clock.now() },
      };

      await store.writeInventory({ snapshot: { ...snapshot(orgId, clock.now()), openFindings } });
      const read = await store.readInventory({ orgId });

      expect(read?.openFindings).toEqual(openFindings);
    });

    it('round-trips a snapshot of 1,000 keys', async () => {
      const { store, clock } = await setUp(createStore);
      const orgId = atlasId();
      const taken = snapshot(orgId, clock.now(), 1_000);

      await store.writeInventory({ snapshot: taken });
      const read = await store.readInventory({ orgId });

      expect(read?.apiKeys).toHaveLength(1_000);
      expect(read).toEqual(withoutSecrets(taken));
    });

    it('replaces a snapshot with a newer one, and keeps the newer one when an older one comes late', async () => {
      const { store, clock } = await setUp(createStore);
      const orgId = atlasId();
      const older = snapshot(orgId, clock.now(), 1);
      const newer = snapshot(orgId, clock.now() + MINUTE, 3);
      await store.writeInventory({ snapshot: older });

      const newerWritten = await store.writeInventory({ snapshot: newer });
      const olderWritten = await store.writeInventory({ snapshot: older });
      const read = await store.readInventory({ orgId });

      expect([newerWritten, olderWritten]).toEqual([true, false]);
      expect(read?.takenAt).toBe(newer.takenAt);
      expect(read?.apiKeys).toHaveLength(3);
    });

    it('forgets a snapshot past its retention', async () => {
      const { store, clock } = await setUp(createStore);
      const orgId = atlasId();
      await store.writeInventory({ snapshot: snapshot(orgId, clock.now()) });
      clock.advance(90 * DAY);

      expect(await store.readInventory({ orgId })).toBeUndefined();
    });
  });

  describe(`${name}: names for alerts`, () => {
    it('returns the names written, and nothing for keys never written', async () => {
      const { store, clock } = await setUp(createStore);
      const org = `org:${atlasId()}`;
      const project = `project:${atlasId()}`;
      const expiresAt = clock.now() + DAY;

      await store.writeNames({
        names: [
          { key: org, name: 'Acme Corp', resolvedAt: clock.now(), expiresAt },
          { key: project, name: 'payments-prod', resolvedAt: clock.now(), expiresAt },
        ],
      });
      const read = await store.readNames({ keys: [org, project, `project:${atlasId()}`] });

      expect([...read.values()].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: org, name: 'Acme Corp', resolvedAt: clock.now(), expiresAt },
        { key: project, name: 'payments-prod', resolvedAt: clock.now(), expiresAt },
      ]);
    });

    it('replaces a name written again under the same key', async () => {
      const { store, clock } = await setUp(createStore);
      const key = `project:${atlasId()}`;
      await store.writeNames({
        names: [{ key, name: 'old-name', resolvedAt: clock.now(), expiresAt: clock.now() + DAY }],
      });

      await store.writeNames({
        names: [{ key, name: 'new-name', resolvedAt: clock.now(), expiresAt: clock.now() + DAY }],
      });

      expect((await store.readNames({ keys: [key] })).get(key)?.name).toBe('new-name');
    });

    it('forgets a name at its expiry, on its own clock', async () => {
      const { store, clock } = await setUp(createStore);
      const key = `org:${atlasId()}`;
      await store.writeNames({
        names: [{ key, name: 'Acme Corp', resolvedAt: clock.now(), expiresAt: clock.now() + 10 * MINUTE }],
      });

      clock.advance(10 * MINUTE - 1);
      const before = await store.readNames({ keys: [key] });
      clock.advance(1);
      const after = await store.readNames({ keys: [key] });

      expect(before.has(key)).toBe(true);
      expect(after.has(key)).toBe(false);
    });

    it('reads 150 names in one call', async () => {
      const { store, clock } = await setUp(createStore);
      const keys = Array.from({ length: 150 }, () => `project:${atlasId()}`);
      await store.writeNames({
        names: keys.map((key, index) => ({
          key,
          name: `project-${index}`,
          resolvedAt: clock.now(),
          expiresAt: clock.now() + DAY,
        })),
      });

      const read = await store.readNames({ keys });

      expect(read.size).toBe(150);
      expect(read.get(keys[149] ?? '')?.name).toBe('project-149');
    });
  });

  describe(`${name}: items within DynamoDB's 400 KB, whatever the values`, () => {
    it('keeps a name to its first 512 UTF-8 bytes, whole characters only', async () => {
      // Prepare
      const { store, clock } = await setUp(createStore);
      const key = `project:${atlasId()}`;

      // Act
      await store.writeNames({
        names: [{ key, name: '漢'.repeat(200_000), resolvedAt: clock.now(), expiresAt: clock.now() + DAY }],
      });
      const read = await store.readNames({ keys: [key] });

      // Assess
      expect(read.get(key)?.name).toBe('漢'.repeat(170));
    });

    it('counts a full threshold window of 5,000 members of 64 CJK characters each', async () => {
      // Prepare
      const { store } = await setUp(createStore);
      const key = unique('threshold');
      const increments = Array.from({ length: 5_000 }, (_, at) => ({
        key,
        member: `${'漢'.repeat(58)}${String(at).padStart(6, '0')}`,
        now: Date.UTC(2025, 5, 1, 12, 0, 0),
        expiresAt: Date.UTC(2025, 5, 1, 13, 0, 0),
        limit: 5_000,
      }));

      // Act
      const counted = await store.incrementMany(increments);
      const { now, expiresAt, limit } = increments[0] as (typeof increments)[number];
      const again = await store.increment(key, 'one more', { now, expiresAt, limit });

      // Assess
      expect(counted.at(-1)).toBe(5_000);
      expect(again).toBe(5_001);
    });

    it('commits a cursor at its largest: 30,000 seen ids, an error of 1,000 three-byte characters, a day of alert counts', async () => {
      // Prepare
      const { store, clock } = await setUp(createStore);
      const source = unique('org');
      const seenIds = Array.from({ length: 30_000 }, atlasId);
      let held = await acquire(store, source, 'w'.repeat(200));
      for (let hour = 0; hour < 25; hour += 1) {
        const last = hour === 24;
        await store.commitCursor({
          lease: held.lease,
          watermark: hour,
          seenIds: last ? seenIds : [],
          alertsSent: 1_000_000,
        });
        clock.advance(60 * MINUTE);
        held = await acquire(store, source, 'w'.repeat(200));
      }

      // Act
      await store.releaseLease({
        lease: held.lease,
        polled: true,
        error: { code: 'E'.repeat(80), message: '漢'.repeat(5_000) },
      });
      const reports = await store.listSourceReports();

      // Assess
      const report = reports.find((entry) => entry.source === source);
      expect(report?.lastError?.message).toBe('漢'.repeat(1_000));
      expect((await acquire(store, source)).cursor?.seenIds.size).toBe(30_000);
    });
  });

  describe(`${name}: statistics`, () => {
    it('counts its requests, and starts again from zero when reset', async () => {
      const { store } = await setUp(createStore);
      const source = unique('org');
      const held = await acquire(store, source);
      await store.commitCursor({ lease: held.lease, watermark: 1, seenIds: [] });

      const counted = store.stats();
      store.resetStats();

      expect(counted.total).toBeGreaterThanOrEqual(2);
      expect(Object.values(counted.requests).reduce((sum, count) => sum + count, 0)).toBe(counted.total);
      expect(store.stats()).toEqual({ requests: {}, total: 0 });
    });
  });
}
