import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Logger } from '../../shared/logger.js';
import {
  FileStateStore,
  StateFileCorruptError,
  StateFileLockedError,
  StateStoreClosedError,
} from '../../shared/state/index.js';
import { ManualClock } from './manual-clock.js';
import { atlasId, describeStateStoreContract } from './state-store.contract.js';
import { describeSuppressionContract } from './suppression.contract.js';

let directory: string;
let files = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'file-state-store-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function statePath(): string {
  files += 1;
  return join(directory, `case-${files}`, 'state.json');
}

async function openStore(
  path: string,
  options: { clock?: ManualClock; logger?: Logger } = {},
): Promise<FileStateStore> {
  const store = await FileStateStore.open({ path, ...options });
  onTestFinished(() => store.close());
  return store;
}

function recordingLogger(): Logger & {
  warnings: Array<{ message: string; attributes?: Record<string, unknown> }>;
} {
  const warnings: Array<{ message: string; attributes?: Record<string, unknown> }> = [];
  return {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (message, attributes) => {
      warnings.push(attributes === undefined ? { message } : { message, attributes });
    },
    error: () => {},
  };
}

async function spawnIdleProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return child;
}

async function pidOfFinishedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  if (child.pid === undefined) throw new Error('the child process has no pid');
  return child.pid;
}

describeStateStoreContract('FileStateStore', ({ clock }) =>
  FileStateStore.open({ path: statePath(), clock }),
);

describeSuppressionContract('FileStateStore', {
  create: async ({ clock }) => {
    const path = statePath();
    const store = await FileStateStore.open({ path, clock });
    reopenable.set(store, path);
    onTestFinished(() => store.close());
    return store;
  },
  // The file is locked while a store holds it: the same state is read again after closing it.
  reopen: async (store, { clock }) => {
    const path = reopenable.get(store) as string;
    await (store as FileStateStore).close();
    const again = await FileStateStore.open({ path, clock });
    onTestFinished(() => again.close());
    return again;
  },
});
const reopenable = new WeakMap<object, string>();

