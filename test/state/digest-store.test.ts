import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateKeys } from '../../shared/state/dynamodb-keys.js';
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

/**
 * Writes stored entries that are not ones this program wrote into a pending digest, as a damaged table
 * or state file would hold them: `json` values, and `text` that is not JSON at all.
 */
type Damage = (
  path: string,
  at: { route: string; period: string },
  bad: { json: unknown[]; text: string[] },
) => Promise<void>;

const damageTable: Damage = async (_path, { route, period }, bad) => {
  const rows = [...bad.json.map((value) => JSON.stringify(value)), ...bad.text];
  for (const [n, entry] of rows.entries()) {
    const key = stateKeys.digestEntry(route, period, `damaged#${n}`);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: key.pk }, sk: { S: key.sk }, entry: { S: entry }, expiresAt: { N: '4102444800' } },
      }),
    );
  }
};

const damageFile: Damage = async (path, { route, period }, bad) => {
  // The file holds entries as JSON values; text that is not JSON stands there as a string.
  const document = JSON.parse(readFileSync(path, 'utf8')) as {
    digests: Array<{ route: string; period: string; entries: unknown[] }>;
  };
  const digest = document.digests.find((d) => d.route === route && d.period === period);
  digest?.entries.push(...bad.json, ...bad.text);
  writeFileSync(path, JSON.stringify(document));
};

const stores: Array<[string, Open, Damage]> = [
  ['DynamoDbStateStore', async (clock) => new DynamoDbStateStore({ client, tableName, clock }), damageTable],
  ['FileStateStore', (clock, path) => FileStateStore.open({ path, clock }), damageFile],
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

describe.each(stores)('%s digests', (_name, open, damage) => {
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
    const { entries } = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
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
    const { entries } = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
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
    const { entries } = await store.readDigestEntries({ route, period: 'hourly:2025-06-01T10' });
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
    const { entries } = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
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
    const { entries: first } = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
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
    const { entries: read } = await store.readDigestEntries({ route, period: 'daily:2025-06-01' });
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
    const { entries: read } = await reopened.readDigestEntries({ route, period: 'daily:2025-06-01' });
    await reopened.close();

    expect(first.outcome).toBe('claimed');
    expect(second.outcome).toBe('in-progress');
    expect(read.map((e) => e.fingerprint)).toEqual(['rule-a#event-1']);
  });
  it('leaves out an entry it did not write, says where and why without its text, and drops it with the sent digest', async () => {
    // Prepare
    const route = `r-${randomUUID()}`;
    const period = 'daily:2025-06-01';
    const file = path();
    const clock = new ManualClock();
    const store = await open(clock, file);
    await store.appendDigestEntries({ route, period, entries: [entry(2), entry(1)] });
    await store.close();
    await damage(
      file,
      { route, period },
      {
        json: [{ ...entry(3), severity: 'urgent', title: 'hunter2-from-an-event' }, { fingerprint: 7 }],
        text: ['{"title": "hunter2-cut-off'],
      },
    );

    // Act
    const reopened = await open(clock, file);
    const read = await reopened.readDigestEntries({ route, period });
    const pending = await reopened.listDigestPeriods({ route });
    await reopened.appendDigestEntries({ route, period, entries: [entry(4)] });
    await reopened.close();
    const written = await open(clock, file);
    const again = await written.readDigestEntries({ route, period });
    const claimed = await written.claimDigest({ route, period, claimMs: MINUTE });
    if (claimed.outcome !== 'claimed') throw new Error('expected a claim');
    await written.markDigestSent({ claim: claimed.claim });
    await written.close();
    const last = await open(clock, file);
    const afterSent = await last.readDigestEntries({ route, period });
    const periodsAfter = await last.listDigestPeriods({ route });
    await last.close();

    // Assess
    expect(read.entries.map((e) => e.fingerprint)).toEqual(['rule-a#event-1', 'rule-a#event-2']);
    expect(read.unreadable).toHaveLength(3);
    for (const problem of read.unreadable) {
      expect(problem).toMatch(/is not one this program wrote .*: it is left out of the digest$/);
      expect(problem).toContain(period);
      expect(problem).not.toContain('hunter2');
    }
    expect(pending).toEqual([period]);
    // Kept as stored while the digest is pending, so a write in between (and the file it rewrites) loses nothing.
    expect(again.entries).toHaveLength(3);
    expect(again.unreadable).toHaveLength(3);
    expect(afterSent).toEqual({ entries: [], unreadable: [] });
    expect(periodsAfter).toEqual([]);
  });
});
