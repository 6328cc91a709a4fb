import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStateTable,
  type DigestEntry,
  type DigestStore,
  DynamoDbStateStore,
  FileStateStore,
} from '../../shared/state/index.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { ManualClock } from './manual-clock.js';

const MINUTE = 60_000;
const folder = mkdtempSync(join(tmpdir(), 'digest-store-'));
let client: DynamoDBClient;
const tableName = `digests-${randomUUID()}`;

beforeAll(async () => {
  client = createDynamoDbLocalClient(await dynamoDbLocalEndpoint());
  await createStateTable({ client, tableName, timeToLive: false });
});

afterAll(() => {
  client?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

type Store = DigestStore & { close(): Promise<void> };
/** Opens a store; the same `path` opens the same state again (the file store's file). */
type Open = (clock: ManualClock, path: string) => Promise<Store>;

const stores: Array<[string, Open]> = [
  ['DynamoDbStateStore', async (clock) => new DynamoDbStateStore({ client, tableName, clock })],
  ['FileStateStore', (clock, path) => FileStateStore.open({ path, clock })],
];

function entry(n: number, overrides: Partial<DigestEntry> = {}): DigestEntry {
  return {
    fingerprint: `rule-a#event-${n}`,
    ruleId: 'rule-a',
    ruleName: 'Rule A',
    severity: 'low',
    raisedAt: Date.UTC(2025, 5, 1, 10, 0, n % 60),
    title: `Alert ${n}`,
    groupId: '5f4e3d2c1b0a998877665544',
    actor: 'alice@example.com',
    ...overrides,
  };
}

describe.each(stores)('%s digests', (_name, open) => {
  const path = (): string => join(folder, `${randomUUID()}.json`);

  it('keeps one entry per fingerprint, reads them oldest first, and lists the period as pending', async () => {
    const route = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());

    const refused = await store.appendDigestEntries({
      route,
      period: 'daily:2025-06-01',
      entries: [entry(3), entry(1)],
    });
    await store.appendDigestEntries({
      route,
      period: 'daily:2025-06-01',
      entries: [entry(1, { title: 'Alert 1 again' })],
    });
    const entries = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
    const periods = await store.listDigestPeriods({ route });
    await store.close();

    expect(refused).toEqual([]);
    expect(entries.map((e) => e.title)).toEqual(['Alert 1 again', 'Alert 3']);
    expect(periods).toEqual(['daily:2025-06-01']);
  });

  it('refuses entries for a claimed period, so they go to the next one', async () => {
    const route = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());
    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(1)] });

    const claim = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    const late = await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(2)] });
    const entries = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await store.close();

    expect(claim.outcome).toBe('claimed');
    expect(late.map((e) => e.fingerprint)).toEqual(['rule-a#event-2']);
    expect(entries.map((e) => e.fingerprint)).toEqual(['rule-a#event-1']);
  });

  it('sends a digest once: a second claim sees it in progress, then sent, and its entries are gone', async () => {
    const route = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());
    await store.appendDigestEntries({ route, period: 'hourly:2025-06-01T10', entries: [entry(1)] });

    const first = await store.claimDigest({ route, period: 'hourly:2025-06-01T10', claimMs: MINUTE });
    const second = await store.claimDigest({ route, period: 'hourly:2025-06-01T10', claimMs: MINUTE });
    if (first.outcome !== 'claimed') throw new Error('expected a claim');
    await store.markDigestSent({ claim: first.claim });
    const third = await store.claimDigest({ route, period: 'hourly:2025-06-01T10', claimMs: MINUTE });
    const entries = await store.readDigestEntries({ route, period: 'hourly:2025-06-01T10' });
    const periods = await store.listDigestPeriods({ route });
    await store.close();

    expect(second.outcome).toBe('in-progress');
    expect(third.outcome).toBe('sent');
    expect(entries).toEqual([]);
    expect(periods).toEqual([]);
  });

  it('keeps the entries of a released claim, and lets the period be claimed and appended to again', async () => {
    const route = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());
    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(1)] });
    const first = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    if (first.outcome !== 'claimed') throw new Error('expected a claim');

    await store.releaseDigestClaim({ claim: first.claim });
    const appended = await store.appendDigestEntries({
      route,
      period: 'daily:2025-06-01',
      entries: [entry(2)],
    });
    const again = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    const entries = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await store.close();

    expect(appended).toEqual([]);
    expect(again).toMatchObject({ outcome: 'claimed', tookOver: false });
    expect(entries.map((e) => e.fingerprint)).toEqual(['rule-a#event-1', 'rule-a#event-2']);
  });

  it('takes over a claim past its expiry, and ignores the release of the claim taken over', async () => {
    const route = `r-${randomUUID()}`;
    const clock = new ManualClock();
    const store = await open(clock, path());
    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(1)] });
    const first = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    if (first.outcome !== 'claimed') throw new Error('expected a claim');

    clock.advance(MINUTE);
    const second = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    await store.releaseDigestClaim({ claim: first.claim });
    const third = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    await store.close();

    expect(second).toMatchObject({ outcome: 'claimed', tookOver: true });
    expect(third.outcome).toBe('in-progress');
  });

  it('keeps routes and periods apart, and lists pending periods oldest first', async () => {
    const route = `r-${randomUUID()}`;
    const other = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());

    await store.appendDigestEntries({ route, period: 'daily:2025-06-02', entries: [entry(2)] });
    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(1)] });
    await store.appendDigestEntries({ route: other, period: 'daily:2025-06-01', entries: [entry(9)] });
    const periods = await store.listDigestPeriods({ route });
    const first = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await store.close();

    expect(periods).toEqual(['daily:2025-06-01', 'daily:2025-06-02']);
    expect(first.map((e) => e.fingerprint)).toEqual(['rule-a#event-1']);
  });

  it('keeps more entries than one transaction holds, with their facts whole and long texts cut', async () => {
    const route = `r-${randomUUID()}`;
    const store = await open(new ManualClock(), path());
    const entries = Array.from({ length: 230 }, (_, n) =>
      entry(n, { raisedAt: Date.UTC(2025, 5, 1, 10) + n, rollUp: { suppressed: 2, first: 1, last: 2 } }),
    );
    entries[0] = { ...(entries[0] as DigestEntry), actor: 'x'.repeat(5_000) };

    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries });
    const read = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await store.close();

    expect(read).toHaveLength(230);
    expect(read[0]?.actor).toHaveLength(256);
    expect(read[229]).toEqual(entries[229]);
  });

  it('finds pending entries and claims again after the store is opened anew', async () => {
    const route = `r-${randomUUID()}`;
    const file = path();
    const clock = new ManualClock();
    const store = await open(clock, file);
    await store.appendDigestEntries({ route, period: 'daily:2025-06-01', entries: [entry(1)] });
    const first = await store.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    await store.close();

    const reopened = await open(clock, file);
    const second = await reopened.claimDigest({ route, period: 'daily:2025-06-01', claimMs: MINUTE });
    const read = await reopened.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await reopened.close();

    expect(first.outcome).toBe('claimed');
    expect(second.outcome).toBe('in-progress');
    expect(read.map((e) => e.fingerprint)).toEqual(['rule-a#event-1']);
  });
});