describe('FileStateStore', () => {
  it('keeps its state across close and open', async () => {
    const path = statePath();
    const clock = new ManualClock();
    const first = await FileStateStore.open({ path, clock });
    const held = await first.acquireLease({ source: 'org:a', owner: 'cli', durationMs: 60_000 });
    if (!held.acquired) throw new Error('expected the lease');
    const id = atlasId();
    await first.commitCursor({ lease: held.lease, watermark: 42, seenIds: [id] });
    await first.increment('rule|alice', 'event-1', { now: 0, expiresAt: clock.now() + 60_000, limit: 5 });
    await first.close();

    const second = await openStore(path, { clock });
    const again = await second.acquireLease({ source: 'org:a', owner: 'cli', durationMs: 60_000 });

    expect(again.acquired && again.cursor?.watermark).toBe(42);
    expect(again.acquired && again.cursor?.seenIds.has(id)).toBe(true);
    expect(await second.get('rule|alice', 1)).toBe(1);
  });

  it('writes the file once for a batch of counter increments, and not at all when nothing changed', async () => {
    // Prepare
    const path = statePath();
    const clock = new ManualClock();
    const store = await openStore(path, { clock });
    const window = { now: 0, expiresAt: clock.now() + 60_000, limit: 3 };
    const batch = ['a', 'b', 'c', 'd'].flatMap((member) => [
      { key: 'threshold|alice', member, ...window },
      { key: 'threshold|bob', member, ...window },
    ]);

    // Act
    const counts = await store.incrementMany(batch);
    const firstWrites = store.stats().requests.fileWrite;
    store.resetStats();
    const again = await store.incrementMany(batch);
    const stored = JSON.parse(await readFile(path, 'utf8')) as {
      counters: Array<{ key: string; members: string[] }>;
    };

    // Assess
    expect(counts).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
    expect(again).toEqual([3, 3, 3, 3, 3, 3, 4, 4]);
    expect(firstWrites).toBe(1);
    expect(store.stats().requests).toEqual({ incrementMany: 1 });
    expect(stored.counters.map((counter) => [counter.key, counter.members])).toEqual([
      ['threshold|alice', ['a', 'b', 'c']],
      ['threshold|bob', ['a', 'b', 'c']],
    ]);
  });

  it('refuses a second store on the same file, naming the file and the pid', async () => {
    const path = statePath();
    await openStore(path);

    const second = FileStateStore.open({ path });

    await expect(second).rejects.toBeInstanceOf(StateFileLockedError);
    await expect(second).rejects.toMatchObject({ code: 'STATE_FILE_LOCKED', path, pid: process.pid });
    await expect(second).rejects.toThrow(`state file ${path} is in use by this process (pid ${process.pid})`);
  });

  it('refuses a file locked by another running process', async () => {
    const path = statePath();
    const holder = await spawnIdleProcess();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: holder.pid, hostname: hostname(), token: 'other-run' }),
    );

    const opening = FileStateStore.open({ path });

    await expect(opening).rejects.toMatchObject({ code: 'STATE_FILE_LOCKED', pid: holder.pid });
    await expect(opening).rejects.toThrow(`in use by process ${holder.pid}`);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({ token: 'other-run' });
  });

  it('takes over the lock of a process that no longer runs, with a warning', async () => {
    const path = statePath();
    const stalePid = await pidOfFinishedProcess();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: stalePid, hostname: hostname(), token: 'crashed-run' }),
    );
    const logger = recordingLogger();

    const store = await openStore(path, { logger });

    expect(store.path).toBe(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(logger.warnings).toEqual([
      expect.objectContaining({ attributes: expect.objectContaining({ path, stalePid }) }),
    ]);
  });

  it('takes over a lock that names its own pid but not a lock it holds: a container restarted as pid 1', async () => {
    // Prepare: what a killed pid 1 leaves for the next pid 1 of the same container.
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), token: 'killed-pid-1' }),
    );
    const logger = recordingLogger();

    // Act
    const store = await openStore(path, { logger });

    // Assess
    expect(store.path).toBe(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8')).token).not.toBe('killed-pid-1');
    expect(logger.warnings).toEqual([
      expect.objectContaining({
        attributes: expect.objectContaining({ why: 'an earlier process with this pid left it' }),
      }),
    ]);
  });

  it('takes over a lock of another host once its holder stopped touching it, and not before', async () => {
    // Prepare
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    const lockPath = `${path}.lock`;
    await writeFile(lockPath, JSON.stringify({ pid: 4242, hostname: 'other-host.invalid', token: 'remote' }));

    // Act
    const refused = await FileStateStore.open({ path }).catch((error: unknown) => error);
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await utimes(lockPath, longAgo, longAgo);
    const store = await openStore(path);

    // Assess
    expect(refused).toBeInstanceOf(StateFileLockedError);
    expect((refused as Error).message).toContain('on host other-host.invalid');
    expect(store.path).toBe(path);
  });

  it("names another host's process by its pid, never as this process, even when the pids are equal", async () => {
    // Prepare: another host's run with this process's pid (both pid 1 in containers, say).
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, hostname: 'other-host.invalid', token: 'remote-same-pid' }),
    );

    // Act
    const refused = await FileStateStore.open({ path }).catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(StateFileLockedError);
    expect((refused as Error).message).toContain(
      `is in use by process ${process.pid} on host other-host.invalid: two runs cannot share a state file`,
    );
    expect((refused as Error).message).not.toContain('this process');
  });

  it('frees at open the leases of runs that are gone, keeping their cursors', async () => {
    // Prepare: a run that took a lease and was killed before freeing it.
    const path = statePath();
    const killed = await FileStateStore.open({ path });
    const held = await killed.acquireLease({ source: 'org:gone', owner: 'killed-run', durationMs: 120_000 });
    if (!held.acquired) throw new Error('expected the lease');
    await killed.commitCursor({ lease: held.lease, watermark: 7, seenIds: [], release: false });
    await killed.close();

    // Act
    const next = await openStore(path);
    const acquisition = await next.acquireLease({ source: 'org:gone', owner: 'next-run', durationMs: 1_000 });

    // Assess
    expect(acquisition.acquired).toBe(true);
    expect(acquisition.acquired && acquisition.cursor?.watermark).toBe(7);
  });

  it('refuses a lock file it cannot read, and says how to clear it', async () => {
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(`${path}.lock`, 'garbage');

    const opening = FileStateStore.open({ path });

    await expect(opening).rejects.toThrow(`the lock file ${path}.lock of state file ${path} cannot be read`);
  });

  it('deletes its lock file on close, so that the next run can open the file', async () => {
    const path = statePath();
    const first = await FileStateStore.open({ path });

    await first.close();
    const second = await openStore(path);

    expect(second.path).toBe(path);
    expect(await readdir(join(path, '..'))).not.toContain('state.json.tmp');
  });

  it('refuses calls after close', async () => {
    const store = await FileStateStore.open({ path: statePath() });
    await store.close();

    const call = store.acquireLease({ source: 'org:a', owner: 'cli', durationMs: 1 });

    await expect(call).rejects.toBeInstanceOf(StateStoreClosedError);
  });

  it('refuses a file that is not JSON, leaves it untouched and says what to do', async () => {
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, '{"version": 1, "sources": [');

    const opening = FileStateStore.open({ path });

    await expect(opening).rejects.toBeInstanceOf(StateFileCorruptError);
    await expect(opening).rejects.toMatchObject({ code: 'STATE_FILE_CORRUPT', path });
    await expect(opening).rejects.toThrow(/is not valid JSON .* restore it from a backup, or move it aside/);
    expect(await readFile(path, 'utf8')).toBe('{"version": 1, "sources": [');
    expect(await readdir(join(path, '..'))).toEqual(['state.json']);
  });

  it('refuses JSON that is not a state file, naming where it differs', async () => {
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(
      path,
      JSON.stringify({ version: 1, sources: [{ source: 'org:a', cursor: { watermark: 'x' } }] }),
    );

    const opening = FileStateStore.open({ path });

    await expect(opening).rejects.toThrow(
      `state file ${path} is not a state file this program wrote at sources.0`,
    );
  });

  it('refuses a file of another format version', async () => {
    const path = statePath();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, JSON.stringify({ version: 2 }));

    const opening = FileStateStore.open({ path });

    await expect(opening).rejects.toThrow('has format version 2, and this program reads version 1');
  });

  it('never writes a privateKey to the file', async () => {
    const path = statePath();
    const store = await openStore(path);
    const orgId = atlasId();

    await store.writeInventory({
      snapshot: {
        orgId,
        takenAt: 1,
        apiKeys: [{ apiKey: { id: atlasId(), privateKey: 'fake-private-key-for-tests' }, accessList: [] }],
      },
    });

    const text = await readFile(path, 'utf8');
    expect(text).toContain(orgId);
    expect(text).not.toContain('privateKey');
    expect(text).not.toContain('fake-private-key-for-tests');
  });

  it('rejects a change it could not write, and writes it with the next change', async () => {
    const path = statePath();
    const store = await openStore(path);
    await rm(join(path, '..'), { recursive: true });

    const failed = store.increment('rule|a', 'event-1', { now: 0, expiresAt: Date.now() + 60_000, limit: 5 });
    await expect(failed).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(join(path, '..'));
    await store.increment('rule|b', 'event-2', { now: 0, expiresAt: Date.now() + 60_000, limit: 5 });

    const written = JSON.parse(await readFile(path, 'utf8')) as { counters: Array<{ key: string }> };
    expect(written.counters.map(({ key }) => key).sort()).toEqual(['rule|a', 'rule|b']);
  });

  it('drops expired records from the file', async () => {
    const path = statePath();
    const clock = new ManualClock();
    const store = await openStore(path, { clock });
    const claim = await store.claimAlert({ fingerprint: 'rule|old', claimMs: 60_000 });
    if (claim.outcome !== 'claimed') throw new Error('expected a claim');
    await store.markAlertSent({ claim: claim.claim });
    clock.advance(31 * 86_400_000);

    await store.claimAlert({ fingerprint: 'rule|new', claimMs: 60_000 });

    const written = JSON.parse(await readFile(path, 'utf8')) as { alerts: Array<{ fingerprint: string }> };
    expect(written.alerts.map(({ fingerprint }) => fingerprint)).toEqual(['rule|new']);
  });
});
